import Foundation
import UrnaStore

/// Concurrency scenarios on one process: cancellation, lists from two threads, observers that write or are
/// removed while being called, lazy results read while others delete.
enum Busy {
    /// asyncWrite/asyncRead cancelled at random moments: each write the caller was told committed is in the file,
    /// each it was told was cancelled is not.
    static func cancellation() async throws {
        let path = Files.fresh("cancel.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let told = ToldSet()
        let cancelSent = ToldSet()  // "committed" here: cancel() was called before the body began
        let began = ToldSet()
        // A writer that holds the lock 2 ms at a time, so asyncWrites wait their turn and are cancelled while waiting.
        let stop = Flag()
        let blocker = Thread {
            while !stop.isSet {
                try? store.write { usleep(5000) }
                usleep(500)
            }
        }
        blocker.start()
        defer { stop.set() }
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<400 {
                let task = Task {
                    do {
                        try await store.asyncWrite {
                            began.insert("c\(i)", committed: true)
                            try store.create(Item.self, value: ["id": "c\(i)", "worker": "cancel", "seq": i])
                            usleep(UInt32.random(in: 0...300))
                        }
                        told.insert("c\(i)", committed: true)
                        if cancelSent.contains("c\(i)") {
                            tally.add("committed although cancel() came before it returned")
                        }
                        if cancelSent.snapshot().0.contains("c\(i)") {
                            tally.add("committed although cancel() came before its body began (wrong)")
                        }
                    } catch is CancellationError {
                        told.insert("c\(i)", committed: false)
                    } catch {
                        tally.add("other error")
                        tally.note("\(error)")
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .microseconds(Int.random(in: 0...30000)))
                    cancelSent.insert("c\(i)", committed: !began.contains("c\(i)"))
                    task.cancel()
                    await task.value
                }
                let reader = Task {
                    do { _ = try await store.asyncRead { try store.objects(Item.self).count } } catch {
                        tally.add("asyncRead error")
                    }
                }
                if i % 3 == 0 { reader.cancel() }
            }
        }
        let inFile = Set(SQLite3.query(path, "SELECT id FROM Item").split(separator: "\n").map(String.init))
        let (committed, cancelled) = told.snapshot()
        tally.add("told committed", committed.count)
        tally.add("told cancelled", cancelled.count)
        tally.add("told committed, missing (lost)", committed.subtracting(inFile).count)
        tally.add("told cancelled, present (wrong)", cancelled.intersection(inFile).count)
        tally.report("asyncWrite/asyncRead cancelled at random moments (400 writes)")
    }

    final class ToldSet: @unchecked Sendable {
        private let lock = NSLock()
        private var committed: Set<String> = []
        private var cancelled: Set<String> = []
        func insert(_ id: String, committed yes: Bool) {
            lock.withLock { if yes { committed.insert(id) } else { cancelled.insert(id) } }
        }
        func snapshot() -> (Set<String>, Set<String>) { lock.withLock { (committed, cancelled) } }
        func contains(_ id: String) -> Bool { lock.withLock { committed.contains(id) || cancelled.contains(id) } }
    }

    /// Two threads append to one person's list while a third moves and removes members; positions must stay
    /// 0..<count with every appended dog present once, unless removed.
    static func lists() async throws {
        let path = Files.fresh("lists.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        try store.write { try store.create(Person.self, value: [1, "Ann"]) }
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<2 {
                group.addTask {
                    for i in 0..<200 {
                        do {
                            try store.write {
                                let p = try store.object(ofType: Person.self, forPrimaryKey: 1)!
                                try p.dogs.append(Dog(value: [t * 1000 + i, "d\(t)-\(i)"]))
                            }
                            tally.add("appended")
                        } catch { tally.add("append error") }
                    }
                }
            }
            group.addTask {
                for i in 0..<200 {
                    do {
                        try store.write {
                            let p = try store.object(ofType: Person.self, forPrimaryKey: 1)!
                            let c = try p.dogs.count
                            if c > 2 {
                                try p.dogs.move(from: 0, to: c - 1)
                                if i % 5 == 0 {
                                    try p.dogs.remove(at: c / 2)
                                    tally.add("removed")
                                }
                            }
                        }
                    } catch { tally.add("move error") }
                }
            }
        }
        let rows = SQLite3.int(path, "SELECT count(*) FROM Person_dogs")
        let maxPos = SQLite3.int(path, "SELECT max(position) FROM Person_dogs")
        let distinct = SQLite3.int(path, "SELECT count(DISTINCT target) FROM Person_dogs")
        tally.add("list rows in file", rows)
        tally.add("max position + 1", maxPos + 1)
        tally.add("distinct members", distinct)
        tally.add("expected members", tally["appended"] - tally["removed"])
        tally.report("one list edited from three tasks")
    }

