import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Progress as one overall fraction, cancellation that rolls back, and the `async` migrateIfNeeded.
@Suite struct ProgressCancelTests {
    final class Fractions: MigrationReporter, @unchecked Sendable {
        var values: [Double] = []
        var cancelAt: Double?
        let token = MigrationCancellation()
        func overallProgress(fraction: Double, phase: String) {
            values.append(fraction)
            if let c = cancelAt, fraction >= c { token.cancel() }
        }
    }

    static let persons = (0..<20_000).map { ("First\($0)", "Last\($0)", $0 % 90) }

    @Test func overallFractionRisesToOne() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0, persons: Self.persons)
        let r = Fractions()
        let m = Migrator(family: SchemaFamilies.people, reporter: r)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(r.values.count >= 3, "\(r.values)")
        #expect(r.values == r.values.sorted(), "never decreasing: \(r.values)")
        #expect(r.values.last == 1)
    }

    /// The backup reports its pages and stops at a cancel, before the first step starts: a big file's backup
    /// need not be waited for.
    @Test func cancellingDuringTheBackupStopsIt() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0, persons: Self.persons + Self.persons.map { ($0.0 + "b", $0.1, $0.2) })
        let before = try Fixture.dump(path)
        final class CancelInBackup: MigrationReporter, @unchecked Sendable {
            var phases: [String] = []
            var stepsStarted = 0
            let token = MigrationCancellation()
            func overallProgress(fraction: Double, phase: String) {
                phases.append(phase)
                if phase.hasPrefix("backup") { token.cancel() }
            }
            func stepStarted(from: Int, to: Int) { stepsStarted += 1 }
        }
        let r = CancelInBackup()
        var options = MigrationOptions()
        options.cancellation = r.token
        let m = Migrator(family: SchemaFamilies.people, reporter: r, options: options)
        #expect {
            _ = try m.run(try m.plan(path: path), backup: .besideFile)
        } throws: { error in
            if case MigrationError.cancelled = error { true } else { false }
        }
        #expect(r.phases.contains { $0.hasPrefix("backup") }, "\(r.phases)")
        #expect(r.stepsStarted == 0, "the cancel stopped the run in its backup")
        #expect(try Fixture.dump(path) == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".bak") }
        #expect(leftovers.isEmpty, "no backup, whole or partial: \(leftovers)")
    }

    @Test func cancellingRollsBack() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0, persons: Self.persons)
        let before = try Fixture.dump(path)
        let r = Fractions()
        r.cancelAt = 0
        let m = Migrator(family: SchemaFamilies.people, reporter: r, options: MigrationOptions())
        var options = m.options
        options.cancellation = r.token
        let cancellable = Migrator(family: SchemaFamilies.people, reporter: r, options: options)
        do {
            _ = try cancellable.run(try cancellable.plan(path: path), backup: .besideFile)
            Issue.record("the cancelled run committed")
        } catch let e as MigrationError {
            guard case .cancelled = e else {
                Issue.record("\(e)")
                return
            }
        }
        #expect(try Fixture.dump(path) == before)
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 0)
        #expect(!FileManager.default.fileExists(atPath: path + ".v0.bak"), "a cancelled run keeps no backup")
        #expect(try m.status(path: path).history.map(\.outcome) == ["failed"])
    }

    @Test func asyncMigrateIfNeeded() async throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let m = Migrator(family: SchemaFamilies.people)
        let report = try await m.migrateIfNeeded(path: path, backup: .none)
        #expect(report?.toVersion == 2)
        let again = try await m.migrateIfNeeded(path: path, backup: .none)
        #expect(again == nil)
    }
}
