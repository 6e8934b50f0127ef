import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Any failure leaves the file exactly as it was: a closure that throws, a failed check, a full disk,
/// a killed process.
@Suite struct AtomicityTests {
    struct Boom: Error, CustomStringConvertible { var description: String { "boom at Grace" } }

    static func throwingPeople(after: Int) -> SchemaFamily {
        SchemaFamily(
            name: "people",
            versions: [
                SchemaVersion(People.v0),
                SchemaVersion(
                    People.v1,
                    step: MigrationStep("fullName") { m in
                        var n = 0
                        try m.enumerateObjects(ofType: "Person") { old, new in
                            n += 1
                            if n > after { throw Boom() }
                            new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
                        }
                    }),
                SchemaVersion(People.v2),
            ])
    }

    @Test func closureThrowsFileByteIdentical() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let before = Fixture.snapshot(path)
        // Without the failed-run row in _urna_history (RunLedgerTests), not one byte changes.
        let migrator = Migrator(
            family: Self.throwingPeople(after: 2), options: MigrationOptions(recordsFailedRuns: false))
        let plan = try migrator.plan(path: path)
        do {
            _ = try migrator.run(plan, backupPath: nil)
            Issue.record("the run should fail")
        } catch let e as MigrationError {
            guard case .closureFailed(0, 1, let message) = e else {
                Issue.record("unexpected \(e)")
                return
            }
            #expect(message.contains("boom at Grace"))
            #expect(e.exitCode == 1)
        }
        #expect(Fixture.checksums(Fixture.snapshot(path)) == Fixture.checksums(before))
        #expect(Fixture.snapshot(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".v0.bak"), "a failed run removes its backup")
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 0)
    }

    @Test func failedCheckFileByteIdentical() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let before = Fixture.snapshot(path)
        // Every person gets the same primary key: uniqueness fails before commit.
        let v1 = try Schema(
            family: "people", version: 1,
            types: [
                ObjectSchema(
                    "Person",
                    [
                        Property("fullName", .string, primaryKey: true), Property("age", .int64, default: 0),
                    ])
            ])
        let family = SchemaFamily(
            name: "people",
            versions: [
                SchemaVersion(People.v0),
                SchemaVersion(
                    v1,
                    step: MigrationStep(
                        allowances: [
                            .discard(type: "Person", property: "firstName"), .discard(type: "Person", property: "lastName"),
                        ]
                    ) { m in
                        try m.enumerateObjects(ofType: "Person") { _, new in new["fullName"] = "same" }
                    }),
            ])
        let migrator = Migrator(family: family, options: MigrationOptions(recordsFailedRuns: false))
        do {
            _ = try migrator.run(try migrator.plan(path: path), backup: .besideFile)
            Issue.record("the run should fail")
        } catch let e as MigrationError {
            guard case .validationFailed(_, let failures, let total) = e else {
                Issue.record("unexpected \(e)")
                return
            }
            #expect(total == 3)
            #expect(failures.allSatisfy { $0.check == "unique" && $0.type == "Person" })
            #expect(e.exitCode == 65)
        }
        #expect(Fixture.snapshot(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".v0.bak"))
    }

    @Test func fullDiskFileByteIdentical() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0, persons: (0..<3000).map { ("First\($0)", "Last\($0)", $0 % 100) })
        let pages = try Connection(path: path).integer("PRAGMA page_count")
        let before = Fixture.snapshot(path)
        var migrator = Migrator(family: SchemaFamilies.people)
        migrator.options.pragmas = ["max_page_count = \(pages + 2)"]
        do {
            _ = try migrator.run(try migrator.plan(path: path), backup: .none)
            Issue.record("the run should fail")
        } catch let e as MigrationError {
            guard case .storage(let s) = e else {
                Issue.record("unexpected \(e)")
                return
            }
            #expect(s.isDiskFull)
            #expect(e.description.contains("disk is full"))
        }
        #expect(Fixture.snapshot(path) == before)
    }

    /// Migrates `path` v0 -> v2 with seed 000's closure and, at the 15,000th object, copies the files as
    /// they are on disk right then to `crashed` (what a `kill -9` there would leave). The page cache is
    /// kept tiny so the transaction has really spilled uncommitted pages to the WAL or the database.
    private func migrateCopyingFilesHalfway(_ path: String, to crashed: String) throws {
        let family = SchemaFamily(
            name: "people",
            versions: [
                SchemaVersion(People.v0),
                SchemaVersion(
                    People.v1,
                    step: MigrationStep { m in
                        var n = 0
                        try m.enumerateObjects(ofType: "Person") { old, new in
                            new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
                            n += 1
                            if n == 15_000 {
                                for suffix in ["", "-wal", "-journal"]
                                where FileManager.default.fileExists(atPath: path + suffix) {
                                    try FileManager.default.copyItem(atPath: path + suffix, toPath: crashed + suffix)
                                }
                            }
                        }
                    }),
                SchemaVersion(People.v2),
            ])
        var migrator = Migrator(family: family)
        migrator.options.pragmas = ["cache_size = 20"]
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
    }

    /// What a killed process leaves on disk: the files as they are halfway through the transaction
    /// (with the page cache spilled to the WAL). Opened afterwards, they hold the file as it was.
    @Test func killedHalfwayLeavesTheOldFile() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        let persons = (0..<20_000).map { ("First\($0)", "Last\($0)", $0 % 100) }
        try Fixture.peopleFile(at: path, version: 0, persons: persons)
        let expected = try Fixture.dump(path)
        let crashDir = try Fixture.directory()  // kept alive: the folder goes when it does
        let crashed = crashDir.file("people.sqlite")
        try migrateCopyingFilesHalfway(path, to: crashed)
        let walSize = (try? FileManager.default.attributesOfItem(atPath: crashed + "-wal")[.size] as? Int) ?? 0
        #expect(walSize > 100_000, "the transaction had spilled pages to the WAL when the process 'died'")
        #expect(try FamilyRegistry.recordedSchema(at: crashed).version == 0)
        #expect(try Fixture.dump(crashed) == expected)
        #expect(try Fixture.dump(path).keys.contains("Person"))
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 2)
    }

    /// The same in rollback-journal mode (the committed sample file uses it).
    @Test func killedHalfwayRollbackJournal() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(
            at: path, version: 0, persons: (0..<20_000).map { ("First\($0)", "Last\($0)", $0 % 100) })
        try Connection(path: path).execute("PRAGMA journal_mode = DELETE")
        let expected = try Fixture.dump(path)
        let crashDir = try Fixture.directory()  // kept alive: the folder goes when it does
        let crashed = crashDir.file("people.sqlite")
        try migrateCopyingFilesHalfway(path, to: crashed)
        #expect(FileManager.default.fileExists(atPath: crashed + "-journal"), "a hot journal was on disk")
        _ = try Connection(path: crashed).integer("SELECT count(*) FROM sqlite_master")  // the next opener rolls it back
        #expect(!FileManager.default.fileExists(atPath: crashed + "-journal"))
        #expect(try Fixture.dump(crashed) == expected)
        #expect(try FamilyRegistry.recordedSchema(at: crashed).version == 0)
    }
}
