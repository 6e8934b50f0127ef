import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// `MigrationOptions.vacuum`: VACUUM after a successful run, with the sizes reported.
@Suite struct VacuumTests {
    /// A people v0 file with enough rows that rebuilding Person leaves many free pages behind.
    static func bigPeopleFile(at path: String, rows: Int = 20_000) throws {
        try Fixture.peopleFile(at: path, version: 0, persons: [])
        let c = try Connection(path: path)
        try c.execute("BEGIN")
        for i in 0..<rows {
            try c.run(
                "INSERT INTO Person (firstName, lastName, age) VALUES (?, ?, ?)",
                [.text("First name number \(i)"), .text(String(repeating: "L", count: 40)), .integer(Int64(i % 90))])
        }
        try c.execute("COMMIT")
    }

    @Test func vacuumAfterARunGivesThePagesBackAndSaysTheSizes() throws {
        let dir = try Fixture.directory()
        let plain = dir.file("plain.sqlite")
        let vacuumed = dir.file("vacuumed.sqlite")
        try Self.bigPeopleFile(at: plain)
        try FileManager.default.copyItem(atPath: plain, toPath: vacuumed)

        let m = Migrator(family: SchemaFamilies.people)
        let without = try m.run(try m.plan(path: plain), backup: .none)
        #expect(without.vacuum == nil)
        let v = Migrator(family: SchemaFamilies.people, options: MigrationOptions(vacuum: true))
        let report = try v.run(try v.plan(path: vacuumed), backup: .none)
        let result = try #require(report.vacuum)
        #expect(result.error == nil)
        let after = try #require(result.bytesAfter)
        #expect(after < result.bytesBefore, "VACUUM shrank the file: \(result.bytesBefore) -> \(after)")
        #expect(after == DiskSize.of(vacuumed), "the reported size is the file's")
        #expect(DiskSize.of(vacuumed) < DiskSize.of(plain))
        #expect(try Connection(path: vacuumed).integer("PRAGMA freelist_count") == 0)
        #expect(try Fixture.dump(vacuumed) == (try Fixture.dump(plain)), "the same rows either way")
        #expect(report.renderText().contains("VACUUM: "))
        #expect(report.renderJSON().contains("\"vacuum\""))
    }

    @Test func aDryRunVacuumsItsCopyOnly() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Self.bigPeopleFile(at: path, rows: 5_000)
        let before = Fixture.snapshot(path)
        let v = Migrator(family: SchemaFamilies.people, options: MigrationOptions(vacuum: true))
        let report = try v.dryRun(path: path)
        let result = try #require(report.vacuum)
        #expect(result.error == nil && (result.bytesAfter ?? .max) < result.bytesBefore)
        #expect(report.renderText().contains("(on the copy)"))
        #expect(Fixture.snapshot(path) == before)
    }
}

enum DiskSize {
    /// The bytes of a file and its -wal on disk.
    static func of(_ path: String) -> Int64 {
        ["", "-wal"].reduce(Int64(0)) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            return total + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