    /// Observers that write, observers removed (on other threads and by themselves) while being called, and a
    /// results observer whose last count must be the file's.
    static func observers() async throws {
        let path = Files.fresh("observers.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        try store.write { try store.create(Counter.self, value: [1, 0]) }
        let last = Probes.LastCount()
        let order = OrderCheck()
        let resultsToken = try store.objects(Item.self).observe { change in
            if case .update(let c, _, _, _) = change {
                last.set(c)
                if !order.see(c) { tally.add("results observer count went down") }
            }
        }
        // An observer that writes on every fifth change, until 50 of its own writes.
        let own = Probes.LastCount()
        own.set(0)
        let writingToken = store.observe { change in
            guard change.types.contains("Item"), own.value < 50 else { return }
            own.set(own.value + 1)
            do {
                try store.write {
                    let c = try store.object(ofType: Counter.self, forPrimaryKey: 1)!
                    c.n += 1
                }
                tally.add("observer writes")
            } catch {
                tally.add("observer write error")
                tally.note("\(error)")
            }
        }
        let holder = TokenHolder()
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<4 {
                group.addTask {
                    for i in 0..<150 {
                        try? store.write { try store.create(Item.self, value: ["id": "o\(t)-\(i)"]) }
                        if i % 10 == 0 {
                            // Register an observer that removes itself on its first call, and one removed by another task.
                            holder.add(store.observe { _ in holder.dropFirst() })
                            let tok = store.observe { _ in tally.add("short-lived observer calls") }
                            Task.detached { tok.invalidate() }
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(800))
        tally.add("items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.add("results observer's last count", last.value)
        tally.add("counter in file", SQLite3.int(path, "SELECT n FROM Counter"))
        resultsToken.invalidate()
        writingToken.invalidate()
        tally.report("observers that write, removed while called, 4 committing tasks")
    }

    final class OrderCheck: @unchecked Sendable {
        private let lock = NSLock()
        private var last = -1
        func see(_ c: Int) -> Bool {
            lock.withLock {
                defer { last = Swift.max(last, c) }
                return c >= last
            }
        }
    }

    final class TokenHolder: @unchecked Sendable {
        private let lock = NSLock()
        private var tokens: [ObservationToken] = []
        func add(_ t: ObservationToken) { lock.withLock { tokens.append(t) } }
        func dropFirst() {
            let t: ObservationToken? = lock.withLock { tokens.isEmpty ? nil : tokens.removeFirst() }
            t?.invalidate()
        }
    }

    /// Lazy results iterated (by index and as a sequence) while another task deletes and recreates.
    static func lazyResults() async throws {
        let path = Files.fresh("lazy.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        try store.write { for i in 0..<300 { try store.create(Item.self, value: ["id": "l\(i)", "seq": i]) } }
        let stop = Flag()
        let churn = Task.detached {
            var round = 0
            while !stop.isSet {
                round += 1
                try? store.write {
                    try store.delete(
                        try store.objects(Item.self).filter("seq % 3 == %d", .value(.int(Int64(round % 3)))))
                }
                try? store.write {
                    for i in 0..<300 where i % 3 == round % 3 {
                        try store.create(Item.self, value: ["id": "l\(i)", "seq": i], update: .modified)
                    }
                }
            }
        }
        for _ in 0..<200 {
            let results = try store.objects(Item.self).sorted(byKeyPath: "seq")
            let n = (try? results.count) ?? 0
            for i in 0..<n {
                let o = results[i]
                if o.isInvalidated { tally.add("gone while iterating") } else { _ = o.seq }
            }
            var seen = 0
            for o in results where !o.id.hasPrefix("l") { seen += 1 }
            if seen > 0 { tally.add("wrong object") }
            let total = try store.read { try results.count + 0 }
            if total % 100 != 0 { tally.add("torn count (not a multiple of 100)") }
            tally.add("passes")
        }
        stop.set()
        await churn.value
        tally.report("lazy results read while another task deletes and recreates")
    }
}
