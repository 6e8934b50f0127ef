import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct DryRunTests {
    /// The dry run runs the real closures on a copy; the file and its -wal stay byte-identical, even while
    /// another connection holds them open with committed pages still in the WAL. (The copy is a snapshot read
    /// through SQLite's backup API, whose read transaction takes a read mark in the -shm: that shared-memory
    /// index may change, the data never does.)
    @Test func dryRunLeavesFileWalAndShmByteIdentical() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let open = try Store(path: path, schema: People.v0)  // keeps -wal and -shm alive
        try open.write { try open.create("Person", value: ["firstName": "Only", "lastName": "InWal", "age": 1]) }
        let before = Fixture.snapshot(path)
        #expect(before["-wal"]! != nil && before["-shm"]! != nil)

        let report = try Migrator(family: SchemaFamilies.people).dryRun(path: path)
        let after = Fixture.snapshot(path)
        #expect(Fixture.checksum(after["main"]!) == Fixture.checksum(before["main"]!))
        #expect(after["main"] == before["main"] && after["-wal"] == before["-wal"] && after["-journal"] == before["-journal"])
        #expect(report.dryRun)
        #expect(report.outcome == .previewed)
        #expect(report.countsBefore == ["Person": 5], "the WAL's committed rows are part of the preview")
        #expect(report.countsAfter == ["Person": 5])
        #expect(try FamilyRegistry.recordedSchema(at: path).version == 0)
        _ = open
    }

    @Test func reportsCountsDiffSamplesDroppedDataAndSQL() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let report = try Migrator(family: SchemaFamilies.people).dryRun(path: path, sample: 2)
        #expect(report.versionPath == [0, 2])
        #expect(report.steps.count == 1)
        let step = report.steps[0]
        #expect(step.diff.typeChanges.first?.added.map(\.name) == ["fullName", "email"])
        #expect(step.diff.typeChanges.first?.removed.map(\.name) == ["firstName", "lastName"])
        #expect(step.countsBefore == ["Person": 4])
        #expect(step.countsAfter == ["Person": 4])
        #expect(step.activity == [TypeActivity(type: "Person", enumerated: 4, changed: 4, copied: 4)])
        #expect(
            step.droppedData == [
                DroppedData(type: "Person", property: "firstName", values: 4, readByClosure: true),
                DroppedData(type: "Person", property: "lastName", values: 4, readByClosure: true),
            ])
        // The closure moved them into fullName: the preview does not call them discarded.
        let preview = report.renderText()
        #expect(!preview.contains("Data this step discards"), "\(preview)")
        #expect(preview.contains("Old data the closure read before it went"), "\(preview)")
        let sample = try #require(step.samples.first)
        #expect(sample.before.count == 2)
        #expect(sample.before[0]["firstName"] == "\"Ada\"")
        #expect(sample.after[0]["fullName"] == "\"Ada Lovelace\"")
        #expect(sample.after[1]["fullName"] == "\"Alan Turing\"")
        #expect(sample.after[0]["email"] == "\"\"")
        #expect(step.sql.contains { $0.hasPrefix("CREATE TABLE \"_urna_new_Person\"") })
        #expect(step.sql.contains("ALTER TABLE \"_urna_new_Person\" RENAME TO \"Person\""))
        #expect(step.copiedThroughSwift == ["Person"])
        #expect(report.checks.allSatisfy { $0.passed })
        #expect(report.projectedSeconds ?? 0 >= report.durationSeconds)

        let text = report.renderText()
        for line in [
            "Dry run of", "v0 → v2", "+ fullName: string = \"\"", "- firstName", "Person: 4 → 4",
            "Person.firstName: 4 non-nil value(s)",
            "after:  _id=1, fullName=\"Ada Lovelace\"", "ok   integrity_check", "the real run should take about",
        ] {
            #expect(text.contains(line), "'\(line)' missing from:\n\(text)")
        }
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(report.renderJSON().utf8)) as? [String: Any])
        #expect(json["dryRun"] as? Bool == true)
        #expect(json["outcome"] as? String == "previewed")
        #expect((json["steps"] as? [[String: Any]])?.first?["countsAfter"] as? [String: Int] == ["Person": 4])
    }

    @Test func failingPreviewReportsEveryProblemAndTouchesNothing() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let before = Fixture.snapshot(path)
        let report = try Migrator(family: AtomicityTests.throwingPeople(after: 1)).dryRun(path: path)
        #expect(report.outcome == .failed)
        #expect(report.failureCount == 1)
        #expect(report.failures[0].check == "closure")
        #expect(report.failures[0].message.contains("boom at Grace"))
        #expect(report.renderText().contains("would FAIL"))
        #expect(Fixture.snapshot(path) == before)
    }

    @Test func electionsPreviewCountsCreatedAndChanged() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsSeed.createV1File(at: path)
        let before = Fixture.snapshot(path)
        let report = try Migrator(family: SchemaFamilies.elections).dryRun(path: path)
        #expect(Fixture.snapshot(path) == before)
        #expect(report.steps.map(\.toVersion) == [2, 3, 4, 5, 6])
        let s1 = report.steps[0]
        #expect(s1.activity.first { $0.type == "Election" }?.created == 1)
        let candidates = try #require(s1.activity.first { $0.type == "Candidate" })
        #expect(candidates.enumerated == 2 && candidates.changed == 2)
        let goods = try #require(s1.activity.first { $0.type == "Good" })
        #expect(goods.enumerated == 5 && goods.changed == 5)
        #expect(s1.countsAfter["Election"] == 1)
        #expect(report.steps[1].droppedData == [DroppedData(type: "Candidate", property: "naturalness", values: 2, readByClosure: true)])
        #expect(
            report.countsAfter == ["Election": 1, "Candidate": 2, "Party": 1, "Coalition": 1, "Good": 5, "GoodType": 4])
    }
}

@Suite struct RegistryDryRunTests {
    /// The registry finds the family on the private copy: the file and its -wal stay untouched even though
    /// nobody told it the family (the -shm may take a read mark: see above).
    @Test func registryDryRunNeverOpensTheFile() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsFixtures.file(version: 2, at: path)
        let open = try Store(path: path, schema: ElectionsV2.schema)  // keeps -wal and -shm around
        try open.write { try open.create("GoodType", value: ["id": 99, "typedescription": "Outros bens"]) }
        let before = Fixture.snapshot(path)
        let report = try SchemaFamilies.registry.dryRun(path: path)
        let after = Fixture.snapshot(path)
        #expect(after["main"] == before["main"] && after["-wal"] == before["-wal"] && after["-journal"] == before["-journal"])
        #expect(report.path == path)
        #expect(report.versionPath == [2, 3, 4, 5, 6])
        #expect(report.countsAfter["GoodType"] == 5)
        #expect(throws: MigrationError.self) { _ = try SchemaFamilies.registry.dryRun(path: dir.file("absent.sqlite")) }
        _ = open
    }
}
