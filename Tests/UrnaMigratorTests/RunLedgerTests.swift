import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// `_urna_history` records failed runs too, and the app's version with every row of a run.
@Suite struct RunLedgerTests {
    @Test func failedAndAppliedRunsAreRecordedWithTheAppsVersion() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let original = try Fixture.dump(path)
        let failing = Migrator(
            family: AtomicityTests.throwingPeople(after: 1), options: MigrationOptions(appVersion: "people-app 1.0"))
        #expect(throws: MigrationError.self) { _ = try failing.run(try failing.plan(path: path), backup: .none) }
        #expect(try Fixture.dump(path) == original, "the failed run changed no object")
        var history = try Migrator(family: SchemaFamilies.people).status(path: path).history
        #expect(history.count == 1)
        #expect(history.first?.outcome == "failed")
        #expect(history.first?.appVersion == "people-app 1.0")
        #expect(history.first?.message?.contains("boom") == true, "\(history)")
        #expect(try Migrator(family: SchemaFamilies.people).status(path: path).drift == [], "the ledger is not drift")

        let m = Migrator(family: SchemaFamilies.people, options: MigrationOptions(appVersion: "people-app 1.1"))
        _ = try m.run(try m.plan(path: path), backup: .none)
        history = try m.status(path: path).history
        #expect(history.map(\.outcome) == ["failed", "applied"])
        #expect(history.last?.appVersion == "people-app 1.1")
        #expect(try m.status(path: path).renderText().contains("v0 → v2 FAILED at"))
    }
}
