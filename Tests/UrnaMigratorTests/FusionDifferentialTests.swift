import Foundation
import Testing
import UrnaStore
import UrnaTestSupport

@testable import UrnaMigrator

/// Fused steps (`RunFusion`) attacked differentially: generated families (`FusionFamilyGenerator`, fixed seeds)
/// are run with and without fusion over the same v0 file, and everything a person could see must agree: the
/// tables' rows, the ledger (times left out), the indexes, dry runs (file untouched, same counts and samples),
/// failures and cancellations (file untouched), refusals; and the one-run result equals the stepwise one and a
/// fresh latest file (`MigrationTestHarness`).
@Suite struct FusionDifferentialTests {
    typealias G = FusionFamilyGenerator

    /// A v0 file with a few hundred objects holding edge values: nil, "", Int64.min/max, unicode, ±0, huge
    /// doubles, items without owner or tags. `dangling` adds an item whose owner does not exist.
    static func fill(_ path: String, schema: Schema, seed: UInt64, dangling: Bool = false) throws {
        var rng = SeededRandom(seed: seed ^ 0xF111)
        let store = try Store(path: path, schema: schema)
        let ints: [Int64] = [0, -1, 1, .min, .max, 42, 1_000_000_007, -77]
        let strings: [String?] = [nil, "", "José Conceição", "🎉 ünï", "12", "3.5", "abc", " 7 ", "-0", "1e3"]
        let doubles: [Double?] = [nil, 0, -0.0, 1e300, -2.5, 3.25, 1e-300, 9_007_199_254_740_993, .infinity, .nan]
        try store.write {
            var owners: [DynamicObject] = []
            let ownerIDs: [Int64] = Array(1...20) + [.max, .min, 0, -5]
            for (i, id) in ownerIDs.enumerated() {
                owners.append(
                    try store.create(
                        "Owner", value: ["id": id, "name": i % 4 == 0 ? "" : "Dono \(i) ção"] as [String: Any]))
            }
            var tags: [DynamicObject] = []
            for (i, name) in ["", "a", "ação", "日本", "z z", "12", "x\u{301}", "last"].enumerated() {
                var v: [String: Any] = ["name": name]
                if i % 3 != 0 { v["w"] = Double(i) / 3 }
                tags.append(try store.create("Tag", value: v))
            }
            let count = Int.random(in: 150...300, using: &rng)
            for id in 0..<Int64(count) {
                var v: [String: Any] = ["id": id == 3 ? Int64.max : id == 4 ? Int64.min : id]
                v["n"] =
                    Bool.random(using: &rng)
                    ? ints.randomElement(using: &rng)! : Int64.random(in: -999...999, using: &rng)
                if let s = strings.randomElement(using: &rng)! { v["s"] = s }
                if let x = doubles.randomElement(using: &rng)! { v["x"] = x }
                if Int.random(in: 0..<5, using: &rng) != 0 { v["owner"] = owners.randomElement(using: &rng)! }
                let tagCount = Int.random(in: 0...3, using: &rng)
                if tagCount > 0 { v["tags"] = (0..<tagCount).map { _ in tags.randomElement(using: &rng)! } }
                v["flag"] = Bool.random(using: &rng)
                try store.create("Item", value: v)
            }
        }
        if dangling {
            let c = try Connection(path: path, create: false)
            try c.execute("PRAGMA foreign_keys = OFF")
            try c.execute("INSERT INTO Item(id, n, owner, flag) VALUES (9999999, 1, 424242, 0)")
        }
    }

    /// The file as a person sees it: every table's rows (sorted), the ledger without times, the schema objects.
    static func picture(_ path: String) throws -> [String: [String]] {
        var out = try Fixture.dump(path, skip: [StorageLayout.schemaTable, StorageLayout.historyTable])
        let c = try Connection(path: path, readOnly: true, create: false)
        out["#history"] = try c.rows(
            "SELECT family, from_version, to_version, objects_touched, descriptor_checksum FROM _urna_history ORDER BY id"
        ).map { "\($0)" }
        out["#schema"] = try c.rows("SELECT family, version, descriptor FROM _urna_schema").map { "\($0)" }
        out["#master"] = try Fixture.master(path).filter { !$0.contains("_urna_schema") }
        return out
    }

    /// An error with the run's file paths taken out, for comparing the two modes.
    static func normalised(_ error: Error, _ path: String) -> String {
        "\(error)".replacingOccurrences(of: path, with: "<file>")
    }

