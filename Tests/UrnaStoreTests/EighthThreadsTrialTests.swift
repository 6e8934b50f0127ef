import Foundation
import Testing
import UrnaStore

/// Helpers for `EighthThreadsTrialTests` (the models and files are `TrialSix`'s).
enum TrialEight {
    /// Ids kept by several threads.
    final class IDs: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int64] = []
        var sorted: [Int64] { lock.withLock { values.sorted() } }
        func add(_ id: Int64) { lock.withLock { values.append(id) } }
    }

    /// A write on a thread of its own, which must finish within `seconds` (it hung while a write was left open).
    static func writeFinishes(_ store: Store, id: Int, within seconds: Double = 10) -> Bool {
        let done = TrialSix.onThread {
            try? store.write { try store.create(TrialSix.Note.self, value: [id, "after"]) }
        }
        return done.wait(timeout: .now() + seconds) == .success
    }
}

/// Defects the eighth threads trial found: each test was seen failing (or hanging, then failing on its time limit)
/// before its fix.
@Suite("Eighth threads trial: a beginWrite write across threads, tasks and awaits")
struct EighthThreadsTrialTests {
    @Test(
        "commitWrite() on a thread that did not begin the write says whose it is and how to end it (it said only 'not in a write transaction', and the write stayed open for good)"
    )
    func commitWriteOnAnotherThreadSaysWhy() throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        let outcome = TrialSix.Outcome()
        let began = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // The first thread lives on (as a queue's worker does): a thread that ended may have its id given to the next.
        let first = TrialSix.onThread {
            do {
                f.keep(try store.beginWrite())
                try store.create(TrialSix.Note.self, value: [1, "first block"])
                outcome.set("began", "yes")
            } catch { outcome.set("began", "\(error)") }
            began.signal()
            release.wait()
        }
        defer {
            release.signal()
            _ = first.wait(timeout: .now() + 10)
        }
        #expect(began.wait(timeout: .now() + 10) == .success)
        #expect(outcome["began"] == "yes")
        let committed = TrialSix.onThread {
            do {
                try store.commitWrite()
                outcome.set("commit", "committed")
            } catch { outcome.set("commit", "\(error)") }
        }
        #expect(committed.wait(timeout: .now() + 10) == .success)
        #expect(outcome["commit"] == "\(StoreError.writeOnAnotherThread)")
        // The handle ends it from here, and the store is free again.
        try f.handle.commit()
        #expect(f.writeFinishes(id: 2))
        #expect(try f.committedIDs() == [1, 2])
    }

    @Test(
        "A serial queue's three blocks on three threads (begin and create, create, commit) through the WriteTransaction: both notes committed, and the next writer is not kept waiting"
    )
    func serialQueueBlocksOnThreeThreads() throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        let outcome = TrialSix.Outcome()
        #expect(
            TrialSix.onThread {
                do {
                    let w = try store.beginWrite()
                    try store.create(TrialSix.Note.self, value: [1, "block 1"])
                    f.keep(w)
                } catch { outcome.set("1", "\(error)") }
            }.wait(timeout: .now() + 10) == .success)
        #expect(
            TrialSix.onThread {
                do {
                    try f.handle.perform { try store.create(TrialSix.Note.self, value: [2, "block 2"]) }
                    // Between two uses the write is its handle's: this thread's own calls are refused.
                    do {
                        try store.create(TrialSix.Note.self, value: [9, "outside perform"])
                        outcome.set("outside", "written")
                    } catch { outcome.set("outside", "\(error)") }
                } catch { outcome.set("2", "\(error)") }
            }.wait(timeout: .now() + 10) == .success)
        #expect(
            TrialSix.onThread {
                do { try f.handle.commit() } catch { outcome.set("3", "\(error)") }
            }.wait(timeout: .now() + 10) == .success)
        #expect(outcome["1"] == nil && outcome["2"] == nil && outcome["3"] == nil)
        #expect(outcome["outside"] == "\(StoreError.writeOnAnotherThread)")
        #expect(!f.handle.isOpen)
        #expect(f.writeFinishes(id: 3))
        #expect(try f.committedIDs() == [1, 2, 3])
        // The handle of an ended write refuses, and says why.
        #expect(throws: StoreError.writeEnded) { try f.handle.commit() }
        #expect(throws: StoreError.writeEnded) { try f.handle.perform {} }
    }

    @Test(
        "Twenty tasks each hold a write across an await (begin, create, sleep, create, commit on whatever thread they resume): 40 of 40 notes, no hang"
    )
    func writesAcrossAwaits() async throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<20 {
                group.addTask {
                    let w = try await store.beginWrite()
                    try w.perform { try store.create(TrialSix.Note.self, value: [t * 2, "before await"]) }
                    try await Task.sleep(for: .milliseconds(5))
                    try w.perform { try store.create(TrialSix.Note.self, value: [t * 2 + 1, "after await"]) }
                    try w.commit()
                }
            }
            try await group.waitForAll()
        }
        #expect(try f.committedIDs() == (0..<40).map(Int64.init))
        #expect(f.writeFinishes(id: 100))
    }

    @Test(
        "A write held by a task that throws (or is cancelled) between two uses is rolled back when its handle is released: nothing of it stays, and the store is free"
    )
    func droppedHandleRollsBack() async throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        struct Failed: Error {}
        let task = Task {
            let w = try await store.beginWrite()
            try w.perform { try store.create(TrialSix.Note.self, value: [1, "never"]) }
            try await Task.sleep(for: .seconds(30))
            try w.commit()
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        let other = Task {
            let w = try await store.beginWrite()
            try w.perform { try store.create(TrialSix.Note.self, value: [2, "never either"]) }
            throw Failed()
        }
        await #expect(throws: Failed.self) { try await other.value }
        #expect(f.writeFinishes(id: 3))
        #expect(try f.committedIDs() == [3])
        // A task cancelled before its write begins opens nothing.
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await store.beginWrite()
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(f.writeFinishes(id: 4))
    }

    @Test(
        "Four threads performing on one handle at once run one after the other: 400 of 400 increments, then one commit"
    )
    func concurrentPerformsOnOneHandle() throws {
        let f = try WriteTransactionFixture()
        let store = f.store
        try store.write { try store.create(TrialSix.Note.self, value: [1, "0"]) }
        let w = try store.beginWrite()
        let done = (0..<4).map { _ in
            TrialSix.onThread {
                for _ in 0..<100 {
                    try? w.perform {
                        let note = try store.object(ofType: TrialSix.Note.self, forPrimaryKey: 1)!
                        note.text = String(Int(note.text)! + 1)
                    }
                }
            }
        }
        for d in done { #expect(d.wait(timeout: .now() + 60) == .success) }
        try w.commit()
        #expect(try store.object(ofType: TrialSix.Note.self, forPrimaryKey: 1)?.text == "400")
    }

    @Test(
        "A handle committing on another thread while the beginning thread keeps creating: every create that returned is committed, none that threw, none after the commit"
    )
    func commitWhileTheBeginningThreadWrites() throws {
        for round in 0..<20 {
            let f = try WriteTransactionFixture()
            let store = f.store
            let started = DispatchSemaphore(value: 0)
            let writer = TrialSix.onThread {
                guard let w = try? store.beginWrite() else { return }
                f.keep(w)
                started.signal()
                for i in 0..<200_000 {
                    do {
                        try store.create(TrialSix.Note.self, value: [i, "r\(round)"])
                        f.add(Int64(i))
                    } catch { break }
                }
                store.cancelWrite()  // a no-op once the write moved: the handle committed it
            }
            #expect(started.wait(timeout: .now() + 10) == .success)
            usleep(UInt32.random(in: 0..<3_000))
            try f.handle.commit()
            #expect(writer.wait(timeout: .now() + 30) == .success)
            #expect(try f.committedIDs() == f.sortedIDs)
        }
    }

    @Test("beginWrite and commitWrite on one thread work as before; a discarded handle leaves that thread's write open")
    func oneThreadAsBefore() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        try store.beginWrite()
        try store.create(TrialSix.Note.self, value: [1, "a"])
        #expect(store.isInWriteTransaction)
        try store.commitWrite()
        try store.beginWrite()
        try store.create(TrialSix.Note.self, value: [2, "b"])
        store.cancelWrite()
        #expect(try store.objects(TrialSix.Note.self).count == 1)
    }
}
