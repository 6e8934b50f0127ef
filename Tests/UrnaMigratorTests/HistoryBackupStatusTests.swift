import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct HistoryBackupStatusTests {
    @Test func historyRowPerAppliedStep() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsSeed.createV1File(at: path)
        let migrator = Migrator(family: SchemaFamilies.elections)
        let report = try migrator.run(try migrator.plan(path: path, to: 4), backup: .none)
        let history = try migrator.status(path: path).history
        #expect(history.map(\.fromVersion) == [1, 2, 3])
        #expect(history.map(\.toVersion) == [2, 3, 4])
        #expect(
            history.map(\.descriptorChecksum) == [
                SchemaDescriptor.checksum(ElectionsV2.schema), SchemaDescriptor.checksum(ElectionsV3.schema),
                SchemaDescriptor.checksum(ElectionsV4.schema),
            ])
        #expect(history.map(\.objectsTouched) == report.steps.map(\.objectsTouched))
        #expect(
            history.allSatisfy { $0.objectsTouched > 0 && $0.durationMs >= 0 && ISODate.parse($0.appliedAt) != nil })
        let rows = try Connection(path: path).rows(
            "SELECT family, from_version, to_version FROM \"_urna_history\" ORDER BY id")
        #expect(
            rows == [
                [.text("elections"), .integer(1), .integer(2)], [.text("elections"), .integer(2), .integer(3)],
                [.text("elections"), .integer(3), .integer(4)],
            ])
    }

    @Test func singleBlockFamilyWritesOneRow() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let migrator = Migrator(family: SchemaFamilies.people)
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
        let history = try migrator.status(path: path).history
        #expect(history.count == 1)
        #expect(history.first?.fromVersion == 0)
        #expect(history.first?.toVersion == 2)
        #expect(history.first?.objectsTouched == 4)
        #expect(try Connection(path: path).userVersion() == 2)
    }

    @Test func backupIsKeptAndOpens() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let original = try Fixture.dump(path)
        let migrator = Migrator(family: SchemaFamilies.people)
        let report = try migrator.run(try migrator.plan(path: path), backupPath: nil)
        let backup = try #require(report.backupPath)
        #expect(backup == path + ".v0.bak")
        #expect(report.renderText().contains("Backup: \(backup)"))
        let store = try Store(path: backup, schema: People.v0)
        #expect(try store.counts() == ["Person": 4])
        #expect(try Fixture.dump(backup) == original)
        #expect(try FamilyRegistry.recordedSchema(at: backup).version == 0)

        // One backup per source version, with the file as it is now: an older v0 backup at that name that holds
        // other data is kept aside as .v0.1.bak, never replaced (an equal one is reused: BackupReuseTests);
        // .none keeps none; .at uses the path.
        let again = dir.file("again.sqlite")
        try Fixture.peopleFile(at: again, version: 0, persons: [("Only", "One", 1)])
        let againBefore = try Fixture.dump(again)
        try FileManager.default.copyItem(atPath: backup, toPath: again + ".v0.bak")
        let second = try migrator.run(try migrator.plan(path: again), backup: .besideFile)
        #expect(second.backupPath == again + ".v0.bak")
        #expect(try Fixture.dump(again + ".v0.bak") == againBefore)
        #expect(try Fixture.dump(again + ".v0.1.bak") == original, "the earlier backup of other data is kept")
        #expect(second.earlierBackupKeptAt == again + ".v0.1.bak")
        let third = dir.file("third.sqlite")
        try Fixture.peopleFile(at: third, version: 0)
        #expect(try migrator.run(try migrator.plan(path: third), backup: .none).backupPath == nil)
        #expect(!FileManager.default.fileExists(atPath: third + ".v0.bak"))
        let fourth = dir.file("fourth.sqlite")
        try Fixture.peopleFile(at: fourth, version: 0)
        #expect(
            try migrator.run(try migrator.plan(path: fourth), backupPath: dir.file("keep.sqlite")).backupPath
                == dir.file("keep.sqlite"))
        #expect(try Fixture.dump(dir.file("keep.sqlite")) == original)
    }

    @Test func statusShowsPendingSteps() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsSeed.createV1File(at: path)
        let migrator = Migrator(family: SchemaFamilies.elections)
        let status = try migrator.status(path: path)
        #expect(status.fileVersion == 1)
        #expect(status.latestVersion == 6)
        #expect(status.pending.map(\.to) == [2, 3, 4, 5, 6])
        #expect(status.pending.map(\.hasClosure) == [true, true, true, false, true])  // v5 adds views only
        #expect(!status.isCurrent)
        #expect(status.drift.isEmpty)
        #expect(status.history.isEmpty)
        #expect(status.renderText().contains("Pending steps (5):"))
        #expect(try JSONSerialization.jsonObject(with: Data(status.renderJSON().utf8)) is [String: Any])
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
        let after = try migrator.status(path: path)
        #expect(after.isCurrent)
        #expect(after.pending.isEmpty)
        #expect(after.renderText().contains("Up to date"))
    }

    @Test func planIsRefusedWhenTheFileMovedOn() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let migrator = Migrator(family: SchemaFamilies.people)
        let plan = try migrator.plan(path: path)
        _ = try migrator.run(try migrator.plan(path: path, to: 1), backup: .none)
        #expect(throws: MigrationError.self) { _ = try migrator.run(plan, backup: .none) }
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 1)
    }

    @Test func planPreview() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsSeed.createV1File(at: path)
        let plan = try Migrator(family: SchemaFamilies.elections).plan(path: path)
        #expect(plan.versionPath == [1, 2, 3, 4, 5, 6])
        #expect(plan.steps.map(\.hasClosure) == [true, true, true, false, true])
        #expect(plan.steps[0].copiedThroughSwift.contains { $0.hasPrefix("Candidate") })
        let text = plan.renderText()
        #expect(text.contains("Step v1 → v2"))
        #expect(text.contains("CREATE TABLE \"_urna_new_Candidate\""))
        #expect(try JSONSerialization.jsonObject(with: Data(plan.renderJSON().utf8)) is [String: Any])
    }
}