    static func migrator(_ f: G.Family, fused: Bool, cancel: MigrationCancellation? = nil, records: Bool = true)
        -> Migrator
    {
        var options = MigrationOptions()
        options.recordsFailedRuns = records
        options.fusesSteps = fused
        options.allowances = f.allowances
        options.cancellation = cancel
        return Migrator(family: f.family, options: options)
    }

    /// Runs `f` on a fresh v0 file; the outcome (a report or a normalised error) and the file.
    static func run(_ f: G.Family, seed: UInt64, fused: Bool, dir: TemporaryDirectory, tag: String, dangling: Bool)
        throws -> (Result<MigrationReport, Error>, String, String)
    {
        let path = dir.file("\(tag)-\(fused).sqlite")
        try fill(path, schema: f.v0, seed: seed, dangling: dangling)
        let m = migrator(f, fused: fused)
        do {
            return (.success(try m.run(try m.plan(path: path), backup: .none)), path, "")
        } catch {
            return (.failure(error), path, normalised(error, path))
        }
    }

    static let seeds: [UInt64] = Array(1...120)

    /// What a run reports per step that a person reads: counts, lossy conversions, dropped data.
    static func reported(_ r: MigrationReport) -> [String] {
        r.steps.map { s in
            // Activity entries say what was written (a carried copy wrote nothing in its step): lossy counts only.
            let lossy = s.activity.filter { !$0.lossyValues.isEmpty }.map {
                "\($0.type):\($0.lossyValues.sorted { $0.key < $1.key })"
            }.sorted()
            return "\(s.countsAfter.sorted { $0.key < $1.key }) \(lossy) \(s.droppedData) \(s.objectsTouched)"
        }
    }

    /// The generator reaches fusion: at least a third of the families carry a copy into a later step (their plans say so).
    @Test func aThirdOfGeneratedFamiliesFuseSomething() throws {
        let dir = try Fixture.directory()
        let path = dir.file("v0.sqlite")
        try Self.fill(path, schema: G.make(seed: 1, versions: 3).v0, seed: 1)
        var fused = 0
        var carried = 0
        for seed in Self.seeds {
            var rng = SeededRandom(seed: seed &* 7919)
            let f = G.make(seed: seed, versions: Int.random(in: 3...5, using: &rng))
            guard let plan = try? Self.migrator(f, fused: true).plan(path: path) else { continue }
            let lines = plan.steps.flatMap(\.sql).filter { $0.contains(": fused with v") }
            if !lines.isEmpty { fused += 1 }
            carried += lines.count
        }
        print("fusion differential: \(fused) of \(Self.seeds.count) families fuse, \(carried) carried copies")
        #expect(fused * 3 >= Self.seeds.count, "\(fused) of \(Self.seeds.count)")
    }

    /// The generator reaches read-only passes (a closure that only reads a type, `StepExecutor.enumerateReadOnly`):
    /// finished ones, ended ones, and columns dropped in place, in the fused runs.
    @Test func generatedFamiliesReachReadOnlyPasses() throws {
        let dir = try Fixture.directory()
        var finished = 0
        var ended = 0
        var inPlace = 0
        for seed in Self.seeds {
            var rng = SeededRandom(seed: seed &* 7919)
            let f = G.make(seed: seed, versions: Int.random(in: 3...5, using: &rng))
            guard
                case .success(let r) = try Self.run(
                    f, seed: seed, fused: true, dir: dir, tag: "ro\(seed)", dangling: false
                ).0
            else { continue }
            finished += r.steps.filter { !$0.readOnlyPasses.isEmpty || !$0.droppedInPlace.isEmpty }.count
            inPlace += r.steps.filter { !$0.droppedInPlace.isEmpty }.count
            let readers = f.description.filter { $0.contains("read Items, ") }.count
            ended += readers
        }
        print(
            "read-only passes: \(finished) steps finished one, \(inPlace) dropped columns in place; \(ended) steps end one"
        )
        #expect(finished >= 8 && ended >= 10, "\(finished) finished, \(ended) ended")
        #expect(inPlace >= 1, "no generated family dropped a column in place")
    }

