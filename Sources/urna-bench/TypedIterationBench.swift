import Foundation
import UrnaStore

/// A typed model for the iteration benchmark: three stored properties, two of them read.
final class BenchPerson: Object {
    @Persisted var fullName = ""
    @Persisted var email = ""
    @Persisted var age = 0
}

/// 100,000 typed objects iterated reading two properties, against Python's sqlite3 module reading the same
/// two columns of the same rows of the same file, in the same run.
enum TypedIterationBench {
    static let python = """
        import sqlite3, sys, time
        con = sqlite3.connect(sys.argv[1])
        best = []
        for _ in range(int(sys.argv[2])):
            start = time.perf_counter()
            total = 0
            chars = 0
            for name, age in con.execute('SELECT "fullName", "age" FROM "BenchPerson"'):
                total += age
                chars += len(name)
            best.append(time.perf_counter() - start)
        best.sort()
        print(best[len(best) // 2], total, chars)
        """

    static func run(rows: Int, rounds: Int) throws {
        print("\n## Typed iteration: \(rows) objects, reading 2 properties each")
        let dir = try BenchHarness.temporaryDirectory()
        let path = dir.appendingPathComponent("typed.sqlite").path
        let schema = try Schema(family: "bench", version: 1, models: [BenchPerson.self])
        do {
            let store = try Store(path: path, schema: schema)
            try store.write {
                for i in 0..<rows {
                    try store.create(
                        "BenchPerson",
                        value: [
                            Value.string("Person Number \(i)"), .string("person\(i)@example.org"),
                            .int(Int64(18 + i % 80)),
                        ])
                }
            }
        }
        let store = try Store(path: path, schema: schema)
        var times: [Double] = []
        var check = (total: 0, chars: 0)
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            var total = 0
            var chars = 0
            for p in try store.objects(BenchPerson.self) {
                total += p.age
                chars += p.fullName.count
            }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            check = (total, chars)
        }
        let urna = BenchHarness.median(times)
        let script = dir.appendingPathComponent("iterate.py")
        try python.write(to: script, atomically: true, encoding: .utf8)
        let peer = try BenchHarness.measure(executable: "/usr/bin/env", ["python3", script.path, path, String(rounds)])
        let fields = peer.output.split(separator: " ")
        guard fields.count == 3, let pythonSeconds = Double(fields[0]) else {
            print("python3 peer failed: \(peer.output)")
            return
        }
        let agrees =
            Int(fields[1]) == check.total
            && Int(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)) == check.chars
        print(BenchHarness.row(["what", "median time (s)", "objects/s"]))
        print(BenchHarness.row(["---", "---", "---"]))
        print(
            BenchHarness.row([
                "Python sqlite3, 2 columns (peer)", String(format: "%.3f", pythonSeconds),
                String(format: "%.0f", Double(rows) / pythonSeconds),
            ]))
        print(
            BenchHarness.row([
                "urna typed objects, 2 properties", String(format: "%.3f", urna),
                String(format: "%.0f", Double(rows) / urna),
            ]))
        let ratio = urna / pythonSeconds
        print(
            String(
                format: "ratio urna/python: %.2fx (target <= 5x: %@); both read the same values: %@", ratio,
                ratio <= 5 ? "met" : "NOT met", agrees ? "yes" : "NO"))
    }
}
