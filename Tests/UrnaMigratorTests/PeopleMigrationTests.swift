import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct PeopleMigrationTests {
    @Test func seedExampleV0ToV2ValueByValue() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let migrator = Migrator(family: SchemaFamilies.people)
        let plan = try migrator.plan(path: path)
        #expect(plan.fromVersion == 0)
        #expect(plan.toVersion == 2)
        let report = try migrator.run(plan, backupPath: nil)
        #expect(report.outcome == .applied)

        let store = try Store(path: path, schema: People.v2)
        let people = Array(try store.objects("Person"))
        #expect(people.count == 4)
        let expected: [(String, Int64)] = [("Ada Lovelace", 36), ("Alan Turing", 41), ("Grace Hopper", 85), ("José Conceição", 0)]
        for (person, (fullName, age)) in zip(people, expected) {
            #expect(person["fullName"] == .string(fullName))
            #expect(person["email"] == .string(""))
            #expect(person["age"] == .int(age))
        }
    }
}
