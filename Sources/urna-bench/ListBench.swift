import Foundation
import UrnaStore

/// `List.append` on a managed list, one append per write transaction as an app does it, at two list lengths
/// (O(1) per append means the time per append does not grow with the list), against raw SQLite inserting the
/// same list rows, one per transaction, in the same run.
enum ListBench {
    final class Kennel: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var dogs: List<Pup>
    }

    final class Pup: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }

    static func run(rounds: Int) throws {
        print("\n## List.append: one append per write transaction, lists of 2,000 and 20,000 objects")
        print(BenchHarness.row(["appends", "raw SQLite INSERT per transaction (µs/append)", "urna List.append per write (µs/append)", "ratio"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        var perAppend: [Int: Double] = [:]
        var ratios: [Double] = []
        for n in [2_000, 20_000] {
            var ours: [Double] = [], peers: [Double] = []
            for _ in 0..<rounds {
                ours.append(try appendThroughStore(n))
                peers.append(try appendRaw(n))
            }
            let o = BenchHarness.median(ours) / Double(n) * 1e6, p = BenchHarness.median(peers) / Double(n) * 1e6
            perAppend[n] = o
            ratios.append(o / p)
            print(BenchHarness.row(["\(n)", String(format: "%.1f", p), String(format: "%.1f", o), String(format: "%.2fx", o / p)]))
        }
        let growth = perAppend[20_000]! / perAppend[2_000]!
        print(
            String(
                format: "time per append at 20,000 / at 2,000: %.2fx (O(1) per append, target <= 1.5x: %@); ratio to raw SQLite %.2fx-%.2fx",
                growth, growth <= 1.5 ? "met" : "NOT met", ratios.min()!, ratios.max()!))
    }

    static func path() throws -> String {
        let dir = try BenchHarness.temporaryDirectory()
        let p = dir.appendingPathComponent("list-\(UUID().uuidString).sqlite").path
        return p
    }

    static func remove(_ p: String) { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: p + s) } }

    /// Seconds for `n` appends, each in its own write; the pups exist beforehand.
    static func appendThroughStore(_ n: Int) throws -> Double {
        let p = try path()
        defer { remove(p) }
        let schema = try Schema(family: "kennels", version: 1, models: [Kennel.self, Pup.self])
        let store = try Store(path: p, schema: schema)
        try store.write {
            try store.create(Kennel.self, value: [1])
            for i in 0..<n { try store.create(Pup.self, value: [i, "pup \(i)"]) }
        }
        let kennel = try store.object(ofType: Kennel.self, forPrimaryKey: 1)!
        let pups = try (0..<n).map { try store.object(ofType: Pup.self, forPrimaryKey: .int(Int64($0)))! }
        let start = DispatchTime.now().uptimeNanoseconds
        for pup in pups { try store.write { try kennel.dogs.append(pup) } }
        let seconds = elapsed(since: start)
        guard try kennel.dogs.count == n else { throw BenchError("the list holds \(try kennel.dogs.count), not \(n)") }
        return seconds
    }

    /// The peer: the same list table, one prepared INSERT per transaction.
    static func appendRaw(_ n: Int) throws -> Double {
        let p = try path()
        defer { remove(p) }
        let schema = try Schema(family: "kennels", version: 1, models: [Kennel.self, Pup.self])
        _ = try Store(path: p, schema: schema)
        let c = try Connection(path: p)
        try c.execute("PRAGMA journal_mode = WAL")
        try c.execute("INSERT INTO Kennel(id) VALUES (1)")
        try c.execute("BEGIN")
        for i in 0..<n { try c.run("INSERT INTO Pup(id, name) VALUES (?, ?)", [.integer(Int64(i)), .text("pup \(i)")]) }
        try c.execute("COMMIT")
        let insert = try c.prepare("INSERT INTO \"Kennel_dogs\"(owner, position, target) VALUES (1, ?, ?)")
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<n {
            try c.execute("BEGIN IMMEDIATE")
            insert.reset()
            insert.bindInt(Int64(i), at: 1)
            insert.bindInt(Int64(i), at: 2)
            try insert.runToCompletion()
            try c.execute("COMMIT")
        }
        return elapsed(since: start)
    }
}
