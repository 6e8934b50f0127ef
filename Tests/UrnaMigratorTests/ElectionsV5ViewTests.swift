import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// v4 → v5: the views for analysis, created from code by the migrator; no table loses a row or a value.
@Suite struct ElectionsV5ViewTests {
    static let head = "130000084715"

    /// A v4 file written with the frozen v4 descriptor, migrated: same tables and rows, the three views
    /// present and reading, the descriptor recording each view's checksum but not its SQL.
    @Test func v4FileMigratesToV5WithViews() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsFixtures.file(version: 4, at: path)
        let before = try Fixture.dump(path)
        let migrator = Migrator(family: SchemaFamilies.elections)
        let report = try migrator.run(try migrator.plan(path: path, to: 5), backup: .none)
        #expect(report.versionPath == [4, 5])
        #expect(try Fixture.dump(path) == before)
        #expect(try FamilyRegistry.recordedSchema(at: path) == ElectionsV5.schema)

        let c = try Connection(path: path, readOnly: true, create: false)
        let views = try c.rows("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name").map { "\($0[0])" }
        #expect(views == ["candidacies", "coalition_members", "goods"])
        let descriptor = try #require(try c.scalar("SELECT descriptor FROM \"_urna_schema\" WHERE id = 1"))
        guard case .text(let json) = descriptor else {
            Issue.record("no descriptor text")
            return
        }
        #expect(json.contains(ElectionsV5.goods.checksum))
        #expect(!json.contains("SELECT"))

        // Each view's columns are the ones its descriptor documents, in order.
        for v in ElectionsV5.views {
            let names = try c.rows("SELECT name FROM pragma_table_info(?)", [.text(v.name)]).map { "\($0[0])" }
            #expect(names == v.columns.map(\.name), "\(v.name)")
        }

        let candidacy = try c.rows(
            "SELECT CD_ELEICAO, ANO_ELEICAO, NR_TURNO, SG_UF, DS_CARGO, NM_URNA_CANDIDATO, SG_PARTIDO, IDADE_DATA_ELEICAO "
                + "FROM candidacies WHERE SQ_CANDIDATO = ?", [.text(Self.head)])
        #expect(
            candidacy == [
                [.integer(220), .integer(2016), .integer(1), .text("MG"), .text("Prefeito"), .text("VANESSA PORTUGAL"),
                 .text("PSTU"), .integer(46)]
            ])
        #expect(try c.integer("SELECT count(*) FROM candidacies") == 2)

        let cents = try c.integer("SELECT sum(\"value\") FROM \"Good\"")
        #expect(try c.integer("SELECT count(*) FROM goods WHERE SQ_CANDIDATO = ?", [.text(Self.head)]) == 5)
        #expect(
            try c.integer("SELECT sum(VR_BEM_CANDIDATO_CENTAVOS) FROM goods WHERE SQ_CANDIDATO = ?", [.text(Self.head)])
                == cents)
        #expect(
            try c.rows("SELECT DS_TIPO_BEM_CANDIDATO, VR_BEM_CANDIDATO FROM goods WHERE NR_ORDEM_CANDIDATO = 2")
                == [[.text("Casa"), .real(150000)]])

        #expect(
            try c.rows("SELECT SQ_COLIGACAO, NR_ORDEM, NR_PARTIDO, SG_PARTIDO FROM coalition_members")
                == [[.integer(11), .integer(0), .integer(16), .text("PSTU")]])
    }

    /// A step drops the views the old version owns and creates the new version's from code: a view whose
    /// SQL was edited in the file comes back as the code writes it (not kept as user drift), and a user's
    /// own view that reads it survives.
    @Test func familyViewsAreRecreatedFromCode() throws {
        let book1 = ObjectSchema("Book", [Property("id", .int64, primaryKey: true), Property("title", .string, default: "")])
        let book2 = ObjectSchema(
            "Book",
            [
                Property("id", .int64, primaryKey: true), Property("title", .string, default: ""),
                Property("pages", .int64, default: 0),
            ])
        let v1 = try Schema(
            family: "shelf", version: 1, types: [book1],
            views: [SchemaView("titles", "one row per book", columns: [.init("TITLE", "title")], sql: #"SELECT "title" AS TITLE FROM "Book""#)])
        let v2 = try Schema(
            family: "shelf", version: 2, types: [book2],
            views: [
                SchemaView(
                    "titles", "one row per book", columns: [.init("TITLE", "title"), .init("PAGES", "pages")],
                    sql: #"SELECT "title" AS TITLE, "pages" AS PAGES FROM "Book""#)
            ])
        let family = SchemaFamily(
            name: "shelf", versions: [SchemaVersion(v1, step: MigrationStep("books")), SchemaVersion(v2, step: MigrationStep("pages"))])
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        do {
            let store = try Store(path: path, schema: v1)
            try store.write { _ = try store.create("Book", value: ["id": 1, "title": "Dom Casmurro"]) }
        }
        do {
            let c = try Connection(path: path)
            try c.execute("DROP VIEW titles")
            try c.execute(#"CREATE VIEW titles AS SELECT "title" AS TITLE, 'planted' AS PLANTED FROM "Book""#)
            try c.execute("CREATE VIEW my_titles AS SELECT TITLE FROM titles")
        }
        let migrator = Migrator(family: family)
        let report = try migrator.run(try migrator.plan(path: path), backup: .none)
        #expect(report.versionPath == [1, 2])
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.rows("SELECT * FROM titles") == [[.text("Dom Casmurro"), .integer(0)]])
        #expect(try c.rows("SELECT * FROM my_titles") == [[.text("Dom Casmurro")]])
    }

    /// Files record each view's checksum: the SQLite SQL of v5's views must stay byte for byte what released
    /// files recorded (else every v5 file would show drift), whatever is added beside it (the PostgreSQL SQL).
    @Test func theViewsSQLIsWhatV5FilesRecorded() {
        #expect(ElectionsV5.views.map(\.checksum) == ["67f87cc31d18881d", "f9d04c1731f0f2eb", "82eff03e0ed1f0f9"])
        #expect(ElectionsV5.views.allSatisfy { $0.postgresSQL != nil && $0.postgresSQL != "" })
    }

    /// Descriptors of versions without views are unchanged by the views key (their checksums stay).
    @Test func earlierDescriptorsHaveNoViewsKey() {
        #expect(!SchemaDescriptor.encode(ElectionsV4.schema).contains("\"views\""))
        #expect(SchemaDescriptor.encode(ElectionsV5.schema).contains("\"views\""))
        let decoded = try? SchemaDescriptor.decode(SchemaDescriptor.encode(ElectionsV5.schema))
        #expect(decoded == ElectionsV5.schema)
        #expect(decoded?.views.allSatisfy { $0.sql.isEmpty } == true)
    }
}
