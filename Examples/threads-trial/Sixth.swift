import Foundation
import UrnaStore

/// The sixth trial: raw SQL on `store.connection` from several threads, cancelled writes, observers that write, tasks of
/// every priority on one store. Each scenario prints what was acknowledged and what the file holds (read by sqlite3).
enum Sixth {
    /// Thrown inside a write to roll it back.
    struct RolledBack: Error {}

    /// Threads running raw SQL in writes on `store.connection` (half rolled back) beside `write`s and readers; a raw
    /// BEGIN outside a write is refused.
    static func rawTransactions() throws {
        let path = Files.fresh("raw-transactions.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let group = DispatchGroup()
        for t in 0..<3 {
            DispatchQueue.global().async(group: group) {
                for i in 0..<100 {
                    let id = "raw-\(t)-\(i)"
                    // A raw BEGIN outside a write is refused (rolled back at once): raw SQL joins a store's write.
                    if i == 0 {
                        let refused = (try? store.connection.execute("BEGIN IMMEDIATE")) == nil
                        tally.add(refused ? "raw BEGIN refused" : "raw BEGIN accepted")
                    }
                    do {
                        try store.write {
                            try store.connection.run(
                                "INSERT INTO Item(id, worker, seq, batch) VALUES (?, 'raw', ?, ?)",
                                [.text(id), .integer(Int64(i)), .integer(Int64(i % 2))])
                            if i % 2 == 1 { throw RolledBack() }
                        }
                        tally.add("raw committed")
                    } catch is RolledBack {
                        tally.add("raw rolled back")
                    } catch {
                        tally.add("raw failed")
                        tally.note("raw: \(error)")
                    }
                }
            }
        }
        for t in 0..<3 {
            DispatchQueue.global().async(group: group) {
                for i in 0..<100 {
                    do {
                        try store.write {
                            try store.create(Item.self, value: ["id": "write-\(t)-\(i)", "worker": "w"])
                        }
                        tally.add("write acknowledged")
                    } catch {
                        tally.add("write failed")
                        tally.note("write: \(error)")
                    }
                }
            }
        }
        DispatchQueue.global().async(group: group) {
            for _ in 0..<300 {
                // A rolled-back raw row (batch 1) must never be seen.
                do {
                    let seen = try store.objects(Item.self).filter("worker == 'raw' AND batch == 1").count
                    tally.add(seen != 0 ? "reads seeing uncommitted rows" : "reads")
                } catch {
                    tally.add("reads failed")
                    tally.note("read: \(error)")
                }
            }
        }
        group.wait()
        tally.add("stored raw rows", SQLite3.int(path, "SELECT count(*) FROM Item WHERE worker = 'raw'"))
        tally.add("stored written rows", SQLite3.int(path, "SELECT count(*) FROM Item WHERE worker = 'w'"))
        tally.report(
            "raw transactions on store.connection beside writes (expect 3 raw BEGIN refused, 150 raw, 300 written, 0 failed)"
        )
    }

    /// Threads asking `store.connection` for the same cached statement, each binding its own key.
    static func cachedStatements() throws {
        let store = try Store.inMemory(schema: try TrialSchema.schema())
        try store.write {
            for i in 0..<50 { try store.create(Item.self, value: ["id": "k\(i)", "worker": "w", "seq": i]) }
        }
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for n in 0..<2_000 {
                let i = (n * 7 + t) % 50
                do {
                    let s = try store.connection.cachedStatement("SELECT seq FROM Item WHERE id = ?")
                    try s.bind([.text("k\(i)")])
                    let got = try s.step() ? s.value(at: 0) : .null
                    s.reset()
                    tally.add(got == .integer(Int64(i)) ? "right row" : "wrong row")
                } catch {
                    tally.add("failed")
                    tally.note("\(error)")
                }
            }
        }
        tally.report("cached statements from 4 threads (expect 8000 right rows)")
    }

