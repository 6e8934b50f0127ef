import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// A plain SQLite file brought under a family version (then migrated), and restoring from a backup.
@Suite struct AdoptRestoreTests {
    static let personV0 = """
        CREATE TABLE "Person" ("_id" INTEGER PRIMARY KEY, "firstName" TEXT NOT NULL DEFAULT '',
          "lastName" TEXT NOT NULL DEFAULT '', "age" INTEGER NOT NULL DEFAULT 0);
        INSERT INTO "Person" ("firstName", "lastName", "age") VALUES ('Ana', 'Souza', 31), ('José', 'Lima', 47);
        """

    @Test func plainFileIsAdoptedThenMigrated() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(Self.personV0)
        let rowsBefore = try Fixture.dump(path)
        let m = Migrator(family: SchemaFamilies.people)
        let adopted = try m.adopt(path: path, version: 0)
        #expect(adopted.counts == ["Person": 2])
        #expect(try Fixture.dump(path) == rowsBefore, "adopting changes no row")
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 0)
        #expect(try m.status(path: path).drift == [])
        _ = try m.run(try m.plan(path: path), backup: .none)
        let names = try Connection(path: path).rows("SELECT fullName FROM Person ORDER BY _id").map { "\($0[0])" }
        #expect(names == ["Ana Souza", "José Lima"])
    }

    @Test func mismatchedTablesAreRefusedListingEveryDifference() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            "CREATE TABLE Person (firstName TEXT, surname TEXT, age INTEGER CHECK (age >= 0)); INSERT INTO Person VALUES ('Ana', 'Souza', 1)"
        )
        let before = Fixture.snapshot(path)
        do {
            try Migrator(family: SchemaFamilies.people).adopt(path: path, version: 0)
            Issue.record("adopted a file that does not match")
        } catch let e as MigrationError {
            guard case .adoptionRefused(_, "people", 0, let differences) = e else {
                Issue.record("\(e)")
                return
            }
            #expect(e.exitCode == 65)
            #expect(differences.contains { $0.hasPrefix("Person: column lastName is missing (expected lastName TEXT NOT NULL") })
            #expect(differences.contains { $0.hasPrefix("Person: column surname is not in the storage contract") })
            #expect(differences.count == 2, "a CHECK, nullable columns and no _id are rebuilt, not refused")
        }
        #expect(Fixture.snapshot(path) == before)
        // An Urna file is not adopted again: at the asked version there is nothing to do; at another, it says to
        // migrate (not that its tables differ).
        let urna = dir.file("urna.sqlite")
        try Fixture.peopleFile(at: urna, version: 1)
        do {
            try Migrator(family: SchemaFamilies.people).adopt(path: urna, version: 1)
            Issue.record("adopted an Urna file again")
        } catch let e as MigrationError {
            guard case .alreadyCurrent(_, "people", 1) = e else {
                Issue.record("\(e)")
                return
            }
        }
        do {
            try Migrator(family: SchemaFamilies.people).adopt(path: urna, version: 0)
            Issue.record("adopted an Urna file at another version")
        } catch let e as MigrationError {
            #expect("\(e)" == "\(urna) cannot be adopted: it is already an Urna file (people version 1): migrate it instead; the file was not changed")
        }
    }

    @Test func restorePutsTheBackupBack() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let original = try Fixture.dump(path)
        let m = Migrator(family: SchemaFamilies.people)
        let report = try m.run(try m.plan(path: path), backup: .besideFile)
        #expect(report.backupPath == path + ".v0.bak")
        #expect(MigrationBackup.backups(of: path) == [path + ".v0.bak"])
        let restored = try MigrationBackup.restore(path: path)
        #expect(restored.version == 0 && restored.backupPath == path + ".v0.bak")
        #expect(try Fixture.dump(path) == original)
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 0)
        #expect(FileManager.default.fileExists(atPath: path + ".v0.bak"), "the backup is kept")
        // The file as it was (v2) is kept beside it: a restore from the wrong backup loses nothing.
        #expect(restored.keptAs == path + ".before-restore.bak")
        #expect(try FamilyRegistry.recordedSchema(at: path + ".before-restore.bak").version == 2)
        let again = try MigrationBackup.restore(path: path)
        #expect(again.keptAs == path + ".before-restore.1.bak")
    }

    /// The file itself (or a link to it) is no backup, for restore and for the backup's own name; a refused
    /// restore leaves no copy of the file behind.
    @Test func theFileItselfIsNoBackup() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        #expect(throws: MigrationError.self) { try MigrationBackup.restore(path: path, from: path) }
        let linked = dir.file("link.bak")
        try FileManager.default.linkItem(atPath: path, toPath: linked)
        #expect(throws: MigrationError.self) { try MigrationBackup.restore(path: path, from: linked) }
        #expect(!FileManager.default.fileExists(atPath: path + ".before-restore.bak"))
        try FileManager.default.linkItem(atPath: path, toPath: path + ".v0.bak")
        let m = Migrator(family: SchemaFamilies.people)
        do {
            _ = try m.run(try m.plan(path: path), backup: .besideFile)
            Issue.record("a backup onto the file itself was accepted")
        } catch let e as MigrationError {
            #expect(e.description.contains("that name is the database itself"), "\(e)")
        }
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 0)
    }

    @Test func aBackupOfAnotherFamilyIsNotRestored() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let other = dir.file("elections.sqlite")
        try ElectionsSeed.createV1File(at: other)
        let before = try Fixture.dump(path)
        #expect(throws: MigrationError.self) { try MigrationBackup.restore(path: path, from: other) }
        do {
            try MigrationBackup.restore(path: path, from: other)
        } catch {
            #expect("\(error)".contains("it is not a backup of that file") && !"\(error)".contains("--backup"), "\(error)")
        }
        #expect(try Fixture.dump(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".before-restore.bak"))
    }
}
