import Foundation
import Testing
import UrnaStore

/// Models and helpers for `SixthThreadsTrialTests`, in a namespace because this test target has other models.
enum TrialSix {
    final class Note: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var text = ""
    }

    static func schema() throws -> Schema { try Schema(family: "trialsix", version: 1, models: [Note.self]) }

    /// A new file in its own temporary folder.
    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-trialsix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("notes.sqlite").path)
    }

    /// The ids of the notes the file holds, read by a connection of its own (what is really committed).
    static func committedIDs(_ path: String) throws -> [Int64] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows("SELECT id FROM Note ORDER BY id").compactMap {
            if case .integer(let i) = $0[0] { i } else { nil }
        }
    }

    /// What a thread did, for the test's thread to read after joining it.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: String] = [:]
        func set(_ key: String, _ value: String) { lock.withLock { values[key] = value } }
        subscript(key: String) -> String? { lock.withLock { values[key] } }
    }

    /// Runs `body` on a thread of its own and returns a semaphore signalled when it is done.
    static func onThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done
    }

    /// "ok", or the error's description.
    static func attempt(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "ok"
        } catch {
            return "\(error)"
        }
    }
}

/// Defects the sixth threads trial found: each test was seen failing before its fix.
@Suite("Sixth threads trial: raw transactions on store.connection beside other threads")
struct SixthThreadsTrialTests {
    @Test(
        "A raw BEGIN on store.connection outside a write is rolled back at once and refused: left open it was shared with every thread (their raw INSERT joined it and was rolled back with it), held for its thread it hung the store when its end came from another thread or never came"
    )
    func rawTransactionOnTheWriterConnection() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        #expect(throws: StoreError.rawTransactionOutsideWrite) { try store.connection.execute("BEGIN IMMEDIATE") }
        #expect(!store.connection.isInTransaction)
        // A prepared BEGIN, a SAVEPOINT, and a script that leaves its transaction open: the same.
        #expect(throws: StoreError.rawTransactionOutsideWrite) { try store.connection.prepare("BEGIN").step() }
        #expect(throws: StoreError.rawTransactionOutsideWrite) { try store.connection.execute("SAVEPOINT s") }
        #expect(throws: StoreError.rawTransactionOutsideWrite) {
            try store.connection.execute("BEGIN; INSERT INTO Note(id, text) VALUES (1, 'rolled back')")
        }
        // A script that fails inside its transaction leaves nothing open (it was left open, and every other
        // thread's statement then ran inside it).
        #expect(throws: SQLiteError.self) {
            try store.connection.execute(
                "BEGIN; INSERT INTO Note(id, text) VALUES (5, 'x'); INSERT INTO Nope VALUES (1)")
        }
        #expect(!store.connection.isInTransaction)
        // A whole transaction in one call is fine, and so is raw SQL inside a store's write.
        try store.connection.execute("BEGIN; INSERT INTO Note(id, text) VALUES (2, 'one call'); COMMIT")
        try store.write { try store.connection.run("INSERT INTO Note(id, text) VALUES (3, 'inside a write')") }
        // Another thread's write and raw INSERT go through at once (no lock is left held by the refused BEGIN).
        let outcome = TrialSix.Outcome()
        let begun = TrialSix.onThread {
            outcome.set("raw", TrialSix.attempt { try store.connection.execute("BEGIN IMMEDIATE") })
        }
        begun.wait()
        let writer = TrialSix.onThread {
            outcome.set(
                "write",
                TrialSix.attempt { try store.write { try store.create(TrialSix.Note.self, value: [4, "write"]) } })
        }
        let rawInsert = TrialSix.onThread {
            outcome.set(
                "raw insert",
                TrialSix.attempt { try store.connection.run("INSERT INTO Note(id, text) VALUES (6, 'raw')") })
        }
        for done in [writer, rawInsert] { done.wait() }
        #expect(outcome["raw"] != "ok")
        #expect(outcome["write"] == "ok")
        #expect(outcome["raw insert"] == "ok")
        #expect(try TrialSix.committedIDs(path) == [2, 3, 4, 6])
    }

    @Test("An async task's raw BEGIN is refused at once, not left to be ended from the thread it resumes on")
    func rawTransactionAcrossAnAwait() async throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        await #expect(throws: StoreError.rawTransactionOutsideWrite) {
            try store.connection.execute("BEGIN IMMEDIATE")
            try await Task.sleep(nanoseconds: 20_000_000)
            try store.connection.execute("COMMIT")
        }
        try await store.asyncWrite { try store.create(TrialSix.Note.self, value: [1, "after"]) }
        #expect(try TrialSix.committedIDs(path) == [1])
    }

    @Test(
        "Two threads asking store.connection for one cached statement get one each: the second no longer resets and rebinds the first's, which then read the second's row"
    )
    func cachedStatementAskedForByTwoThreads() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        try store.write {
            try store.create(TrialSix.Note.self, value: [1, "one"])
            try store.create(TrialSix.Note.self, value: [2, "two"])
        }
        let sql = "SELECT text FROM Note WHERE id = ?"
        let bound = DispatchSemaphore(value: 0)
        let rebound = DispatchSemaphore(value: 0)
        let outcome = TrialSix.Outcome()
        let first = TrialSix.onThread {
            outcome.set(
                "first",
                TrialSix.attempt {
                    let s = try store.connection.cachedStatement(sql)
                    try s.bind([.integer(1)])
                    bound.signal()
                    rebound.wait()
                    outcome.set("first read", try s.step() ? "\(s.value(at: 0))" : "no row")
                    s.reset()
                })
        }
        bound.wait()
        let second = TrialSix.onThread {
            outcome.set(
                "second",
                TrialSix.attempt {
                    let s = try store.connection.cachedStatement(sql)
                    try s.bind([.integer(2)])
                    rebound.signal()
                    outcome.set("second read", try s.step() ? "\(s.value(at: 0))" : "no row")
                    s.reset()
                })
        }
        first.wait()
        second.wait()
        #expect(outcome["first"] == "ok")
        #expect(outcome["second"] == "ok")
        #expect(outcome["first read"] == "\(SQLValue.text("one"))")
        #expect(outcome["second read"] == "\(SQLValue.text("two"))")
        // Asked for again once both are done, the cache still serves it.
        #expect(try store.connection.rows(sql, [.integer(1)]) == [[.text("one")]])
    }

    @Test(
        "A raw COMMIT on store.connection inside write { } rolls the whole write back and throws commitInsideWriteBlock (it committed the first half, then the write threw 'rolled back')"
    )
    func rawCommitInsideWriteBlock() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        #expect(throws: StoreError.commitInsideWriteBlock) {
            try store.write {
                try store.create(TrialSix.Note.self, value: [1, "first half"])
                try store.connection.execute("COMMIT")
                try store.create(TrialSix.Note.self, value: [2, "second half"])
            }
        }
        #expect(try store.objects(TrialSix.Note.self).count == 0)
        #expect(throws: StoreError.commitInsideWriteBlock) {
            try store.write {
                try store.create(TrialSix.Note.self, value: [1, "first half"])
                try store.connection.execute("END")
            }
        }
        #expect(try store.objects(TrialSix.Note.self).count == 0)
        // The store goes on: its own commits are not refused.
        try store.write { try store.create(TrialSix.Note.self, value: [3, "after"]) }
        #expect(try store.objects(TrialSix.Note.self).count == 1)
    }
}
