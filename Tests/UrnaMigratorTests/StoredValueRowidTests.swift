import Foundation
import Testing
import UrnaStore

@testable import UrnaMigrator

/// The plan's scan for values a version cannot read leaves out only the rowid's own column (SQLite stores nothing
/// but integers there); a primary key that only looks like it (WITHOUT ROWID, `INTEGER PRIMARY KEY DESC`) is still
/// read, and planted misfits in it and in the other columns are still found.
@Suite struct StoredValueRowidTests {
    static let schema = try! Schema(
        family: "rowid", version: 0,
        types: [
            ObjectSchema("Author", [Property("id", .int64, primaryKey: true), Property("name", .string, default: "")])
        ])

    static func misfits(_ create: String, plant: String?) throws -> [String] {
        let c = try Connection(path: ":memory:", create: true)
        try c.execute(create)
        try c.execute(#"INSERT INTO "Author" VALUES (1, 'one'), (2, 'two')"#)
        if let plant { try c.execute(plant) }
        return try StoredValueCheck.misfits(in: c, schema: schema)
    }

    @Test func theRowidColumnIsProvedNotScanned() throws {
        let table = #"CREATE TABLE "Author" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '')"#
        // The proof: SQLite refuses anything but an integer in the rowid's column.
        #expect(throws: SQLiteError.self) {
            try Self.misfits(table, plant: #"INSERT INTO "Author" VALUES ('abc', 'x')"#)
        }
        #expect(throws: SQLiteError.self) { try Self.misfits(table, plant: #"INSERT INTO "Author" VALUES (2.5, 'x')"#) }
        #expect(try Self.misfits(table, plant: nil).isEmpty)
        let c = try Connection(path: ":memory:", create: true)
        try c.execute(table)
        let info = try c.rows(#"PRAGMA table_info("Author")"#)
        #expect(try StoredValueCheck.rowidColumn(of: "Author", info: info, in: c) == "id")
        // The other columns are still read.
        let other = try Self.misfits(table, plant: #"INSERT INTO "Author" VALUES (3, x'00')"#)
        #expect(other.count == 1 && other[0].contains("Author (id 3): name is X'00' (blob)"), "\(other)")
    }

    @Test(arguments: [
        #"CREATE TABLE "Author" ("id" INTEGER PRIMARY KEY DESC, "name" TEXT NOT NULL DEFAULT '')"#,
        #"CREATE TABLE "Author" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '') WITHOUT ROWID"#,
        #"CREATE TABLE "Author" ("id" INT PRIMARY KEY, "name" TEXT NOT NULL DEFAULT '')"#,
    ])
    func keysThatAreNotTheRowidAreStillRead(_ table: String) throws {
        let c = try Connection(path: ":memory:", create: true)
        try c.execute(table)
        let info = try c.rows(#"PRAGMA table_info("Author")"#)
        #expect(try StoredValueCheck.rowidColumn(of: "Author", info: info, in: c) == nil)
        let found = try Self.misfits(table, plant: #"INSERT INTO "Author" VALUES ('abc', 'x')"#)
        #expect(found.count == 1 && found[0].contains("id is 'abc' (text)"), "\(found)")
    }
}
