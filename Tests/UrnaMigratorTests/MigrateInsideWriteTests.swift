import Foundation
import Testing
import UrnaSchemas
import UrnaStore

@testable import UrnaMigrator

/// `migrateIfNeeded` called inside a store's write on the same file, on the same thread: the write lock the run
/// waits for is that thread's own, so it waited out `waitForOtherMigrator` (60 s by default) and then failed as if
/// another process held the file.
@Suite struct MigrateInsideWriteTests {
    @Test func migrateIfNeededInsideAWriteOfTheFileIsRefusedAtOnce() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let store = try Store(path: path, schema: try #require(SchemaFamilies.people.schema(version: 0)))
        var options = MigrationOptions()
        options.waitForOtherMigrator = .seconds(1)
        let migrator = Migrator(family: SchemaFamilies.people, options: options)
        var thrown: Error?
        try store.write {
            do { _ = try migrator.migrateIfNeeded(path: path, backup: .none) } catch { thrown = error }
        }
        guard case StoreError.alreadyInWriteTransaction? = thrown else {
            Issue.record("expected alreadyInWriteTransaction, got \(String(describing: thrown))")
            return
        }
        // Outside the write it runs.
        #expect(try migrator.migrateIfNeeded(path: path, backup: .none) != nil)
    }
}
