import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// `urna migrate` adds the run ledger's columns (`outcome`, `message`, `app_version`) to `_urna_history`; the
/// shape checks (the importer's before it commits among them) must take such a file as its schema's. Before,
/// every file migrated by the command line was refused by the next `urna import` ("_urna_history: column
/// outcome is not in the descriptor").
@Suite struct LedgerColumnsShapeTests {
    static func file(schema: Schema) throws -> Connection {
        let c = try Connection(path: ":memory:")
        try c.execute(StorageLayout.metadataSQL)
        for sql in StorageLayout.createSQL(for: schema) { try c.execute(sql) }
        return c
    }

    @Test func theLedgerColumnsAreTheHistorysOwn() throws {
        let schema = SchemaFamilies.elections.latest
        let c = try Self.file(schema: schema)
        for column in ["outcome", "message", "app_version"] {
            try c.execute("ALTER TABLE \"\(StorageLayout.historyTable)\" ADD COLUMN \"\(column)\" TEXT")
        }
        let expected = try DatabaseShape.expected(for: schema)
        #expect(try DatabaseShape.read(c).differences(from: expected).isEmpty)
        #expect(try DatabaseShape.read(c).differences(from: expected, allowExtraIndexes: true).isEmpty)

        // Any other column is still a difference, in the history table as anywhere.
        try c.execute("ALTER TABLE \"\(StorageLayout.historyTable)\" ADD COLUMN \"planted\" TEXT")
        try c.execute("ALTER TABLE \"GoodType\" ADD COLUMN \"outcome\" TEXT")
        let differences = try DatabaseShape.read(c).differences(from: expected)
        #expect(differences.contains("\(StorageLayout.historyTable): column planted is not in the descriptor"))
        #expect(differences.contains("GoodType: column outcome is not in the descriptor"))
    }
}