    @Test(arguments: seeds) func fusedAndStepwiseRunsAgree(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 7919)
        let versions = Int.random(in: 3...5, using: &rng)
        let f = G.make(seed: seed, versions: versions)
        let dangling = seed % 9 == 0
        let dir = try Fixture.directory()
        let about = "seed \(seed):\n" + f.description.joined(separator: "\n")
        let (fused, fusedPath, fusedError) = try Self.run(
            f, seed: seed, fused: true, dir: dir, tag: "r", dangling: dangling)
        let (apart, apartPath, apartError) = try Self.run(
            f, seed: seed, fused: false, dir: dir, tag: "r", dangling: dangling)
        #expect(fusedError == apartError, "\(about)")
        switch (fused, apart) {
        case (.success(let a), .success(let b)):
            #expect(Self.reported(a) == Self.reported(b), "\(about)")
            let picture = try Self.picture(fusedPath)
            let expected = try Self.picture(apartPath)
            for key in Set(picture.keys).union(expected.keys).sorted() where picture[key] != expected[key] {
                let only = Set(picture[key] ?? []).symmetricDifference(expected[key] ?? []).sorted().prefix(6)
                Issue.record("\(about)\n\(key) differs (fused \(a.steps.map(\.fusedIntoNextStep))): \(only)")
            }
        case (.failure, .failure):
            // Both refused or failed alike: the files are untouched v0 files.
            #expect(try Fixture.dump(fusedPath) == Fixture.dump(apartPath), "\(about)")
            #expect(
                try Connection(path: fusedPath, readOnly: true, create: false).integer(
                    "SELECT version FROM _urna_schema") == 0)
            return
        default:
            Issue.record("\(about)\none mode succeeded, the other failed: fused \(fusedError) / apart \(apartError)")
            return
        }
        // Dry runs: the file keeps its bytes, and both modes preview the same.
        var previews: [String] = []
        for fusedMode in [true, false] {
            let path = dir.file("dry-\(fusedMode).sqlite")
            try Self.fill(path, schema: f.v0, seed: seed, dangling: dangling)
            let before = Fixture.snapshot(path)
            let report = try Self.migrator(f, fused: fusedMode).dryRun(path: path, sample: 3)
            #expect(Fixture.checksums(Fixture.snapshot(path)) == Fixture.checksums(before), "\(about)")
            previews.append(
                report.steps.map { s in
                    "\(s.countsBefore.sorted { $0.key < $1.key }) \(s.countsAfter.sorted { $0.key < $1.key }) \(s.droppedData) \(s.samples.map { "\($0)" })"
                }.joined(separator: "\n") + "\(report.countsAfter.sorted { $0.key < $1.key })")
        }
        #expect(previews[0] == previews[1], "\(about)")
        // A failure in the last step (a throw, a cancellation) leaves the file as it was in both modes.
        let failures: [(String, G.Failure)] = [
            ("throw", .throwAt(Int64(seed % 50) + 5)),
            ("cancel", .cancelAt(Int64(seed % 40) + 6, MigrationCancellation())),
        ]
        for (name, failure) in failures {
            var errors: [String] = []
            for fusedMode in [true, false] {
                let broken = G.make(seed: seed, versions: versions, failure: failure)
                let path = dir.file("\(name)-\(fusedMode).sqlite")
                try Self.fill(path, schema: f.v0, seed: seed, dangling: dangling)
                let before = Fixture.snapshot(path)
                var cancel: MigrationCancellation? = nil
                if case .cancelAt(_, let c) = failure { cancel = c }
                // The failed run's own record (`recordsFailedRuns`) is the one change a failure may make: left out here.
                let m = Self.migrator(broken, fused: fusedMode, cancel: cancel, records: false)
                do {
                    _ = try m.run(try m.plan(path: path), backup: .none)
                    errors.append("succeeded")
                } catch {
                    errors.append(Self.normalised(error, path))
                }
                #expect(Fixture.checksums(Fixture.snapshot(path)) == Fixture.checksums(before), "\(name) \(about)")
            }
            #expect(errors[0] == errors[1] && errors[0] != "succeeded", "\(name) \(about)")
        }
        // The one run (fused) equals the stepwise runs and a fresh latest file.
        if seed % 3 == 0 {
            var options = MigrationOptions()
            options.allowances = f.allowances
            let harness = MigrationTestHarness(
                family: f.family, fixtures: [0: { try Self.fill($0, schema: f.v0, seed: seed) }], options: options)
            #expect(try harness.check(in: dir.path) == [], "\(about)")
        }
    }
}
