import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// An app that migrates on open from several places at once (two scenes, app and extension): one caller
/// upgrades, the others wait for it and get nil; nobody gets "another migration is running".
@Suite struct ConcurrentMigrateIfNeededTests {
    @Test func callersWaitForTheOneThatMigrates() async throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(
            at: path, version: 0, persons: (0..<20_000).map { ("First\($0)", "Last\($0)", $0 % 90) })
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 { group.addTask {
                    try await Migrator(family: SchemaFamilies.people).migrateIfNeeded(path: path, backup: .none) != nil
                } }
            var out: [Bool] = []
            for try await migrated in group { out.append(migrated) }
            return out
        }
        #expect(results.filter { $0 }.count == 1, "\(results)")
        #expect(results.count == 4)
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 2)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT count(*) FROM Person WHERE fullName = 'First7 Last7'") == 1)
        #expect(try c.integer("SELECT count(*) FROM Person") == 20_000)
    }
}
