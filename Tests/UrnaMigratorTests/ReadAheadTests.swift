import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Old rows read on a second thread (`MigrationOptions.readAhead`) must give exactly what reading them
/// through the migration's own connection gives, and the second reader is used only where it sees the same
/// rows: the first step of a run, in a WAL file.
@Suite struct ReadAheadTests {
    /// Migrates copies of `source` with read-ahead on and off; returns both reports and both files' data.
    static func bothWays(
        _ source: String, in dir: TemporaryDirectory, family: SchemaFamily, journalMode: String? = nil
    ) throws -> (on: MigrationReport, off: MigrationReport, onData: [String: [String]], offData: [String: [String]]) {
        var reports: [MigrationReport] = []
        var data: [[String: [String]]] = []
        for (name, readAhead) in [("on", true), ("off", false)] {
            let path = dir.file("\(name).sqlite")
            try FileManager.default.copyItem(atPath: source, toPath: path)
            if let journalMode {
                try Connection(path: path, create: false).execute("PRAGMA journal_mode = \(journalMode)")
            }
            let migrator = Migrator(family: family, options: MigrationOptions(readAhead: readAhead))
            reports.append(try migrator.run(try migrator.plan(path: path), backup: .none))
            data.append(try Fixture.dump(path))
        }
        return (reports[0], reports[1], data[0], data[1])
    }

    /// Paths the process has open below `folder` (from /proc/self/fd).
    static func openFiles(under folder: String) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
            .filter { $0.hasPrefix(folder + "/") }
    }

    @Test func petsThroughAClosureThatKeepsDeletesAndChanges() throws {
        let dir = try Fixture.directory()
        let source = dir.file("pets.sqlite")
        try EnumerationReuseTests.file(source)
        final class Kept: @unchecked Sendable { var objects: [MigrationObject] = [] }
        let kept = Kept()
        let family = EnumerationReuseTests.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in
                let age = old["age"].intValue!
                if age % 5 == 0 {
                    try m.delete(new)
                    return
                }
                new["label"] = .string("\(old["name"].stringValue!)/\(old["nickname"].stringValue ?? "-")")
                if age % 2 == 1 { new["age"] = .int(age * 10) }
                if age % 7 == 0 { kept.objects.append(old) }
            }
            // Kept old objects still hold their own row after the enumeration moved on.
            for old in kept.objects { #expect(old["name"] == .string("pet\(old["age"].intValue!)")) }
        }
        let r = try Self.bothWays(source, in: dir, family: family)
        #expect(r.on.steps.first?.readAhead == ["Pet"])
        #expect(r.off.steps.first?.readAhead == [])
        #expect(r.onData == r.offData)
        #expect(r.onData["Pet"]?.count == 240)
        #expect(r.on.steps.first?.activity == r.off.steps.first?.activity)
        #expect(r.on.steps.first?.droppedData == r.off.steps.first?.droppedData)
        // Multiples of 7 below 300 that are not multiples of 5: 34 in each run.
        #expect(kept.objects.count == 2 * (0..<300).filter { $0 % 7 == 0 && $0 % 5 != 0 }.count)
    }

    @Test func seedPeopleAndAllElectionsStepsAgree() throws {
        let dir = try Fixture.directory()
        let people = dir.file("people.sqlite")
        try Fixture.peopleFile(at: people, version: 0)
        let p = try Self.bothWays(people, in: try Fixture.directory(), family: SchemaFamilies.people)
        #expect(p.on.steps.map(\.readAhead) == [["Person"]])
        #expect(p.onData == p.offData)

        // Elections v1 -> v6 is five steps: the second reads tables the first wrote in the same transaction,
        // which a second connection cannot see, so it reads through the migration's connection. (The seed's
        // v1 file has a rollback journal, as an old app left it: switched to WAL here.)
        let elections = dir.file("elections.sqlite")
        try ElectionsSeed.createV1File(at: elections)
        let e = try Self.bothWays(
            elections, in: try Fixture.directory(), family: SchemaFamilies.elections, journalMode: "WAL")
        #expect(e.on.steps.count == 5)
        #expect(e.on.steps[0].readAhead.isEmpty == false)
        #expect(e.on.steps[1].readAhead == [])
        #expect(e.onData == e.offData)
    }

    @Test func everyConnectionIsClosedAfterwards() throws {
        let dir = try Fixture.directory()
        let source = dir.file("pets.sqlite")
        try EnumerationReuseTests.file(source)
        let family = EnumerationReuseTests.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in new["label"] = old["name"] }
        }
        let r = try Self.bothWays(source, in: dir, family: family)
        #expect(r.on.steps.first?.readAhead == ["Pet"])
        // The reading thread's connection too: nothing below the folder is still open.
        #expect(Self.openFiles(under: dir.path) == [])
    }

    @Test func aRollbackJournalFileReadsThroughTheMigrationsConnection() throws {
        let dir = try Fixture.directory()
        let source = dir.file("pets.sqlite")
        try EnumerationReuseTests.file(source)
        try Connection(path: source, create: false).execute("PRAGMA journal_mode = DELETE")
        let family = EnumerationReuseTests.family { m in
            try m.enumerateObjects(ofType: "Pet") { old, new in new["label"] = old["name"] }
        }
        let r = try Self.bothWays(source, in: dir, family: family)
        #expect(r.on.steps.first?.readAhead == [])
        #expect(r.onData == r.offData)
        #expect(r.onData["Pet"]?.count == 300)
    }
}
