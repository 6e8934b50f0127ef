import Foundation
import UrnaStore

/// Smaller scenarios, each counting what it saw.
enum Probes {
    /// Raw SQL through `store.connection` from another thread while a write that will throw is open: the raw
    /// statement must not join (and be rolled back with) that write.
    static func rawStatementDuringWrite() throws {
        let path = Files.fresh("raw.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        for round in 0..<20 {
            let opened = DispatchSemaphore(value: 0)
            let rawDone = DispatchSemaphore(value: 0)
            let writer = Thread {
                do {
                    try store.write {
                        try store.create(Item.self, value: ["id": "w\(round)"])
                        opened.signal()
                        _ = rawDone.wait(timeout: .now() + 0.2)
                        throw Hammer.Failure()
                    }
                } catch {}
            }
            writer.start()
            opened.wait()
            do {
                let s = try store.connection.prepare("INSERT INTO Item(id, worker, seq, batch) VALUES (?, 'raw', 0, 0)")
                try s.bind([.text("raw\(round)")])
                try s.runToCompletion()
                tally.add("raw insert reported done")
            } catch {
                tally.add("raw insert error")
                tally.note("\(error)")
            }
            rawDone.signal()
            while !writer.isFinished { usleep(1000) }
        }
        tally.add("raw rows in file", SQLite3.int(path, "SELECT count(*) FROM Item WHERE worker = 'raw'"))
        tally.add("writer rows in file (must be 0)", SQLite3.int(path, "SELECT count(*) FROM Item WHERE id LIKE 'w%'"))
        tally.report("raw prepared statement on store.connection during another thread's failing write")
    }

    /// Objects, lists and results kept by tasks after their store is released.
    static func releasedStore() throws {
        let path = Files.fresh("released.sqlite")
        let tally = Tally()
        var person: Person?
        var dog: Dog?
        do {
            let store = try Store(path: path, schema: try TrialSchema.schema())
            try store.write {
                let p = try store.create(Person.self, value: [1, "Ann"])
                try p.dogs.append(try store.create(Dog.self, value: [1, "Rex"]))
            }
            person = try store.object(ofType: Person.self, forPrimaryKey: 1)
            dog = try store.object(ofType: Dog.self, forPrimaryKey: 1)
            _ = person?.name
            tally.add("dogs before release", try person!.dogs.count)
        }
        // The store is gone now (only weak references from the objects).
        let other = try Store(path: path, schema: try TrialSchema.schema())
        do {
            let c = try person!.dogs.count
            tally.add("released: dogs.count answered (should throw)", 1)
            tally.note("dogs.count answered \(c)")
        } catch { tally.add("released: dogs.count threw") }
        do {
            let c = try dog!.owners.count
            tally.add("released: owners.count answered (should throw)", 1)
            tally.note("owners.count answered \(c)")
        } catch { tally.add("released: owners.count threw") }
        do {
            try other.write { try person!.dogs.append(Dog(value: [2, "Bo"])) }
            tally.add("released: append reported done", 1)
        } catch { tally.add("released: append threw") }
        tally.add("dogs in file after append", SQLite3.int(path, "SELECT count(*) FROM Dog"))
        tally.add("list rows in file", SQLite3.int(path, "SELECT count(*) FROM Person_dogs"))
        tally.report("objects and lists outliving their store")
    }

    /// A typed object deleted through its own handle, then its list edited in a later write.
    static func deletedOwnerList() throws {
        let path = Files.fresh("deleted.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let p: Person = try store.write { try store.create(Person.self, value: [1, "Ann"]) }
        try store.write { try store.delete(p) }
        do {
            try store.write { try p.dogs.append(Dog(value: [7, "Bo"])) }
            tally.add("append to deleted owner's list reported done (should throw)")
        } catch { tally.add("append threw: \(error)") }
        do {
            try store.write { try p.dogs.removeAll() }
            tally.add("removeAll on deleted owner's list reported done (should throw)")
        } catch { tally.add("removeAll threw") }
        tally.add("dogs in file", SQLite3.int(path, "SELECT count(*) FROM Dog"))
        tally.report("list edits of an object deleted through its own handle")
    }

    /// Observers registered inside `store.read { }` while another thread commits: the last commit must reach them.
    static func observeInsideRead() async throws {
        let path = Files.fresh("observe-read.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        try store.write { try store.create(Item.self, value: ["id": "0"]) }
        let last = LastCount()
        let token: ObservationToken = try store.read {
            _ = try store.objects(Item.self).count  // the read's snapshot starts here
            // Another thread commits while this read is open.
            let t = Thread { try? store.write { try store.create(Item.self, value: ["id": "1"]) } }
            t.start()
            while !t.isFinished { usleep(1000) }
            return try store.objects(Item.self).observe { change in
                switch change {
                case .initial(let c): last.set(c)
                case .update(let c, _, _, _): last.set(c)
                case .error: break
                }
            }
        }
        try await Task.sleep(for: .milliseconds(600))
        tally.add("items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.add("observer's last count", last.value)
        token.invalidate()
        tally.report("results observed inside store.read while another thread commits")
    }

    final class LastCount: @unchecked Sendable {
        private let lock = NSLock()
        private var v = -1
        func set(_ x: Int) { lock.withLock { v = x } }
        var value: Int { lock.withLock { v } }
    }
}
