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
