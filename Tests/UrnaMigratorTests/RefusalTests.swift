import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct RefusalTests {
    func expectError(
        _ body: () throws -> Void, exitCode: Int32, mentions: [String] = [], _ check: (MigrationError) -> Bool
    ) {
        do {
            try body()
            Issue.record("expected an error")
        } catch let e as MigrationError {
            #expect(check(e), "unexpected error: \(e)")
            #expect(e.exitCode == exitCode)
            for m in mentions { #expect(e.description.contains(m), "'\(m)' not in: \(e.description)") }
        } catch {
            Issue.record("not a MigrationError: \(error)")
        }
    }

    @Test func newerFileIsNeverDowngraded() throws {
        let dir = try Fixture.directory()
        let path = dir.file("future.sqlite")
        let v3 = try Schema(
            family: "people", version: 3, types: [ObjectSchema("Person", [Property("fullName", .string, default: "")])])
        _ = try Store(path: path, schema: v3)
        let before = Fixture.snapshot(path)
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path) }, exitCode: 65,
            mentions: ["version 3", "newer", "latest 2"]
        ) {
            if case .newerThanKnown(_, _, 3, 2) = $0 { true } else { false }
        }
        expectError({ _ = try Migrator(family: SchemaFamilies.people).dryRun(path: path) }, exitCode: 65) {
            if case .newerThanKnown = $0 { true } else { false }
        }
        let status = try Migrator(family: SchemaFamilies.people).status(path: path)
        #expect(status.isNewerThanKnown)
        #expect(status.pending.isEmpty)
        #expect(Fixture.snapshot(path)["main"] == before["main"])
    }

    @Test func unknownFamily() throws {
        let dir = try Fixture.directory()
        let path = dir.file("zoo.sqlite")
        _ = try Store(
            path: path,
            schema: try Schema(family: "zoo", version: 1, types: [ObjectSchema("Animal", [Property("name", .string)])]))
        expectError(
            { _ = try SchemaFamilies.registry.migrator(forFileAt: path) }, exitCode: 65,
            mentions: ["zoo", "people, elections"]
        ) {
            if case .unknownFamily(_, "zoo", _) = $0 { true } else { false }
        }
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path) }, exitCode: 65, mentions: ["'zoo'"]
        ) {
            if case .familyMismatch = $0 { true } else { false }
        }
    }

    @Test func alreadyCurrentIsNothingToDo() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 2)
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path) }, exitCode: 0,
            mentions: ["nothing to do"]
        ) {
            if case .alreadyCurrent(_, "people", 2) = $0 { !$0.isFailure } else { false }
        }
        #expect(try Migrator(family: SchemaFamilies.people).migrateIfNeeded(path: path) == nil)
        #expect(try Migrator(family: SchemaFamilies.people).status(path: path).isCurrent)
    }

    @Test func missingAndForeignFiles() throws {
        let dir = try Fixture.directory()
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: dir.file("nope.sqlite")) }, exitCode: 66
        ) {
            if case .fileNotFound = $0 { true } else { false }
        }
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).dryRun(path: dir.file("nope.sqlite")) }, exitCode: 66
        ) {
            if case .fileNotFound = $0 { true } else { false }
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("nope.sqlite")))
        let plain = dir.file("plain.sqlite")
        try Connection(path: plain).execute("CREATE TABLE t (x)")
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: plain) }, exitCode: 65,
            mentions: ["_urna_schema"]
        ) {
            if case .notAnUrnaFile = $0 { true } else { false }
        }
        let text = dir.file("notes.txt")
        try Data("hello, not a database at all, just some text that is long enough".utf8).write(
            to: URL(fileURLWithPath: text))
        expectError({ _ = try Migrator(family: SchemaFamilies.people).plan(path: text) }, exitCode: 65) {
            if case .notAnUrnaFile = $0 { true } else { false }
        }
    }

    @Test func downgradeAndUnknownTarget() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 1)
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path, to: 0) }, exitCode: 65,
            mentions: ["downgrade"]
        ) {
            if case .downgrade = $0 { true } else { false }
        }
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path, to: 7) }, exitCode: 65,
            mentions: ["0, 1, 2"]
        ) {
            if case .unknownVersion(_, 7, _) = $0 { true } else { false }
        }
    }

    /// A trigger on urna's own tables would run the file's SQL as urna records the run (in the failed-run ledger
    /// too, after the rollback): refused before anything runs.
    @Test func aTriggerOnUrnasOwnTablesIsRefused() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        try Connection(path: path).execute(
            "CREATE TRIGGER t1 AFTER INSERT ON _urna_history BEGIN DELETE FROM \"Person\"; END")
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path) }, exitCode: 65,
            mentions: ["trigger t1 on _urna_history: urna's own tables take no triggers"]
        ) {
            if case .drift = $0 { true } else { false }
        }
        #expect(try Connection(path: path).integer("SELECT count(*) FROM \"Person\"") == 4)
    }

    @Test func driftIsShown() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        try Connection(path: path).execute("ALTER TABLE \"Person\" ADD COLUMN \"nickname\" TEXT")
        expectError(
            { _ = try Migrator(family: SchemaFamilies.people).plan(path: path) }, exitCode: 65,
            mentions: ["Person: column nickname is not in the descriptor"]
        ) {
            if case .drift = $0 { true } else { false }
        }
        let status = try Migrator(family: SchemaFamilies.people).status(path: path)
        #expect(status.drift.contains { $0.contains("nickname") })

        let other = dir.file("other.sqlite")
        try ElectionsSeed.createV1File(at: other)
        try Connection(path: other).execute("DROP INDEX \"Candidate_nickname_idx\"; PRAGMA user_version = 9")
        expectError(
            { _ = try Migrator(family: SchemaFamilies.elections).plan(path: other) }, exitCode: 65,
            mentions: ["Candidate_nickname_idx", "user_version is 9"]
        ) {
            if case .drift(_, let d) = $0 { d.count == 2 } else { false }
        }
    }

    /// A family whose one step narrows Int64 to Int16 and makes an optional property required.
    static func narrowing(allow: [MigrationAllowance], closure: MigrationClosure? = nil) throws -> SchemaFamily {
        let v0 = try Schema(
            family: "items", version: 0,
            types: [
                ObjectSchema(
                    "Item",
                    [
                        Property("count", .int64, default: 0), Property("label", .string, optional: true),
                    ])
            ])
        let v1 = try Schema(
            family: "items", version: 1,
            types: [
                ObjectSchema(
                    "Item",
                    [
                        Property("count", .int16, default: 0), Property("label", .string),
                    ])
            ])
        return SchemaFamily(
            name: "items",
            versions: [
                SchemaVersion(v0),
                SchemaVersion(v1, step: MigrationStep("narrow", allowances: allow, migration: closure)),
            ])
    }

    static func itemsFile(_ path: String) throws {
        let store = try Store(path: path, schema: try narrowing(allow: []).schema(version: 0)!)
        try store.write {
            try store.create("Item", value: ["count": 7, "label": "seven"])
            try store.create("Item", value: ["count": 100_000, "label": nil as String?])
        }
    }

    @Test func lossyChangeWithoutClosureIsRefused() throws {
        let dir = try Fixture.directory()
        let path = dir.file("items.sqlite")
        try Self.itemsFile(path)
        expectError(
            { _ = try Migrator(family: try Self.narrowing(allow: [])).plan(path: path) }, exitCode: 65,
            mentions: [
                "Item.count", "int64 = 0 → int16 = 0: int64 → int16 may not fit",
                ".lossyConversion(type: \"Item\", property: \"count\")",
                "Item.label", "optional becomes required", ".nullsBecomeDefault",
            ]
        ) {
            if case .refused(_, let r) = $0 { r.count == 2 } else { false }
        }
    }

    @Test func allowancesLetItRunAndCountTheLoss() throws {
        let dir = try Fixture.directory()
        let path = dir.file("items.sqlite")
        try Self.itemsFile(path)
        let family = try Self.narrowing(allow: [
            .lossyConversion(type: "Item", property: "count"), .nullsBecomeDefault(type: "Item", property: "label"),
        ])
        let migrator = Migrator(family: family)
        let preview = try migrator.dryRun(path: path)
        #expect(preview.outcome == .previewed)
        #expect(preview.totalActivity.first { $0.type == "Item" }?.lossyValues == ["count": 1])
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
        let rows = try Connection(path: path).rows("SELECT \"count\", \"label\" FROM \"Item\" ORDER BY \"_id\"")
        #expect(rows == [[.integer(7), .text("seven")], [.integer(0), .text("")]])
    }

    @Test func closureThatNeverEnumeratesTheLossyTypeFails() throws {
        let dir = try Fixture.directory()
        let path = dir.file("items.sqlite")
        try Self.itemsFile(path)
        let family = try Self.narrowing(allow: [.nullsBecomeDefault(type: "Item", property: "label")]) { _ in }
        let report = try Migrator(family: family).dryRun(path: path)
        #expect(report.outcome == .failed)
        #expect(
            report.failures.contains {
                $0.check == "closure" && $0.property == "count" && $0.message.contains("never enumerated Item")
            })
    }

    @Test func closureLeavingAValueThatDoesNotFitFails() throws {
        let dir = try Fixture.directory()
        let path = dir.file("items.sqlite")
        try Self.itemsFile(path)
        let family = try Self.narrowing(allow: []) { m in
            try m.enumerateObjects(ofType: "Item") { old, new in
                if old["label"] == nil { new["label"] = "unnamed" }
            }
        }
        let report = try Migrator(family: family).dryRun(path: path)
        #expect(report.outcome == .failed)
        #expect(report.failureCount == 1)
        #expect(report.failures.first?.check == "conversion")
        #expect(report.failures.first?.property == "count")
    }
}
