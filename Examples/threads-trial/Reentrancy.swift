import Foundation
import UrnaStore

/// Reentrant calls: reads inside writes, writes inside reads, observers that refresh, read, write and observe, a
/// second Store's write inside the first's.
enum Reentrancy {
    static func run() async throws {
        let tally = Tally()
        let path = Files.fresh("reentrant.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let other = try Store(path: path, schema: try TrialSchema.schema())
        try store.write {
            try store.create(Item.self, value: ["id": "a"])
            let n = try store.read { try store.objects(Item.self).count }
            tally.add(n == 1 ? "read inside write sees the write" : "read inside write misses the write")
            do {
                _ = try store.objects(Item.self).observe { _ in }
                tally.add("observe inside write accepted (wrong)")
            } catch StoreError.observeInWriteTransaction { tally.add("observe inside write refused") }
        }
        do {
            try store.read { try store.write { try store.create(Item.self, value: ["id": "b"]) } }
            tally.add("write inside read accepted (wrong)")
        } catch StoreError.writeInsideRead { tally.add("write inside read refused") }
        // Observers that refresh, read, write, observe again and remove one another, on committing threads.
        let nested = TokenBox()
        let calls = Tally()
        let first = store.observe { change in
            calls.add("first")
            _ = try? store.refresh()
            _ = try? store.read { try store.objects(Item.self).count }
            if calls["first"] == 3 {
                nested.set(store.observe { _ in calls.add("registered by an observer") })
                try? store.write { try store.create(Item.self, value: ["id": "from-observer"]) }
            }
            if calls["first"] == 6 { nested.drop() }
        }
        for i in 0..<10 {
            try other.write { try other.create(Item.self, value: ["id": "o\(i)"]) }
            try store.write { try store.create(Item.self, value: ["id": "s\(i)"]) }
        }
        try await Task.sleep(for: .milliseconds(700))
        first.invalidate()
        tally.add("first observer calls", calls["first"])
        tally.add("calls to the observer an observer registered", calls["registered by an observer"])
        tally.add("items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        // Another Store's write inside this one's, on the same thread: it cannot get the file's write lock.
        let started = Date()
        do {
            try store.write {
                try store.create(Item.self, value: ["id": "outer"])
                try other.write { try other.create(Item.self, value: ["id": "inner"]) }
            }
            tally.add("write of a second Store inside the first's accepted")
        } catch {
            tally.add("write of a second Store inside the first's refused")
            tally.note("after \(Int(Date().timeIntervalSince(started) * 1000)) ms: \(error)")
        }
        tally.add("outer/inner in file", SQLite3.int(path, "SELECT count(*) FROM Item WHERE id IN ('outer','inner')"))
        tally.report("reentrant calls")
    }

    final class TokenBox: @unchecked Sendable {
        private let lock = NSLock()
        private var token: ObservationToken?
        func set(_ t: ObservationToken) { lock.withLock { token = t } }
        func drop() {
            let t = lock.withLock { () -> ObservationToken? in
                defer { token = nil }
                return token
            }
            t?.invalidate()
        }
    }
}