    /// Tasks cancelled while their `asyncWrite` body runs: each write is all of its 20 rows or none.
    static func cancelledMidBody() async throws {
        let path = Files.fresh("cancel-mid-body.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        // A writer holds the store while the tasks queue up; two thirds are cancelled while they wait, then the writer
        // lets go and some of the others are cancelled while their bodies run.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? store.write {
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        let tasks = (0..<100).map { t in
            Task.detached(priority: t % 2 == 0 ? .high : .low) {
                do {
                    try await store.asyncWrite {
                        for i in 0..<20 {
                            try store.create(Item.self, value: ["id": "c\(t)-\(i)", "worker": "c\(t)", "batch": t])
                            if i == 10 { usleep(2_000) }
                        }
                    }
                    tally.add("committed")
                    if Task.isCancelled { tally.add("committed, cancelled while its body ran") }
                } catch is CancellationError {
                    tally.add("cancelled")
                } catch {
                    tally.add("failed")
                    tally.note("\(error)")
                }
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        for (t, task) in tasks.enumerated() where t % 3 != 0 { task.cancel() }
        release.signal()
        try await Task.sleep(for: .milliseconds(5))
        for (t, task) in tasks.enumerated() where t % 3 == 0 && t % 2 == 0 { task.cancel() }
        for task in tasks { await task.value }
        let partial = SQLite3.int(
            path, "SELECT count(*) FROM (SELECT batch FROM Item GROUP BY batch HAVING count(*) <> 20)")
        let batches = SQLite3.int(path, "SELECT count(DISTINCT batch) FROM Item")
        tally.add("stored writes", batches)
        tally.add("partial writes", partial)
        try await store.asyncWrite { try store.create(Item.self, value: ["id": "after", "worker": "after"]) }
        tally.add("write after", SQLite3.int(path, "SELECT count(*) FROM Item WHERE id = 'after'"))
        tally.report(
            "asyncWrite cancelled while waiting or mid-body (expect stored writes = committed, 0 partial, write after 1)"
        )
    }

    /// An observer that writes a log row for every commit that inserted items, from 4 writing threads.
    static func observerThatWrites() throws {
        let path = Files.fresh("observer-writes.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let token = store.observe { change in
            guard let n = change.inserted["Item"], n > 0 else { return }
            do {
                try store.write {
                    let c =
                        try store.object(ofType: Counter.self, forPrimaryKey: 1)
                        ?? store.create(Counter.self, value: [1, 0])
                    c.n += n
                }
                tally.add("observer writes")
            } catch {
                tally.add("observer write failed")
                tally.note("\(error)")
            }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for i in 0..<50 {
                do {
                    try store.write { try store.create(Item.self, value: ["id": "o\(t)-\(i)", "worker": "o"]) }
                    tally.add("writes acknowledged")
                } catch {
                    tally.add("write failed")
                }
            }
        }
        let end = Date().addingTimeInterval(30)
        while tally["observer writes"] + tally["observer write failed"] < 200 && Date() < end { usleep(10_000) }
        token.invalidate()
        tally.add("counter in file", SQLite3.int(path, "SELECT n FROM Counter WHERE id = 1"))
        tally.report("an observer that writes, 4 threads x 50 writes (expect counter 200)")
    }

    /// Detached tasks of every priority mixing sync writes on the cooperative pool, asyncWrite, asyncRead and read.
    static func priorities() async throws {
        let path = Files.fresh("priorities.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let priorities: [TaskPriority] = [.high, .medium, .low, .background, .utility, .userInitiated]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<120 {
                group.addTask(priority: priorities[t % priorities.count]) {
                    switch t % 4 {
                    case 0: try store.write { try store.create(Item.self, value: ["id": "p\(t)", "worker": "p"]) }
                    case 1:
                        try await store.asyncWrite {
                            try store.create(Item.self, value: ["id": "p\(t)", "worker": "p"])
                        }
                    case 2: _ = try await store.asyncRead { try store.objects(Item.self).count }
                    default: _ = try store.read { try store.objects(Item.self).filter("worker == 'p'").count }
                    }
                    tally.add(t % 4 < 2 ? "writes acknowledged" : "reads")
                }
            }
            try await group.waitForAll()
        }
        tally.add("stored", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.report("120 tasks of six priorities (expect 60 acknowledged, 60 stored)")
    }
}
