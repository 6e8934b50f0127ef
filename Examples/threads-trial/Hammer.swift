import Foundation
import UrnaStore

/// Many threads, tasks, actors and detached tasks (and a second Store on the file, and a child process) add to
/// one counter and add items; a share of the writes throw midway, some try a nested write. Afterwards the file
/// (read by sqlite3) must hold exactly what each writer was told was committed.
enum Hammer {
    struct Failure: Error {}

    /// One writer's work: `n` writes, each incrementing the counter and adding an item; every 7th throws after
    /// both; every 11th tries a nested write first (refused) and goes on.
    static func work(store: Store, worker: String, n: Int, tally: Tally) {
        for i in 0..<n {
            let throwing = i % 7 == 3
            do {
                try store.write {
                    let c = try store.object(ofType: Counter.self, forPrimaryKey: 1)!
                    c.n += 1
                    try store.create(Item.self, value: ["id": "\(worker)-\(i)", "worker": worker, "seq": i])
                    if i % 11 == 5 {
                        do {
                            try store.write { try store.create(Item.self, value: ["id": "\(worker)-nested-\(i)"]) }
                            tally.add("nested write accepted (wrong)")
                        } catch StoreError.alreadyInWriteTransaction {
                            tally.add("nested refused")
                        }
                    }
                    if throwing { throw Failure() }
                }
                tally.add("committed")
            } catch is Failure {
                tally.add("thrown midway")
            } catch {
                tally.add("unexpected error")
                tally.note("\(worker): \(error)")
            }
        }
    }

    actor Writer {
        let store: Store
        let tally: Tally
        init(store: Store, tally: Tally) {
            self.store = store
            self.tally = tally
        }
        func run(_ worker: String, n: Int) { Hammer.work(store: store, worker: worker, n: n, tally: tally) }
    }

    static func run() async throws {
        let path = Files.fresh("hammer.sqlite")
        let schema = try TrialSchema.schema()
        let a = try Store(path: path, schema: schema)
        let b = try Store(path: path, schema: schema)
        try a.write { try a.create(Counter.self, value: [1, 0]) }
        let tally = Tally()
        let n = 400
        let child = try spawnChild(["child-hammer", path, "\(n)"])
        let started = Date()
        // Threads.
        let threads = (0..<3).map { t -> Thread in
            let store = t % 2 == 0 ? a : b
            let th = Thread { work(store: store, worker: "thread\(t)", n: n, tally: tally) }
            th.start()
            return th
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<3 {
                group.addTask { work(store: t % 2 == 0 ? b : a, worker: "task\(t)", n: n, tally: tally) }
            }
            for t in 0..<2 {
                let actor = Writer(store: t == 0 ? a : b, tally: tally)
                group.addTask { await actor.run("actor\(t)", n: n) }
            }
            for t in 0..<2 {
                group.addTask {
                    try await Task.detached {
                        for i in 0..<n {
                            do {
                                try await (t == 0 ? a : b).asyncWrite {
                                    let store = t == 0 ? a : b
                                    let c = try store.object(ofType: Counter.self, forPrimaryKey: 1)!
                                    c.n += 1
                                    try store.create(
                                        Item.self,
                                        value: ["id": "detached\(t)-\(i)", "worker": "detached\(t)", "seq": i])
                                }
                                tally.add("committed")
                            } catch {
                                tally.add("unexpected error")
                                tally.note("detached\(t): \(error)")
                            }
                        }
                    }.value
                }
            }
            try await group.waitForAll()
        }
        while threads.contains(where: { !$0.isFinished }) { try await Task.sleep(for: .milliseconds(20)) }
        child.waitUntilExit()
        let childCommitted = Int(child.terminationStatus == 0 ? n - (0..<n).filter { $0 % 7 == 3 }.count : -1)
        let elapsed = Date().timeIntervalSince(started)
        let expected = tally["committed"] + childCommitted
        let fileCounter = SQLite3.int(path, "SELECT n FROM Counter WHERE id = 1")
        let fileItems = SQLite3.int(path, "SELECT count(*) FROM Item")
        let nested = SQLite3.int(path, "SELECT count(*) FROM Item WHERE id LIKE '%nested%'")
        let thrownInFile = SQLite3.int(
            path, "SELECT count(*) FROM Item WHERE seq % 7 = 3 AND worker NOT LIKE 'detached%'")
        tally.add("expected (this process + child)", expected)
        tally.add("file: counter", fileCounter)
        tally.add("file: items", fileItems)
        tally.add("file: nested items", nested)
        tally.add("file: items of thrown writes", thrownInFile)
        tally.add("lost updates", max(0, expected - fileCounter))
        tally.add("ms", Int(elapsed * 1000))
        tally.add("integrity ok", SQLite3.query(path, "PRAGMA integrity_check") == "ok" ? 1 : 0)
        tally.report("hammer: 3 threads, 3 tasks, 2 actors, 2 detached asyncWrite, 2 Stores, 1 child process")
    }

    /// The child process: the same work on its own Store.
    static func child(path: String, n: Int) throws {
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        work(store: store, worker: "child", n: n, tally: tally)
        if tally["unexpected error"] > 0 {
            tally.report("child")
            exit(1)
        }
    }
}
