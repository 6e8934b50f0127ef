import CSQLite
import Foundation
import UrnaStore

/// 1,000,000 Person objects added in one write through the store, against raw SQLite prepared-statement
/// inserts of the same rows into the same table, in the same run.
enum StoreBench {
    static let schema = try! Schema(
        family: "people", version: 2,
        types: [
            ObjectSchema(
                "Person",
                [
                    Property("fullName", .string, default: ""),
                    Property("email", .string, default: ""),
                    Property("age", .int64, default: 0),
                ])
        ])

    static func person(_ i: Int) -> (String, String, Int64) {
        ("Person Number \(i)", "person\(i)@example.org", Int64(18 + i % 80))
    }

    static func run(rows: Int) throws {
        let dir = try BenchHarness.temporaryDirectory()
        let storePath = dir.appendingPathComponent("store.sqlite").path
        let rawPath = dir.appendingPathComponent("raw.sqlite").path
        print("\n## Store: \(rows) Person objects added in one write")
        let raw = try BenchHarness.measureChild(["child-raw-insert", rawPath, String(rows)])
        let store = try BenchHarness.measureChild(["child-store-insert", storePath, String(rows)])
        let rawInsert = Double(raw.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? raw.seconds
        let storeInsert = Double(store.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? store.seconds
        print(BenchHarness.row(["what", "insert time (s)", "rows/s", "peak memory (MB)"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        print(
            BenchHarness.row([
                "raw SQLite prepared INSERT (peer)", String(format: "%.3f", rawInsert),
                String(format: "%.0f", Double(rows) / rawInsert), String(format: "%.1f", raw.peakMB),
            ]))
        print(
            BenchHarness.row([
                "urna Store.add (one write)", String(format: "%.3f", storeInsert),
                String(format: "%.0f", Double(rows) / storeInsert), String(format: "%.1f", store.peakMB),
            ]))
        let ratio = storeInsert / rawInsert
        print(
            String(
                format: "ratio store/raw: %.2fx (target <= 1.5x: %@); peak memory %.1f MB (target < 200 MB: %@)",
                ratio, ratio <= 1.5 ? "met" : "NOT met", store.peakMB, store.peakMB < 200 ? "met" : "NOT met"))
    }

    /// The peer: the same table the store makes, filled by one prepared statement.
    static func childRaw(path: String, rows: Int) throws {
        let c = try Connection(path: path)
        try c.execute("PRAGMA journal_mode = WAL")
        for sql in StorageLayout.createSQL(for: schema) { try c.execute(sql) }
        let start = DispatchTime.now().uptimeNanoseconds
        try c.execute("BEGIN IMMEDIATE")
        let s = try c.prepare("INSERT INTO \"Person\" (\"fullName\", \"email\", \"age\") VALUES (?, ?, ?)")
        for i in 0..<rows {
            let (n, e, a) = person(i)
            s.bindText(n, at: 1)
            s.bindText(e, at: 2)
            s.bindInt(a, at: 3)
            try s.runToCompletion()
        }
        try c.execute("COMMIT")
        print(elapsed(since: start))
    }

    /// urna: objects added through the store's public API in one write transaction.
    static func childStore(path: String, rows: Int) throws {
        let store = try Store(path: path, schema: schema)
        let start = DispatchTime.now().uptimeNanoseconds
        try store.write {
            for i in 0..<rows {
                let (n, e, a) = person(i)
                try store.create("Person", value: [Value.string(n), .string(e), .int(a)])
            }
        }
        print(elapsed(since: start))
    }
}
