import Foundation
import Testing
import UrnaStore

/// Helpers for `NinthThreadsTrialAttackTests`.
enum TrialNineAttack {
    /// Begins a write for async code and uses it once: the handle another actor goes on with.
    actor Starter {
        func start(_ store: Store, id: Int) async throws -> WriteTransaction {
            let w = try await store.beginWrite()
            try w.perform { _ = try store.create(TrialSix.Note.self, value: [id, "started"]) }
            return w
        }
    }

    /// Goes on with a handle another actor began, then commits it (or drops it, which rolls it back).
    actor Finisher {
        func finish(_ w: WriteTransaction, _ store: Store, id: Int, commit: Bool) throws -> Bool {
            try w.perform { _ = try store.create(TrialSix.Note.self, value: [id, "finished"]) }
            if commit { try w.commit() }
            return commit
        }
    }
}

/// The ninth threads trial's attacks that found no defect, kept so they stay so: task groups, actors, concurrentPerform,
/// cancelled detached tasks, observers that write, nested reads and writes, dropped handles.
@Suite("Ninth threads trial: attacks on the write lock")
struct NinthThreadsTrialAttackTests {
    @Test(
        "concurrentPerform mixing write { }, beginWrite handles committed, cancelled and dropped, reads inside writes and writes inside reads: exactly the writes that said ok are committed, no hang"
    )
    func concurrentPerformMix() throws {
        for inMemory in [false, true] {
            let f = try WriteTransactionFixture(inMemory: inMemory)
            let store = f.store
            let finished = f.finishesOnThread(within: 60) {
                DispatchQueue.concurrentPerform(iterations: 8) { worker in
                    for round in 0..<60 {
                        let id = worker * 1_000 + round
                        switch (worker + round) % 5 {
                        case 0:
                            do {
                                try store.write {
                                    _ = try store.read { try store.objects(TrialSix.Note.self).count }
                                    try store.create(TrialSix.Note.self, value: [id, "write"])
                                }
                                f.add(Int64(id))
                            } catch { f.note("write \(error)") }
                        case 1:
                            do {
                                let w = try store.beginWrite()
                                try w.perform { _ = try store.create(TrialSix.Note.self, value: [id, "handle"]) }
                                try w.commit()
                                f.add(Int64(id))
                            } catch { f.note("handle \(error)") }
                        case 2:
                            // Dropped between two uses: rolled back, and nobody waits for it.
                            _ = try? store.beginWrite().perform {
                                _ = try store.create(TrialSix.Note.self, value: [id, "dropped"])
                            }
                        case 3:
                            let w = try? store.beginWrite()
                            try? w?.perform { _ = try store.create(TrialSix.Note.self, value: [id, "cancelled"]) }
                            w?.cancel()
                        default:
                            do {
                                try store.read { try store.write {} }
                                f.note("write inside read was allowed")
                            } catch StoreError.writeInsideRead {
                            } catch { f.note("read \(error)") }
                        }
                    }
                }
            }
            #expect(finished)
            #expect(f.said.isEmpty)
            #expect(try f.committedIDs() == f.sortedIDs)
            #expect(f.writeFinishes(id: 999_999))
        }
    }

    @Test(
        "Handles begun on one actor and finished on another, beside asyncWrite tasks cancelled at random: the committed notes are those of committed handles and of asyncWrites that returned, nothing of the rest"
    )
    func handlesAcrossActorsWithCancellation() async throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        let starter = TrialNineAttack.Starter()
        let finisher = TrialNineAttack.Finisher()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for round in 0..<40 {
                        let id = (lane * 100 + round) * 2
                        let w = try await starter.start(store, id: id)
                        if try await finisher.finish(w, store, id: id + 1, commit: round % 3 != 0) {
                            f.add(Int64(id))
                            f.add(Int64(id + 1))
                        }
                    }
                }
            }
            for k in 0..<40 {
                let id = 100_000 + k
                let task = Task.detached {
                    try await store.asyncWrite { try store.create(TrialSix.Note.self, value: [id, "async"]) }
                    f.add(Int64(id))
                }
                if k % 2 == 0 { task.cancel() }
                group.addTask {
                    do { try await task.value } catch is CancellationError {}
                }
            }
            try await group.waitForAll()
        }
        #expect(try f.committedIDs() == f.sortedIDs)
        #expect(f.writeFinishes(id: 999_999))
    }

    @Test(
        "An observer that writes on every change it hears of, while four threads write: no hang, every write kept, and the observer's own writes arrive"
    )
    func observerThatWrites() throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        let echoes = TrialEight.IDs()
        let heardEnough = DispatchSemaphore(value: 0)
        let token = store.observe { change in
            guard change.inserted["Note"] != nil || !change.possiblyChanged.isEmpty else { return }
            let n = echoes.sorted.count
            guard n < 30 else { return }
            let id = 500_000 + n
            if (try? store.write { try store.create(TrialSix.Note.self, value: [id, "echo"]) }) != nil {
                echoes.add(Int64(id))
                if n == 29 { heardEnough.signal() }
            }
        }
        defer { token.invalidate() }
        let finished = f.finishesOnThread(within: 60) {
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for round in 0..<200 {
                    let id = worker * 1_000 + round
                    if (try? store.write { try store.create(TrialSix.Note.self, value: [id, "w"]) }) != nil {
                        f.add(Int64(id))
                    }
                }
            }
        }
        #expect(finished)
        // Keep writing until the observer has written its 30 (it hears of commits on its own thread, later).
        var extra = 0
        while heardEnough.wait(timeout: .now() + 0.05) == .timedOut && extra < 2_000 {
            try store.write { try store.create(TrialSix.Note.self, value: [900_000 + extra, "more"]) }
            f.add(Int64(900_000 + extra))
            extra += 1
        }
        #expect(echoes.sorted.count == 30)
        let committed = Set(try f.committedIDs())
        #expect(committed.isSuperset(of: f.ids))
        #expect(committed.isSuperset(of: echoes.sorted))
    }
}
