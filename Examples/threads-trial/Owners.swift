import Foundation
import UrnaStore

/// The fifth trial's owners: an actor that owns a store, several `Store` instances on one file in one process,
/// and two processes each with several.
enum Owners {
    /// An app's data layer as an actor: its methods write and read, tasks call them, and a transfer between two
    /// accounts (Counter 1 and 2) must keep their sum; `nonisolated` reads go straight to the store.
    actor Bank {
        let store: Store
        init(path: String) throws {
            store = try Store(path: path, schema: try TrialSchema.schema())
            try store.write {
                try store.create(Counter.self, value: [1, 1000])
                try store.create(Counter.self, value: [2, 1000])
            }
        }

        func transfer(_ amount: Int, tag: String) throws {
            try store.write {
                let a = try store.object(ofType: Counter.self, forPrimaryKey: 1)!
                let b = try store.object(ofType: Counter.self, forPrimaryKey: 2)!
                a.n -= amount
                b.n += amount
                try store.create(Item.self, value: ["id": tag, "worker": "bank", "seq": amount])
            }
        }

        func asyncTransfer(_ amount: Int, tag: String) async throws {
            try await store.asyncWrite { [store] in
                let a = try store.object(ofType: Counter.self, forPrimaryKey: 1)!
                let b = try store.object(ofType: Counter.self, forPrimaryKey: 2)!
                a.n -= amount
                b.n += amount
                try store.create(Item.self, value: ["id": tag, "worker": "bank", "seq": amount])
            }
        }

        func sum() throws -> Int {
            try store.read {
                try store.objects(Counter.self).sorted(byKeyPath: "id").objects().reduce(0) { $0 + $1.n }
            }
        }

        nonisolated func sumOutside() async throws -> Int {
            try await store.asyncRead { [store] in
                try store.objects(Counter.self).sorted(byKeyPath: "id").objects().reduce(0) { $0 + $1.n }
            }
        }
    }

