import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// A store still open on a file another connection migrated: its objects say so with `schemaMismatch` (not a raw
/// "no such column"), and their subscript answers what they last read instead of trapping.
@Suite struct StaleObjectAfterMigrationTests {
    @Test func anObjectOfTheOldSchemaSaysSchemaMismatchAndNeverTraps() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let store = try Store(path: path, schema: People.v0)
        let person = try #require(try store.objects("Person").first)
        let lastName = try person.value(forKey: "lastName")
        _ = try Migrator(family: SchemaFamilies.people).migrateIfNeeded(path: path, backup: .none)
        #expect(throws: StoreError.self) { try store.write { person["age"] = 1 } }
        do {
            _ = try person.value(forKey: "lastName")
            Issue.record("a read of a column the migration removed succeeded")
        } catch let e as StoreError {
            guard case .schemaMismatch = e else {
                Issue.record("not schemaMismatch: \(e)")
                return
            }
        }
        #expect(person["lastName"] == lastName, "the value it last read")
    }
}
