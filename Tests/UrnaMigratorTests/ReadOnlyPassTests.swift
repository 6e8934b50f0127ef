import Foundation
import LibraryFamily
import Testing
import UrnaStore
import UrnaTestSupport

@testable import UrnaMigrator

/// A closure that only reads a type (fused runs, `StepExecutor.enumerateReadOnly`) writes its objects in one
/// statement after it ran, or drops columns in place; whatever the closure does to the new objects instead ends the
/// read-only pass where it happens. Every case is run fused and apart over the same file: the file, the ledger, the
/// reports, the dry runs and the failures must agree.
@Suite struct ReadOnlyPassTests {
    typealias D = FusionDifferentialTests

    /// v0 Person(id, name, nick?, age?) and Pet(id, owner → Person, name); v1 adds Pet.color; v2 drops Person.nick
    /// (a closure, `work`, runs over Person while it does).
    static func family(_ work: @escaping @Sendable (Migration) throws -> Void) -> SchemaFamily {
        func person(_ nick: Bool) -> ObjectSchema {
            ObjectSchema(
                "Person",
                [Property("id", .int64, primaryKey: true), Property("name", .string, default: "")]
                    + (nick ? [Property("nick", .string, optional: true)] : [])
                    + [Property("age", .int64, optional: true)])
        }
        func pet(_ color: Bool) -> ObjectSchema {
            ObjectSchema(
                "Pet",
                [
                    Property("id", .int64, primaryKey: true), Property("owner", .link("Person")),
                    Property("name", .string, default: ""),
                ] + (color ? [Property("color", .string, default: "brown")] : []))
        }
        // The closure reads nick on every object, so its loss needs no permission.
        let v0 = try! Schema(family: "ro", version: 0, types: [person(true), pet(false)])
        let v1 = try! Schema(family: "ro", version: 1, types: [person(true), pet(true)])
        let v2 = try! Schema(family: "ro", version: 2, types: [person(false), pet(true)])
        return SchemaFamily(
            name: "ro",
            versions: [
                SchemaVersion(v0), SchemaVersion(v1, step: MigrationStep("pets get a color")),
                SchemaVersion(v2, step: MigrationStep("nick goes", migration: work)),
            ])
    }

    static func fill(_ path: String) throws {
        let f = family { _ in }
        let store = try Store(path: path, schema: f.versions[0].schema)
        try store.write {
            // Int64.min first: the first row's rowid is the smallest there is (a pass must still owe it).
            for i in [Int64.min] + (1..<40).map(Int64.init) {
                var v: [String: Any] = ["id": i, "name": "P\(i)"]
                if i % 3 != 0 { v["nick"] = "n\(i)" }
                if i % 4 != 0 { v["age"] = 20 + i % 100 }
                let p = try store.create("Person", value: v)
                if i % 2 == 0 { try store.create("Pet", value: ["id": Int64(i), "owner": p, "name": "pet\(i)"]) }
            }
        }
    }

    struct Outcome {
        var error = ""
        var reported: [String] = []
        var picture: [String: [String]] = [:]
        var report: MigrationReport?
        var preview = ""
    }

    /// Runs the family fused or apart on a fresh file: the outcome, then a dry run's on another.
    static func outcome(_ f: SchemaFamily, fused: Bool, dir: TemporaryDirectory, tag: String) throws -> Outcome {
        var options = MigrationOptions()
        options.fusesSteps = fused
        options.recordsFailedRuns = false
        let m = Migrator(family: f, options: options)
        let path = dir.file("\(tag)-\(fused).sqlite")
        try fill(path)
        let before = Fixture.checksums(Fixture.snapshot(path))
        var out = Outcome()
        do {
            let r = try m.run(try m.plan(path: path), backup: .none)
            out.report = r
            out.reported = D.reported(r)
            out.picture = try D.picture(path)
        } catch {
            out.error = D.normalised(error, path)
            #expect(Fixture.checksums(Fixture.snapshot(path)) == before, "a failed run leaves the file as it was")
        }
        let dry = dir.file("\(tag)-\(fused)-dry.sqlite")
        try fill(dry)
        if let r = try? m.dryRun(path: dry, sample: 3) {
            out.preview =
                r.steps.map { "\($0.countsAfter.sorted { $0.key < $1.key }) \($0.droppedData) \($0.samples)" }
                .joined(separator: "\n") + "\(r.outcome)"
        }
        return out
    }

