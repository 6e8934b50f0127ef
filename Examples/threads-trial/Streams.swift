import Foundation
import UrnaStore

/// The fifth trial's observation streams: `store.changes` and `results.changes` consumed by several tasks,
/// cancelled half way, and outliving the store that made them.
enum Streams {
    /// Eight tasks each iterate their own `store.changes` while four tasks commit one Item per write; four of the
    /// consumers are cancelled half way. Every consumer that was not cancelled must hear every insert exactly once.
    static func manyConsumers() async throws {
        let path = Files.fresh("streams.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        let writers = 4
        let perWriter = 150
        let total = writers * perWriter
        var consumers: [Task<Int, Never>] = []
        for c in 0..<8 {
            let stream = store.changes  // observation begins here, before any write
            consumers.append(
                Task {
                    var heard = 0
                    for await change in stream {
                        heard += change.inserted["Item"] ?? 0
                        if heard >= total { break }
                        if c % 2 == 1, heard >= total / 2 { break }
                    }
                    return heard
                })
        }
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<writers {
                group.addTask {
                    for i in 0..<perWriter {
                        do {
                            try store.write {
                                try store.create(Item.self, value: ["id": "s\(t)-\(i)", "worker": "s\(t)"])
                            }
                            tally.add("writes")
                        } catch { tally.note("write: \(error)") }
                    }
                }
            }
        }
        for (c, task) in consumers.enumerated() {
            let heard = await task.value
            if c % 2 == 0 {
                tally.add("full consumers", 1)
                if heard != total { tally.add("full consumer heard \(heard) of \(total)") }
            }
        }
        tally.add("items in file", SQLite3.int(path, "SELECT count(*) FROM Item"))
        tally.report("store.changes: 8 consumers (4 leave half way), 4 writers x \(perWriter)")
    }

    /// One `results.changes` (an `AsyncThrowingStream`, `Sendable`) iterated by a task that is cancelled while
    /// waiting, and results streams whose last `.update` count must be the file's.
    static func resultsStreams() async throws {
        let path = Files.fresh("results-streams.sqlite")
        let store = try Store(path: path, schema: try TrialSchema.schema())
        let tally = Tally()
        var consumers: [Task<Int, Error>] = []
        for _ in 0..<4 {
            let stream = try store.objects(Item.self).changes
            consumers.append(
                Task {
                    var last = -1
                    for try await change in stream {
                        switch change {
                        case .initial(let c), .update(let c, _, _, _): last = c
                        case .error(let m): throw StoreError.schemaMismatch(m)
                        }
                        if last == 400 { break }
                    }
                    return last
                })
        }
        let waiting = Task {
            for try await _ in try store.objects(Dog.self).changes {}
            return 0
        }
        for i in 0..<400 { try store.write { try store.create(Item.self, value: ["id": "r\(i)"]) } }
        waiting.cancel()
        do { _ = try await waiting.value } catch { tally.note("cancelled consumer: \(error)") }
        tally.add("cancelled consumer ended", 1)
        for t in consumers {
            let last = try await t.value
            if last != 400 { tally.add("results stream ended at \(last) of 400") } else { tally.add("heard 400") }
        }
        tally.report("results.changes: 4 consumers to the end, 1 cancelled while waiting")
    }

    /// The app drops its last reference to the store while tasks still iterate its streams. A stream of a store
    /// that is gone can never yield again: its consumers must end (not wait forever).
    static func storeReleased(withResults: Bool) async throws {
        let path = Files.fresh("released-streams-\(withResults).sqlite")
        let tally = Tally()
        var store: Store? = try Store(path: path, schema: try TrialSchema.schema())
        weak let weakStore = store
        let changes = store!.changes
        let results = withResults ? try store!.objects(Item.self).changes : nil
        let a = Task {
            var n = 0
            for await _ in changes { n += 1 }
            return n
        }
        let b = Task {
            var n = 0
            guard let results else { return 0 }
            do { for try await _ in results { n += 1 } } catch { tally.note("results stream: \(error)") }
            return n
        }
        try store!.write { try store!.create(Item.self, value: ["id": "x"]) }
        try await Task.sleep(for: .milliseconds(200))
        store = nil
        try await Task.sleep(for: .milliseconds(100))
        tally.add(weakStore == nil ? "store deinitialised" : "store kept alive by its streams")
        let deadline = ContinuousClock.now + .seconds(10)
        let ended = Flag()
        let watcher = Task {
            _ = await a.value
            _ = await b.value
            ended.set()
        }
        while !ended.isSet && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        tally.add(ended.isSet ? "streams ended" : "streams still waiting 10 s after the last reference went")
        if !ended.isSet {
            a.cancel()
            b.cancel()
        }
        _ = await watcher.value
        if !withResults {
            try await Task.sleep(for: .milliseconds(100))
            tally.add(weakStore == nil ? "store deinitialised at the end" : "store still alive at the end (leak)")
        }
        tally.report("last store reference dropped while tasks iterate its streams (results stream: \(withResults))")
    }
}
