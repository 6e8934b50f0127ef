import Foundation
import UrnaStore

/// The fifth trial's handles across tasks. Objects and results are not `Sendable`, but Swift 6's region-based
/// isolation lets an app send one it no longer uses (`Task.detached { item.seq += 1 }` after reading `item`):
/// the compiler accepts these, so they must be safe.
enum Sending {
    static func run() async throws {
        let path = Files.fresh("sending.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        try store.write {
            for i in 0..<50 { try store.create(Item.self, value: ["id": "h\(i)", "worker": "h", "seq": 0]) }
            try store.create(Person.self, value: [1, "Ann"])
        }
        for round in 0..<20 {
            var tasks: [Task<Void, Never>] = []
            for i in 0..<50 {
                // Read here, sent to a detached task that writes through it (this task never touches it again).
                let item = try store.object(ofType: Item.self, forPrimaryKey: .string("h\(i)"))!
                _ = item.seq  // loaded on this task's thread
                tasks.append(
                    Task.detached {
                        do {
                            try store.write { item.seq += 1 }
                            tally.add("increments told done")
                        } catch { tally.note("\(error)") }
                    })
            }
            // A Results and a person's list, sent the same way.
            let results = try store.objects(Item.self).filter("seq >= %d", .value(.int(Int64(round))))
            tasks.append(
                Task.detached {
                    do {
                        let n = try results.count
                        if n != 50 { tally.add("results read \(n) of 50") }
                    } catch { tally.note("results: \(error)") }
                })
            let ann = try store.object(ofType: Person.self, forPrimaryKey: 1)!
            tasks.append(
                Task.detached {
                    do { try store.write { try ann.dogs.append(Dog(value: [round, "d\(round)"])) } } catch {
                        tally.note("list: \(error)")
                    }
                })
            for t in tasks { await t.value }
        }
        tally.add("seq sum in file", SQLite3.int(path, "SELECT sum(seq) FROM Item"))
        tally.add("list members in file", SQLite3.int(path, "SELECT count(*) FROM Person_dogs"))
        tally.report("objects, results and lists sent to other tasks (region isolation): 20 rounds x 50 objects")
    }

    /// A cancellation handler that writes (an app logging "cancelled" to its store), with `cancel()` called from
    /// outside any write and from inside a write on the same store: never a hang; the nested one is refused.
    static func cancellationHandlerWrites() async throws {
        let path = Files.fresh("oncancel.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        for (k, fromInsideWrite) in [false, true, false, true].enumerated() {
            let started = Flag()
            let task = Task {
                await withTaskCancellationHandler {
                    started.set()
                    try? await Task.sleep(for: .seconds(30))
                } onCancel: {
                    do {
                        try store.write { try store.create(Item.self, value: ["id": "oncancel\(k)"]) }
                        tally.add("handler write committed (cancel from inside a write: \(fromInsideWrite))")
                    } catch {
                        tally.add("handler write refused (cancel from inside a write: \(fromInsideWrite))")
                        tally.note("\(error)")
                    }
                }
            }
            while !started.isSet { try await Task.sleep(for: .milliseconds(5)) }
            if fromInsideWrite {
                try store.write {
                    try store.create(Item.self, value: ["id": "outer\(k)"])
                    task.cancel()
                }
            } else {
                task.cancel()
            }
            await task.value
        }
        tally.add("Items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.report("writes from a cancellation handler, cancel() called outside and inside a write")
    }
}