    /// Fused and apart agree on everything; returns the fused report's last step.
    @discardableResult
    static func agree(
        _ work: @escaping @Sendable (Migration) throws -> Void, tag: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> StepReport? {
        let dir = try Fixture.directory()
        let f = family(work)
        let fused = try outcome(f, fused: true, dir: dir, tag: tag)
        let apart = try outcome(f, fused: false, dir: dir, tag: tag)
        #expect(fused.error == apart.error, sourceLocation: sourceLocation)
        #expect(fused.reported == apart.reported, sourceLocation: sourceLocation)
        #expect(fused.preview == apart.preview, sourceLocation: sourceLocation)
        for key in Set(fused.picture.keys).union(apart.picture.keys).sorted()
        where fused.picture[key] != apart.picture[key] {
            Issue.record(
                "\(key): fused \(fused.picture[key] ?? []) apart \(apart.picture[key] ?? [])",
                sourceLocation: sourceLocation)
        }
        #expect(apart.report?.steps.last?.readOnlyPasses ?? [] == [], sourceLocation: sourceLocation)
        return fused.report?.steps.last
    }

    @Test func aClosureThatOnlyReadsDropsTheColumnInPlace() throws {
        let last = try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in
                    if case .string(let s) = old["nick"], case .int(let id) = old["id"] {
                        _ = try m.create("Pet", value: ["id": .int(1000 + id), "name": .string(s)])
                    }
                }
            }, tag: "reads")
        #expect(last?.droppedInPlace == ["Person"])
        #expect(last?.sql.contains { $0.hasPrefix("ALTER TABLE \"Person\" DROP COLUMN \"nick\"") } == true)
        #expect(last?.sql.contains { $0.contains("urna_rows_Person") } == false, "no object went through Swift")
    }

    @Test func theLibraryChainRebuildsAuthorOnceMoreOnlyInPlace() throws {
        let dir = try Fixture.directory()
        var reports: [MigrationReport] = []
        var pictures: [[String: [String]]] = []
        for fused in [true, false] {
            let path = dir.file("library-\(fused).sqlite")
            try LibraryFamily.fillV0(at: path, authors: 9)
            var options = MigrationOptions()
            options.fusesSteps = fused
            let m = Migrator(family: LibraryFamily.family, options: options)
            reports.append(try m.run(try m.plan(path: path), backup: .none))
            pictures.append(try D.picture(path))
        }
        #expect(pictures[0] == pictures[1])
        #expect(D.reported(reports[0]) == D.reported(reports[1]))
        #expect(reports[0].steps.last?.droppedInPlace == ["Author"])
        #expect(FusedStepsTests.rebuilds(reports[0], "Author") == 1, "only v1 → v2 rebuilds Author")
        #expect(FusedStepsTests.rebuilds(reports[1], "Author") == 2)
    }

    @Test func aValueSetOnOneObjectEndsThePassThere() throws {
        let last = try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, new in
                    _ = old["nick"]
                    if old["id"] == .int(17) { new["name"] = .string("seventeen") }
                }
            }, tag: "set")
        #expect(last?.droppedInPlace == [] && last?.readOnlyPasses == [])
    }

    @Test func deletingAnObjectEndsThePassAndClearsItsLinks() throws {
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, new in
                    _ = old["nick"]
                    if old["id"] == .int(10) || old["id"] == .int(1) { try m.delete(new) }
                }
            }, tag: "delete")
    }

    @Test func aNewObjectKeptAndChangedLaterIsWritten() throws {
        final class Box: @unchecked Sendable { var kept: MigrationObject? }
        let box = Box()
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, new in
                    _ = old["nick"]
                    if old["id"] == .int(5) { box.kept = new }
                }
                box.kept?["name"] = .string("changed after the pass")
                box.kept = nil
            }, tag: "kept")
    }

    /// The pass reuses its objects row after row only while nobody else holds them: old objects the closure keeps
    /// hold their own row's values afterwards, and keeping them does not end the read-only pass.
    @Test func oldObjectsKeptByTheClosureKeepTheirOwnValues() throws {
        final class Box: @unchecked Sendable {
            var kept: [MigrationObject] = []
            var seen: [[String]] = []
        }
        let box = Box()
        let last = try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in
                    _ = old["nick"]
                    if case .int(let id) = old["id"], id % 5 == 0 { box.kept.append(old) }
                }
                box.seen.append(
                    box.kept.map {
                        "\($0["id"].intValue ?? -1)=\($0["name"].stringValue ?? "?")/\($0["nick"].stringValue ?? "nil")"
                    })
                box.kept = []
            }, tag: "kept-old")
        #expect(last?.droppedInPlace == ["Person"], "keeping old objects leaves the pass read-only")
        let expected = (1..<40).filter { $0 % 5 == 0 }.map { "\($0)=P\($0)/\($0 % 3 != 0 ? "n\($0)" : "nil")" }
        #expect(!box.seen.isEmpty)
        for seen in box.seen { #expect(seen == expected) }
    }

    @Test func lookingUpNewObjectsDuringAndAfterThePassSeesThemWritten() throws {
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, new in
                    _ = old["nick"]
                    if old["id"] == .int(12) {
                        let earlier = try m.newObject(ofType: "Person", forPrimaryKey: .int(3))
                        new["name"] = .string("saw \(earlier?["name"] ?? .null)")
                    }
                }
                let p = try m.newObject(ofType: "Person", forPrimaryKey: .int(30))
                p?["name"] = .string("found after")
            }, tag: "lookup")
        // A lookup after a finished read-only pass only (nothing set during it).
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in _ = old["nick"] }
                let p = try m.newObject(ofType: "Person", forPrimaryKey: .int(31))
                #expect(p?["name"] == .string("P31"))
            }, tag: "lookup-after")
    }

    @Test func creatingOrClearingTheTypeAndASecondPassSeeEveryObject() throws {
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in
                    _ = old["nick"]
                    if old["id"] == .int(20) { _ = try m.create("Person", value: ["id": .int(500), "name": "mid"]) }
                }
                _ = try m.create("Person", value: ["id": .int(501), "name": "after"])
            }, tag: "create")
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in _ = old["nick"] }
                try m.enumerateObjects(ofType: "Person") { old, new in
                    if case .int(let a) = old["age"] { new["age"] = .int(a + 1) }
                }
            }, tag: "second-pass")
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in _ = old["nick"] }
                try m.deleteData(forType: "Person")
            }, tag: "clear")
    }

    @Test func aThrowOrAKeyCollisionFailsAlike() throws {
        struct Stop: Error {}
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, _ in
                    _ = old["nick"]
                    if old["id"] == .int(25) { throw Stop() }
                }
            }, tag: "throw")
        try Self.agree(
            { m in
                try m.enumerateObjects(ofType: "Person") { old, new in
                    _ = old["nick"]
                    if old["id"] == .int(33) { new["id"] = .int(2) }
                }
            }, tag: "collide")
    }
}
