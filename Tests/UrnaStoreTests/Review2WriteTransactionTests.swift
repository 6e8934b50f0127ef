import Foundation
import Testing
import UrnaStore

/// Defects the second review of `WriteTransaction` found: each test was seen crashing or hanging before its fix.
@Suite("Review2: WriteTransaction races and self-waits")
struct Review2WriteTransactionTests {
    @Test(
        "The thread that began a write keeps creating while another commits through its handle: every create that returned is committed (the thread entered the write after it had moved, two threads used one connection, and unlock trapped)"
    )
    func commitRacesBeginnerCreates() throws {
        let f = try WriteTransactionFixture()
        var nextID = 1
        for round in 0..<5000 {
            let began = DispatchSemaphore(value: 0)
            let start = nextID
            nextID += 100_000
            let thread = TrialSix.onThread {
                do { f.kept = try f.store.beginWrite() } catch {
                    f.note("begin \(error)")
                    began.signal()
                    return
                }
                began.signal()
                var i = start
                while (try? f.store.create(TrialSix.Note.self, value: [i, "x"])) != nil {
                    f.add(Int64(i))
                    i += 1
                }
            }
            began.wait()
            usleep(UInt32(round % 7) * 100)
            #expect(throws: Never.self) { try f.kept?.commit() }
            #expect(thread.wait(timeout: .now() + 10) == .success)
            f.kept = nil
        }
        #expect(f.said.isEmpty)
        #expect(Set(f.ids).subtracting(try f.committedIDs()).isEmpty)
    }

    @Test(
        "write { }, beginWrite() and refresh() on the thread that used a write through its handle are refused with parkedWriteOnThisThread (they waited for themselves for good, then said alreadyInWriteTransaction); its reads see the last commit; the handle then commits"
    )
    func writeAfterPerformOnTheSameThread() throws {
        let f = try WriteTransactionFixture()
        let finished = f.finishesOnThread(within: 5) {
            do {
                let w = try f.store.beginWrite()
                f.kept = w
                try w.perform { _ = try f.store.create(TrialSix.Note.self, value: [1, "a"]) }
                f.attempt { try f.store.write { _ = try f.store.create(TrialSix.Note.self, value: [2, "b"]) } }
                f.attempt { _ = try f.store.beginWrite() }
                f.note("read \((try? f.store.objects(TrialSix.Note.self).count) ?? -1)")
                f.attempt { try f.store.refresh() }
            } catch { f.note("error \(error)") }
        }
        #expect(finished)
        let refused = "\(StoreError.parkedWriteOnThisThread)"
        #expect(f.said == [refused, refused, "read 0", refused])
        try f.kept?.commit()
        #expect(try f.committedIDs() == [1])
        #expect(f.writeFinishes(id: 3))
    }

    @Test(
        "In memory, reads, raw SQL and write { } on the thread that used a write through its handle are refused with parkedWriteOnThisThread (its reads saw the uncommitted write), refresh() has nothing to catch up with; another thread then commits it"
    )
    func inMemoryReadsAfterPerform() throws {
        let f = try WriteTransactionFixture(inMemory: true)
        let store = f.store
        let finished = f.finishesOnThread(within: 5) {
            do {
                let w = try store.beginWrite()
                f.kept = w
                try w.perform { _ = try store.create(TrialSix.Note.self, value: [1, "a"]) }
                f.attempt { _ = try store.objects(TrialSix.Note.self).count }
                // Raw SQL there (a reused thread's unrelated work) never runs inside the handle's write: an INSERT
                // joined it, a ROLLBACK ended it, a ROLLBACK TO took back its rows.
                f.attempt { _ = try store.connection.integer("SELECT count(*) FROM Note") }
                f.attempt { try store.connection.execute("INSERT INTO Note VALUES (9, 'joined')") }
                f.attempt { try store.connection.execute("ROLLBACK") }
                f.attempt { try store.refresh() }
                f.attempt { try store.write {} }
            } catch { f.note("error \(error)") }
        }
        #expect(finished)
        let refused = "\(StoreError.parkedWriteOnThisThread)"
        #expect(f.said == [refused, refused, refused, refused, "ok", refused])
        // Still parked after those calls: another thread goes on with it and commits.
        #expect(
            f.finishesOnThread {
                f.attempt { try f.kept?.perform { _ = try store.create(TrialSix.Note.self, value: [2, "b"]) } }
                f.attempt { try f.kept?.commit() }
            })
        #expect(f.said.suffix(2) == ["ok", "ok"])
        #expect(try store.objects(TrialSix.Note.self).count == 2)
        #expect(try store.connection.integer("SELECT count(*) FROM Note WHERE id = 9") == 0)
    }

    @Test(
        "A task holding a parked write that awaits asyncWrite waits for itself, but cancelling the task ends the wait with CancellationError (it hung for good, cancel or not)"
    )
    func asyncWriteWhileHoldingAHandleHonoursCancellation() async throws {
        let f = try WriteTransactionFixture()
        let task = Task {
            do {
                let w = try await f.store.beginWrite()
                f.kept = w
                try w.perform { _ = try f.store.create(TrialSix.Note.self, value: [1, "a"]) }
                try await f.store.asyncWrite { try f.store.create(TrialSix.Note.self, value: [2, "b"]) }
                f.note("asyncWrite returned")
            } catch is CancellationError {
                f.note("cancelled")
            } catch { f.note("error \(error)") }
        }
        try await Task.sleep(for: .milliseconds(500))
        task.cancel()
        var waited = 0
        while f.said.isEmpty && waited < 100 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        let said = f.said
        f.kept?.cancel()
        _ = await task.value
        #expect(said == ["cancelled"])
        #expect(f.writeFinishes(id: 3))
        #expect(try f.committedIDs() == [3])
    }

    @Test(
        "commitWrite() on the thread that began a write, after its handle was used, says the write is the handle's (it said the write was begun on another thread)"
    )
    func commitWriteAfterPerformSaysTheHandleHoldsIt() throws {
        let f = try WriteTransactionFixture()
        let finished = f.finishesOnThread(within: 5) {
            do {
                let w = try f.store.beginWrite()
                f.kept = w
                try w.perform { _ = try f.store.create(TrialSix.Note.self, value: [1, "a"]) }
                f.attempt { try f.store.commitWrite() }
                f.attempt { _ = try f.store.create(TrialSix.Note.self, value: [2, "b"]) }
                try w.commit()
            } catch { f.note("error \(error)") }
        }
        #expect(finished)
        let message = StoreError.writeOnAnotherThread.description
        #expect(f.said == [message, message])
        #expect(message.contains("once its WriteTransaction was used"))
        #expect(!message.contains("begun on another thread"))
        #expect(try f.committedIDs() == [1])
    }

    @Test(
        "perform inside a file store's read { } throws writeInsideRead, as write { } there (the read would not see it); the write stays open for the handle"
    )
    func performInsideReadIsRefused() throws {
        let f = try WriteTransactionFixture()
        let finished = f.finishesOnThread(within: 5) {
            do {
                let w = try f.store.beginWrite()
                try w.perform { _ = try f.store.create(TrialSix.Note.self, value: [1, "a"]) }
                f.kept = w
            } catch { f.note("error \(error)") }
        }
        #expect(finished)
        let w = try #require(f.kept)
        #expect(throws: StoreError.writeInsideRead) {
            try f.store.read { try w.perform { _ = try f.store.create(TrialSix.Note.self, value: [2, "b"]) } }
        }
        #expect(w.isOpen)
        try w.commit()
        #expect(f.said.isEmpty)
        #expect(try f.committedIDs() == [1])
    }
}
