import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// The public harness on the library and people families: every path from every fixture agrees with a fresh
/// latest file; a wrong step is caught.
@Suite struct MigrationTestHarnessTests {
    @Test func libraryAndPeopleHistoriesAgreeWithFreshFiles() throws {
        let dir = try Fixture.directory()
        let library = MigrationTestHarness(
            family: LibraryFamily.family, fixtures: [0: { try LibraryFamily.fillV0(at: $0) }])
        #expect(try library.check(in: dir.path) == [])
        let people = MigrationTestHarness(
            family: SchemaFamilies.people,
            fixtures: [
                0: { try Fixture.peopleFile(at: $0, version: 0) }, 1: { try Fixture.peopleFile(at: $0, version: 1) },
                2: { try Fixture.peopleFile(at: $0, version: 2) },
            ])
        #expect(try people.check(in: dir.path) == [])
    }

    @Test func aStepThatLosesDataIsCaught() throws {
        let dir = try Fixture.directory()
        // fullName from the last name only: the migrated rows differ from the v1 fixture's.
        let wrong = SchemaFamily(
            name: "people",
            versions: [
                SchemaVersion(People.v0),
                SchemaVersion(
                    People.v1,
                    step: MigrationStep("wrong") { m in
                        try m.enumerateObjects(ofType: "Person") { old, new in new["fullName"] = old["lastName"] }
                    }),
            ])
        let harness = MigrationTestHarness(
            family: wrong,
            fixtures: [
                0: { try Fixture.peopleFile(at: $0, version: 0) }, 1: { try Fixture.peopleFile(at: $0, version: 1) },
            ])
        let problems = try harness.check(in: dir.path)
        // The closure never reads firstName: the run itself fails on that loss, and the harness says so.
        #expect(
            problems.contains { $0.hasPrefix("v0 → v1 in one run failed:") && $0.contains("Person.firstName") },
            "\(problems)")
    }
}
