import Foundation
import Testing
import UrnaStore

/// A `WriteTransaction` handle and what threads saw, shared between a test and its threads.
final class Review2Box: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: WriteTransaction?
    private var created: [Int] = []
    private var notes: [String] = []
    func set(_ w: WriteTransaction?) { lock.withLock { handle = w } }
    var get: WriteTransaction? { lock.withLock { handle } }
    func add(_ id: Int) { lock.withLock { created.append(id) } }
    var ids: [Int] { lock.withLock { created } }
    func note(_ s: String) { lock.withLock { notes.append(s) } }
    var said: [String] { lock.withLock { notes } }
}

/// Defects the second review of `WriteTransaction` found: each test was seen crashing or hanging before its fix.
@Suite("Review2: WriteTransaction races and self-waits")
struct Review2WriteTransactionTests {
    @Test(
        "The thread that began a write keeps creating while another commits through its handle: every create that returned is committed (the thread entered the write after it had moved, two threads used one connection, and unlock trapped)"
    )
    func commitRacesBeginnerCreates() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let box = Review2Box()
        var nextID = 1
        for round in 0..<5000 {
            let began = DispatchSemaphore(value: 0)
            let start = nextID
            nextID += 100_000
            let thread = TrialSix.onThread {
                do { box.set(try store.beginWrite()) } catch {
                    box.note("begin \(error)")
                    began.signal()
                    return
                }
                began.signal()
                var i = start
                while (try? store.create(TrialSix.Note.self, value: [i, "x"])) != nil {
                    box.add(i)
                    i += 1
                }
            }
            began.wait()
            usleep(UInt32(round % 7) * 100)
            #expect(throws: Never.self) { try box.get?.commit() }
            #expect(thread.wait(timeout: .now() + 10) == .success)
            box.set(nil)
        }
        #expect(box.said.isEmpty)
        let committed = Set(try TrialSix.committedIDs(path).map { Int($0) })
        #expect(Set(box.ids).subtracting(committed).isEmpty)
    }

    @Test(
        "write { } or beginWrite() on the thread that used a write through its handle throws alreadyInWriteTransaction (it waited for itself for good); the handle then commits"
    )
    func writeAfterPerformOnTheSameThread() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let box = Review2Box()
        let thread = TrialSix.onThread {
            do {
                let w = try store.beginWrite()
                box.set(w)
                try w.perform { _ = try store.create(TrialSix.Note.self, value: [1, "a"]) }
                box.note(
                    TrialSix.attempt { try store.write { _ = try store.create(TrialSix.Note.self, value: [2, "b"]) } })
                box.note(TrialSix.attempt { _ = try store.beginWrite() })
                box.note("read \((try? store.objects(TrialSix.Note.self).count) ?? -1)")
                box.note(TrialSix.attempt { try store.refresh() })
            } catch { box.note("error \(error)") }
        }
        let finished = thread.wait(timeout: .now() + 5) == .success
        if !finished { box.get?.cancel() }
        #expect(finished)
        let inWrite = "\(StoreError.alreadyInWriteTransaction)"
        #expect(box.said == [inWrite, inWrite, "read 0", "ok"])
        try box.get?.commit()
        #expect(try TrialSix.committedIDs(path) == [1])
        #expect(TrialEight.writeFinishes(store, id: 3))
    }

    @Test(
        "In memory, reads and refresh() on the thread that used a write through its handle see the write, raw SQL there is refused (they waited for its commit for good; raw SQL then ran inside it); another thread then commits it"
    )
    func inMemoryReadsAfterPerform() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        let box = Review2Box()
        let thread = TrialSix.onThread {
            do {
                let w = try store.beginWrite()
                box.set(w)
                try w.perform { _ = try store.create(TrialSix.Note.self, value: [1, "a"]) }
                box.note("count \(try store.objects(TrialSix.Note.self).count)")
                // Raw SQL there (a reused thread's unrelated work) never runs inside the handle's write: an INSERT
                // joined it, a ROLLBACK ended it, a ROLLBACK TO took back its rows.
                box.note(TrialSix.attempt { _ = try store.connection.integer("SELECT count(*) FROM Note") })
                box.note(TrialSix.attempt { try store.connection.execute("INSERT INTO Note VALUES (9, 'joined')") })
                box.note(TrialSix.attempt { try store.connection.execute("ROLLBACK") })
                box.note(TrialSix.attempt { try store.refresh() })
                box.note(TrialSix.attempt { try store.write {} })
            } catch { box.note("error \(error)") }
        }
        let finished = thread.wait(timeout: .now() + 5) == .success
        if !finished { box.get?.cancel() }
        #expect(finished)
        #expect(
            box.said == [
                "count 1", "\(StoreError.writeOnAnotherThread)", "\(StoreError.writeOnAnotherThread)",
                "\(StoreError.writeOnAnotherThread)", "ok", "\(StoreError.alreadyInWriteTransaction)",
            ])
        // Parked again after those reads: this thread can go on with it and commit.
        let other = TrialSix.onThread {
            box.note(
                TrialSix.attempt { try box.get?.perform { _ = try store.create(TrialSix.Note.self, value: [2, "b"]) } })
            box.note(TrialSix.attempt { try box.get?.commit() })
        }
        #expect(other.wait(timeout: .now() + 5) == .success)
        #expect(box.said.suffix(2) == ["ok", "ok"])
        #expect(try store.objects(TrialSix.Note.self).count == 2)
        #expect(try store.connection.integer("SELECT count(*) FROM Note WHERE id = 9") == 0)
    }

    @Test(
        "A task holding a parked write that awaits asyncWrite waits for itself, but cancelling the task ends the wait with CancellationError (it hung for good, cancel or not)"
    )
    func asyncWriteWhileHoldingAHandleHonoursCancellation() async throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let box = Review2Box()
        let task = Task {
            do {
                let w = try await store.beginWrite()
                box.set(w)
                try w.perform { _ = try store.create(TrialSix.Note.self, value: [1, "a"]) }
                try await store.asyncWrite { try store.create(TrialSix.Note.self, value: [2, "b"]) }
                box.note("asyncWrite returned")
            } catch is CancellationError {
                box.note("cancelled")
            } catch { box.note("error \(error)") }
        }
        try await Task.sleep(for: .milliseconds(500))
        task.cancel()
        var waited = 0
        while box.said.isEmpty && waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        let said = box.said
        box.get?.cancel()
        _ = await task.value
        #expect(said == ["cancelled"])
        #expect(TrialEight.writeFinishes(store, id: 3))
        #expect(try TrialSix.committedIDs(path) == [3])
    }

    @Test(
        "commitWrite() on the thread that began a write, after its handle was used, says the write is the handle's (it said the write was begun on another thread)"
    )
    func commitWriteAfterPerformSaysTheHandleHoldsIt() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let box = Review2Box()
        let thread = TrialSix.onThread {
            do {
                let w = try store.beginWrite()
                box.set(w)
                try w.perform { _ = try store.create(TrialSix.Note.self, value: [1, "a"]) }
                box.note(TrialSix.attempt { try store.commitWrite() })
                box.note(TrialSix.attempt { _ = try store.create(TrialSix.Note.self, value: [2, "b"]) })
                try w.commit()
            } catch { box.note("error \(error)") }
        }
        #expect(thread.wait(timeout: .now() + 5) == .success)
        let message = StoreError.writeOnAnotherThread.description
        #expect(box.said == [message, message])
        #expect(message.contains("once its WriteTransaction was used"))
        #expect(!message.contains("begun on another thread"))
        #expect(try TrialSix.committedIDs(path) == [1])
    }

    @Test(
        "perform inside a file store's read { } throws writeInsideRead, as write { } there (the read would not see it); the write stays open for the handle"
    )
    func performInsideReadIsRefused() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let box = Review2Box()
        let thread = TrialSix.onThread {
            do {
                let w = try store.beginWrite()
                try w.perform { _ = try store.create(TrialSix.Note.self, value: [1, "a"]) }
                box.set(w)
            } catch { box.note("error \(error)") }
        }
        #expect(thread.wait(timeout: .now() + 5) == .success)
        let w = try #require(box.get)
        #expect(throws: StoreError.writeInsideRead) {
            try store.read { try w.perform { _ = try store.create(TrialSix.Note.self, value: [2, "b"]) } }
        }
        #expect(w.isOpen)
        try w.commit()
        #expect(box.said.isEmpty)
        #expect(try TrialSix.committedIDs(path) == [1])
    }
}
