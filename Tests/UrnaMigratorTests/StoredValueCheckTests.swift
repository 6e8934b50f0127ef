import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Values written into a file by hand or by another tool that the file's own version cannot read: the plan
/// refuses them, row by row, before anything changes, instead of carrying a nil, a default or a truncated number
/// into the new version.
@Suite struct StoredValueCheckTests {
    func expectMisfit(_ path: String, family: SchemaFamily, mentions: [String], count: Int? = nil) {
        let before = Fixture.snapshot(path)
        do {
            _ = try Migrator(family: family).plan(path: path)
            Issue.record("expected the plan to refuse the file")
        } catch let e as MigrationError {
            guard case .valuesDoNotFit(_, _, let problems) = e else {
                Issue.record("unexpected error: \(e)")
                return
            }
            #expect(e.exitCode == 65)
            for m in mentions { #expect(e.description.contains(m), "'\(m)' not in: \(e.description)") }
            if let count { #expect(problems.count == count, "\(problems)") }
        } catch {
            Issue.record("not a MigrationError: \(error)")
        }
        // (The -shm is SQLite's shared-memory index, which a reader's open may touch; the data never changes.)
        let after = Fixture.snapshot(path)
        #expect(after["main"] == before["main"] && after["-wal"] == before["-wal"], "a refused plan changed the file")
    }

    @Test func handEditedPeopleValuesAreRefusedAndTheFixedFileMigrates() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let c = try Connection(path: path)
        try c.execute(
            """
            INSERT INTO "Person" ("_id", "firstName", "lastName", "age") VALUES
              (101, 'Bo', 'X', 'abc'), (102, 'Cy', 'Y', 1950.5), (103, x'00ff', 'Z', 3), (104, 12, 'W', 4)
            """)
        // 12 into a TEXT column is '12' (column affinity): it fits, as the store would read it.
        expectMisfit(
            path, family: SchemaFamilies.people,
            mentions: [
                "Person (_id 101): age is 'abc' (text); version 0 stores an integer there",
                "Person (_id 102): age is 1950.5 (real)",
                "Person (_id 103): firstName is X'00FF' (blob); version 0 stores text there",
                "sql --write",
            ], count: 3)
        try c.execute("UPDATE \"Person\" SET age = 0 WHERE _id IN (101, 102); UPDATE \"Person\" SET firstName = '' WHERE _id = 103")
        let report = try Migrator(family: SchemaFamilies.people).migrateIfNeeded(path: path, backup: .none)
        #expect(report?.toVersion == 2)
        #expect(try c.integer("SELECT count(*) FROM \"Person\" WHERE fullName = '12 W'") == 1)
    }

    static let v0 = try! Schema(
        family: "shelf", version: 0,
        types: [
            ObjectSchema(
                "Book",
                [
                    Property("code", .string, primaryKey: true), Property("stars", .int8, default: 0),
                    Property("added", .date, optional: true), Property("price", .decimal(scale: 2), optional: true),
                    Property("related", .list("Book")),
                ])
        ])
    static let v1 = try! Schema(
        family: "shelf", version: 1,
        types: [
            ObjectSchema(
                "Book",
                [
                    Property("code", .string, primaryKey: true), Property("stars", .int8, default: 0),
                    Property("added", .date, optional: true), Property("price", .decimal(scale: 2), optional: true),
                    Property("related", .list("Book")), Property("note", .string, default: ""),
                ])
        ])
    static let family = SchemaFamily(
        name: "shelf", versions: [SchemaVersion(v0), SchemaVersion(v1, step: MigrationStep("note added"))])

    @Test func rangesDatesAndListTablesAreChecked() throws {
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        let store = try Store(path: path, schema: Self.v0)
        try store.write {
            let a = try store.create("Book", value: ["code": "a", "stars": 3, "added": Date(timeIntervalSince1970: 0)])
            try store.create("Book", value: ["code": "b", "related": [a]])
        }
        let c = try Connection(path: path)
        try c.execute(
            """
            UPDATE "Book" SET stars = 300 WHERE code = 'a';
            UPDATE "Book" SET added = '04/12/2026' WHERE code = 'b';
            INSERT INTO "Book" (code, stars, added) VALUES ('c', 1, '2020-02-30T00:00:00.000Z'), ('d', 1, '2020-01-01T24:00:00.000Z');
            UPDATE "Book_related" SET target = x'07'
            """)
        expectMisfit(
            path, family: Self.family,
            mentions: [
                "stars is 300 (integer); version 0 stores an integer from -128 to 127 there",
                "added is '04/12/2026' (text); version 0 stores an ISO-8601 UTC date",
                "Book_related (owner ", "target is X'07' (blob); version 0 stores text there",
                "added is '2020-02-30T00:00:00.000Z' (text)", "added is '2020-01-01T24:00:00.000Z' (text)",
            ], count: 5)
    }

    @Test func aFileTheStoreWroteAlwaysPasses() throws {
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        let store = try Store(path: path, schema: Self.v0)
        try store.write {
            let a = try store.create(
                "Book",
                value: ["code": "a", "stars": -128, "added": Date(timeIntervalSince1970: 1.5), "price": Decimal(string: "12.34")!])
            try store.create("Book", value: ["code": "b", "stars": 127, "related": [a, a]])
        }
        let report = try Migrator(family: Self.family).migrateIfNeeded(path: path, backup: .none)
        #expect(report?.toVersion == 1)
    }

    /// Int64.min and Int64.max are keys like any other: a closure's step migrates them (Int64.min was taken for
    /// an insert the key collision had skipped, and the run failed with "same primary key").
    @Test func extremeIntegerKeysMigrate() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0, persons: [])
        try Connection(path: path).execute(
            """
            INSERT INTO "Person" ("_id", "firstName", "lastName", "age") VALUES
              (-9223372036854775808, 'Ana', 'Min', 1), (9223372036854775807, 'Bo', 'Max', 2), (0, 'Cy', 'Zero', 3)
            """)
        let report = try Migrator(family: SchemaFamilies.people).migrateIfNeeded(path: path, backup: .none)
        #expect(report?.toVersion == 2)
        let rows = try Connection(path: path, readOnly: true, create: false).rows(
            "SELECT _id, fullName FROM Person ORDER BY _id")
        #expect(rows.map { "\($0[0]) \($0[1])" } == ["-9223372036854775808 Ana Min", "0 Cy Zero", "9223372036854775807 Bo Max"])
    }
}
