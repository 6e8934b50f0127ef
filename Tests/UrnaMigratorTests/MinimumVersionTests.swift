import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Squash/baseline: a family's minimum supported version, and the message older files get.
@Suite struct MinimumVersionTests {
    @Test func anOlderFileIsToldTheAdviceNotAListOfVersions() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let before = Fixture.snapshot(path)
        let m = Migrator(family: LibraryFamily.squashed)
        for attempt in [{ _ = try m.plan(path: path) }, { _ = try m.dryRun(path: path) }] {
            do {
                try attempt()
                Issue.record("a v0 file was planned by a family whose baseline is v3")
            } catch let e as MigrationError {
                guard case .olderThanSupported(_, "library", 0, 3, let advice) = e else {
                    Issue.record("\(e)")
                    continue
                }
                #expect(advice == LibraryFamily.olderFilesAdvice)
                #expect(e.exitCode == 65)
                #expect(e.description.contains("library version 0, older than version 3"), "\(e.description)")
                #expect(e.description.hasSuffix(LibraryFamily.olderFilesAdvice), "\(e.description)")
                #expect(!e.description.contains("has no version"))
            }
        }
        #expect(Fixture.snapshot(path)["main"] == before["main"], "the file is unchanged")
        let status = try m.status(path: path)
        #expect(status.pending == [] && status.olderThanSupported?.contains(LibraryFamily.olderFilesAdvice) == true)
        #expect(status.renderText().contains("Not upgradable here: "))
    }

    @Test func aFileAtTheBaselineMigratesAndTheDefaultAdviceNamesTheVersion() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        _ = try Migrator(family: LibraryFamily.family).run(
            try Migrator(family: LibraryFamily.family).plan(path: path, to: 3), backup: .none)
        let m = Migrator(family: LibraryFamily.squashed)
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.fromVersion == 3 && report.toVersion == 4)

        // Versions below the minimum may stay declared (for fixtures); files at them are still refused.
        let people = SchemaFamily(name: "people", versions: People.family.versions, minimumVersion: 1)
        let old = dir.file("people.sqlite")
        try Fixture.peopleFile(at: old, version: 0)
        #expect(throws: MigrationError.self) { _ = try Migrator(family: people).plan(path: old) }
        do {
            _ = try Migrator(family: people).plan(path: old)
        } catch let e as MigrationError {
            #expect(
                e.description(programName: "people-app").hasSuffix(
                    "upgrade it to version 1 first with an earlier release of the program that made it, then run this one"
                ),
                "\(e)")
        }
        #expect(throws: MigrationError.self) {
            try Migrator(family: people).adopt(path: dir.file("x.sqlite"), version: 0)
        }
        let wrong = SchemaFamily(name: "people", versions: People.family.versions, minimumVersion: 7)
        #expect(wrong.problems() == ["people: minimumVersion 7 is not one of its versions"])
    }
}
