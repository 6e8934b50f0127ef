import Foundation
import Testing

@testable import UrnaStore

/// The third review's store reproductions: what a thread sees after `perform { }` parks a write, `refresh()` on the
/// parker while another thread's refresh waits for the write, and a family table replaced by a view in a file opened
/// without a model.
@Suite("Third review: store")
struct ThirdReviewStoreTests {
    /// A file store: after `w.perform { }` on this thread, an object read and set inside it answers the last commit.
    @Test func anObjectReadInsidePerformAnswersTheCommitAfterIt() throws {
        let f = try WriteTransactionFixture()
        try f.store.write { try f.store.create(TrialSix.Note.self, value: [1, "committed"]) }
        let n = try #require(try f.store.object(ofType: TrialSix.Note.self, forPrimaryKey: .int(1)))
        let w = try f.store.beginWrite()
        let inside = try w.perform { () -> String in
            n.text = "uncommitted"
            return n.text
        }
        #expect(inside == "uncommitted")
        #expect(n.text == "committed")
        try w.perform { #expect(n.text == "uncommitted") }
        #expect(n.text == "committed")
        try w.commit()
        #expect(n.text == "uncommitted")
    }

    /// A file store: a `Results` counted inside `perform { }` counts the last commit after it.
    @Test func resultsCountedInsidePerformCountTheCommitAfterIt() throws {
        let f = try WriteTransactionFixture()
        try f.store.write { try f.store.create(TrialSix.Note.self, value: [1, "committed"]) }
        let r = try f.store.objects(TrialSix.Note.self)
        #expect(try r.count == 1)
        let w = try f.store.beginWrite()
        let inside = try w.perform { () -> Int in
            try f.store.create(TrialSix.Note.self, value: [2, "uncommitted"])
            return try r.count
        }
        #expect(inside == 2)
        #expect(try r.count == 1)
        w.cancel()
        #expect(try r.count == 1)
    }

    /// A file store: an object created inside `perform { }` is not in the last commit after it, and is once the write
    /// commits (it was not taken for deleted for good).
    @Test func anObjectCreatedInsidePerformIsMissingAfterItUntilTheCommit() throws {
        let f = try WriteTransactionFixture()
        let w = try f.store.beginWrite()
        let n = try w.perform { try f.store.create(TrialSix.Note.self, value: [7, "ghost"]) }
        #expect(n.isInvalidated)
        try w.commit()
        #expect(!n.isInvalidated)
        #expect(n.text == "ghost")
    }

    /// The thread that parked a write calls `refresh()` while another thread's `refresh()` waits for the write: it is
    /// refused (`parkedWriteOnThisThread`) and can commit, in each of three rounds.
    @Test func theParkersRefreshIsRefusedWhileAnotherRefreshWaits() throws {
        for _ in 0..<3 {
            let f = try WriteTransactionFixture()
            let store = f.store
            let parked = DispatchSemaphore(value: 0)
            let go = DispatchSemaphore(value: 0)
            let outcome = TrialSix.Outcome()
            let parker = TrialSix.onThread {
                do {
                    let w = try store.beginWrite()
                    f.keep(w)
                    try w.perform { try store.create(TrialSix.Note.self, value: [1, "in write"]) }
                } catch { outcome.set("perform", "\(error)") }
                parked.signal()
                go.wait()
                do {
                    _ = try store.refresh()
                    outcome.set("refresh", "ok")
                } catch { outcome.set("refresh", "\(error)") }
                do {
                    try f.handle.commit()
                    outcome.set("commit", "ok")
                } catch { outcome.set("commit", "\(error)") }
            }
            parked.wait()
            let other = TrialSix.onThread { _ = try? store.refresh() }
            // Until the other thread holds refreshLock (it waits inside it for the parked write): bounded rounds.
            var rounds = 0
            while store.refreshLock.try() {
                store.refreshLock.unlock()
                rounds += 1
                try #require(rounds < 100_000, "the other refresh never took refreshLock")
                usleep(1000)
            }
            go.signal()
            // A hang guard (not a speed check): when the parker hangs, the write is cancelled from here.
            let finished = parker.wait(timeout: .now() + 10) == .success
            if !finished {
                f.kept?.cancel()
                _ = parker.wait(timeout: .now() + 10)
            }
            _ = other.wait(timeout: .now() + 10)
            #expect(finished)
            #expect(outcome["refresh"] == "\(StoreError.parkedWriteOnThisThread)")
            #expect(outcome["commit"] == "ok")
            #expect(try f.committedIDs() == [1])
        }
    }
}

/// A file whose family table was replaced by a view, opened without a model.
@Suite("Third review: planted views")
struct ThirdReviewPlantedViewTests {
    @Test func openExistingRefusesAFamilyTableHeldAsAView() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let s = try Store(path: path, schema: try TrialSix.schema())
            try s.write { try s.create(TrialSix.Note.self, value: [1, "real"]) }
        }
        do {
            let c = try Connection(path: path)
            try c.execute("DROP TABLE Note")
            try c.execute("CREATE VIEW Note AS SELECT 41 AS id, 'made up' AS text UNION ALL SELECT 42, 'made up too'")
        }
        var modelError = ""
        do { _ = try Store(path: path, schema: try TrialSix.schema()) } catch { modelError = "\(error)" }
        #expect(!modelError.isEmpty)
        for readOnly in [true, false] {
            var error = ""
            do { _ = try Store.openExisting(path: path, readOnly: readOnly) } catch let e { error = "\(e)" }
            #expect(error == modelError)
        }
    }
}
