import Foundation
import Testing
import UrnaStore

@testable import UrnaMigrator

/// Links to re-keyed objects are translated through `LEFT JOIN`s of the key map (bulk copies, fused steps' reads)
/// instead of a scalar subquery per row: both forms are run on the same rows, odd ones included (nil, unmapped,
/// text, real and extreme values in the link column, two links to one map), and must give the same rows in the
/// same order.
@Suite struct KeyMapJoinTests {
    static func schema(_ version: Int, key: PropertyType) -> Schema {
        try! Schema(
            family: "keys", version: version,
            types: [
                ObjectSchema(
                    "Author", [Property("id", key, primaryKey: true), Property("name", .string, default: "")]),
                ObjectSchema(
                    "Book",
                    [
                        Property("id", .int64, primaryKey: true), Property("author", .link("Author")),
                        Property("editor", .link("Author")), Property("title", .string, default: ""),
                    ]),
            ])
    }

    /// A v0 file (integer author keys) whose books' links hold every kind of value SQLite lets the column hold.
    static func file(_ path: String) throws -> Connection {
        _ = try Store(path: path, schema: schema(0, key: .int64))
        let c = try Connection(path: path, create: false)
        try c.execute("PRAGMA foreign_keys = OFF")
        for a in [1, 2, 3, 5, 8, -1] { try c.run(#"INSERT INTO "Author" VALUES (?, 'n')"#, [.integer(Int64(a))]) }
        let links: [SQLValue] = [
            .null, .integer(1), .integer(2), .integer(3), .integer(5), .integer(99), .text("8"), .text("abc"),
            .real(2.5), .real(3.0), .integer(Int64.min), .integer(Int64.max), .integer(-1), .text(""), .text(" 1"),
        ]
        var id: Int64 = 0
        for a in links {
            for e in [SQLValue.null, .integer(1), a, .integer(42)] {
                id += 1
                try c.run(#"INSERT INTO "Book" VALUES (?, ?, ?, 't')"#, [.integer(id), a, e])
            }
        }
        return c
    }

    /// Both forms' rows for `t`, read from `from`, with its key map in `map` (the run's or a fused step's copy).
    static func bothForms(
        _ c: Connection, _ analysis: StepAnalysis, _ t: TypeTransfer, map: String, integer: Bool
    ) throws -> (joined: [[SQLValue]], subquery: [[SQLValue]]) {
        let maps = ["Author": map]
        let integers: Set<String> = integer ? ["Author"] : []
        let joined = analysis.carriedSelectSQL(t, from: #""Book""#, keyMapTables: maps, integerKeyMaps: integers)
        #expect(joined.contains("LEFT JOIN"), "\(joined)")
        let exprs = t.newColumns.indices.map {
            analysis.bulkExpression(
                t, column: $0, keyMaps: ["Author"], keyMapTables: maps, integerKeyMaps: integers)
        }
        let subquery = "SELECT \((exprs + ["o.rowid"]).joined(separator: ", ")) FROM \"Book\" o"
        #expect(subquery.contains("(SELECT m."), "\(subquery)")
        return (try c.rows(joined + " ORDER BY o.rowid"), try c.rows(subquery + " ORDER BY o.rowid"))
    }

    @Test(arguments: [false, true])
    func theJoinGivesWhatTheSubqueryGives(integerMap: Bool) throws {
        let dir = try Fixture.directory()
        let c = try Self.file(dir.file("keys.sqlite"))
        let step = ResolvedStep(
            from: Self.schema(0, key: .int64), to: Self.schema(1, key: .string), renames: [], allowances: [],
            closure: nil, summary: "string keys")
        let analysis = StepAnalysis(step: step)
        let book = try #require(analysis.byName["Book"])
        let author = try #require(analysis.byName["Author"])
        let map = "temp.\"keys_copy\""
        if integerMap {
            // A fused step's copy of the map: old integer keys as integers.
            try c.execute(#"CREATE TEMP TABLE "keys_copy" ("old_key" INTEGER PRIMARY KEY, "new_key" TEXT)"#)
        } else {
            try c.execute(
                #"CREATE TEMP TABLE "keys_copy" ("old_key" \#(author.newKeySQLType) PRIMARY KEY, "new_key" \#(author.newKeySQLType)) WITHOUT ROWID"#
            )
        }
        // Every author but 5 re-keyed (5 keeps its key: no entry), and one entry no book points at.
        for a in [1, 2, 3, 8, -1, 77] {
            let old: SQLValue = integerMap ? .integer(Int64(a)) : .text(String(a))
            try c.run("INSERT INTO \(map) VALUES (?, ?)", [old, .text("A\(a)")])
        }
        let (joined, subquery) = try Self.bothForms(c, analysis, book, map: map, integer: integerMap)
        #expect(joined.count == 60)
        #expect(joined == subquery)
        let translated = joined.filter { if case .text(let s) = $0[1] { s.hasPrefix("A") } else { false } }
        #expect(!translated.isEmpty, "some links were translated")
    }
}