    static func actorOwned() async throws {
        let path = Files.fresh("bank.sqlite")
        let bank = try Bank(path: path)
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<100 {
                        do {
                            if i % 2 == 0 {
                                try await bank.transfer(Int.random(in: -50...50), tag: "b\(t)-\(i)")
                            } else {
                                try await bank.asyncTransfer(Int.random(in: -50...50), tag: "b\(t)-\(i)")
                            }
                            tally.add("transfers told done")
                        } catch { tally.note("transfer: \(error)") }
                        do {
                            let s = try await (i % 3 == 0 ? bank.sumOutside() : bank.sum())
                            tally.add(s == 2000 ? "sums read 2000" : "torn sum (not 2000)")
                        } catch { tally.note("sum: \(error)") }
                    }
                }
            }
        }
        tally.add("Items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.add("sum in file", SQLite3.int(path, "SELECT sum(n) FROM Counter"))
        tally.add(
            "file balance == 1000 - sum of amounts",
            SQLite3.int(path, "SELECT (SELECT n FROM Counter WHERE id = 1) = 1000 - (SELECT sum(seq) FROM Item)"))
        tally.report("an actor owning a store: 8 tasks x 100 transfers (sync and asyncWrite), sums read between")
    }

    /// `stores` Store instances on one file in this process, each used by its own thread, increment one counter
    /// (read, add one, write, in one write); the counter must end at the number of increments told done.
    static func manyStores(stores: Int = 6, each: Int = 150) async throws {
        let path = Files.fresh("many-stores.sqlite")
        let tally = Tally()
        do {
            let s = try Store(path: path, schema: try TrialSchema.schema())
            try s.write { try s.create(Counter.self, value: [1, 0]) }
        }
        let opened = try (0..<stores).map { _ in try Store(path: path, schema: try TrialSchema.schema()) }
        let heard = Tally()
        let tokens = opened.enumerated().map { k, s in
            s.observe { change in heard.add("store \(k) heard", change.modified["Counter"] ?? 0) }
        }
        // Each store's results observer must end at the file's count: other stores' commits reach it by its poll.
        let lastCounts = (0..<stores).map { _ in Probes.LastCount() }
        let resultsTokens = try opened.enumerated().map { k, s in
            try s.objects(Item.self).observe { change in
                switch change {
                case .initial(let c), .update(let c, _, _, _): lastCounts[k].set(c)
                case .error(let m): heard.note("results observer \(k): \(m)")
                }
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (k, s) in opened.enumerated() {
                group.addTask {
                    for i in 0..<each {
                        do {
                            try s.write {
                                let c = try s.object(ofType: Counter.self, forPrimaryKey: 1)!
                                c.n += 1
                                try s.create(Item.self, value: ["id": "m\(k)-\(i)", "worker": "m\(k)"])
                            }
                            tally.add("increments told done")
                        } catch { tally.note("store \(k): \(error)") }
                        if i % 10 == 0 {
                            // An object read before another store's commit, used after it.
                            let c = try? s.object(ofType: Counter.self, forPrimaryKey: 1)
                            let before = c?.n ?? -1
                            _ = try? s.refresh()
                            if let c, c.n < before { tally.add("a counter read went backwards") }
                        }
                    }
                }
            }
        }
        tally.add("counter in file", SQLite3.int(path, "SELECT n FROM Counter WHERE id = 1"))
        tally.add("Items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        for (k, s) in opened.enumerated() {
            let seen = try s.object(ofType: Counter.self, forPrimaryKey: 1)!.n
            if seen != stores * each { tally.add("store \(k) reads \(seen)") }
        }
        try await Task.sleep(for: .seconds(1))  // the stores' own look runs four times a second
        for k in 0..<stores where lastCounts[k].value != stores * each {
            tally.add("results observer of store \(k) ended at \(lastCounts[k].value)")
        }
        withExtendedLifetime((tokens, resultsTokens)) {}
        heard.report("own modifications heard by each store's observer (each should be \(each))")
        tally.report("\(stores) Store instances on one file, \(each) increments each")
    }

    /// Two child processes, each with four stores on one file and a thread per store, increment the counter.
    static func twoProcesses() async throws {
        let path = Files.fresh("two-processes.sqlite")
        do {
            let s = try Store(path: path, schema: try TrialSchema.schema())
            try s.write { try s.create(Counter.self, value: [1, 0]) }
        }
        let tally = Tally()
        let outs = [path + ".out0", path + ".out1"]
        var children: [Process] = []
        for (k, out) in outs.enumerated() {
            FileManager.default.createFile(atPath: out, contents: nil)
            children.append(
                try spawnChild(["child-stores", path, "p\(k)"], stdout: FileHandle(forWritingAtPath: out)!))
        }
        for c in children { c.waitUntilExit() }
        var told = 0
        for out in outs {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                if line.hasPrefix("done ") { told += Int(line.dropFirst(5)) ?? 0 } else { tally.note(String(line)) }
            }
        }
        tally.add("child exit codes != 0", children.filter { $0.terminationStatus != 0 }.count)
        tally.add("increments told done", told)
        tally.add("counter in file", SQLite3.int(path, "SELECT n FROM Counter WHERE id = 1"))
        tally.add("Items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.report("two processes x 4 stores x 100 increments")
    }

    static func childStores(path: String, tag: String) throws {
        let stores = try (0..<4).map { _ in try Store(path: path, schema: try TrialSchema.schema()) }
        let done = Tally()
        let threads = stores.enumerated().map { k, s in
            Thread {
                for i in 0..<100 {
                    do {
                        try s.write {
                            let c = try s.object(ofType: Counter.self, forPrimaryKey: 1)!
                            c.n += 1
                            try s.create(Item.self, value: ["id": "\(tag)-\(k)-\(i)"])
                        }
                        done.add("done")
                    } catch { say("error \(tag) store \(k): \(error)") }
                }
                done.add("threads")
            }
        }
        for t in threads { t.start() }
        while done["threads"] < threads.count { usleep(10_000) }
        say("done \(done["done"])")
    }

    /// 1,000 tasks at once each `asyncWrite` one item and `asyncRead` the count, while a slow writer holds the lock
    /// 20 ms at a time: every write runs off the cooperative pool on a dispatch thread, and they must all finish.
    static func flood() async throws {
        let path = Files.fresh("flood.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let stop = Flag()
        let slow = Thread {
            while !stop.isSet {
                try? store.write { usleep(20_000) }
                usleep(1000)
            }
        }
        slow.start()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<1000 {
                group.addTask {
                    do {
                        try await store.asyncWrite { try store.create(Item.self, value: ["id": "f\(i)", "seq": i]) }
                        tally.add("writes told done")
                        let n = try await store.asyncRead { try store.objects(Item.self).count }
                        if n < 1 { tally.add("read a count below 1 after its own write") }
                    } catch { tally.note("\(error)") }
                }
            }
        }
        stop.set()
        tally.add("Items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.report("1,000 tasks asyncWrite + asyncRead at once beside a slow writer")
    }
}
