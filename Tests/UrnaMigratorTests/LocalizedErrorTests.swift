import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite("Errors read as their message through localizedDescription")
struct LocalizedErrorTests {
    @Test("a refused plan's localizedDescription is its message, not 'The operation could not be completed'")
    func migrationErrorsAreLocalized() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        do {
            _ = try Migrator(family: SchemaFamilies.people).plan(path: path, to: 9)
            Issue.record("there is no version 9")
        } catch {
            #expect(error.localizedDescription == "\(error)")
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
    }
}
