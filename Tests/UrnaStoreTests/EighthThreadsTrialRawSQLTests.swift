import Foundation
import Testing
import UrnaStore

/// The eighth threads trial's findings on raw SQL and the store's caches: each test was seen failing before its fix.
@Suite("Eighth threads trial: raw SQL in an in-memory read, ROLLBACK TO a savepoint")
struct EighthThreadsTrialRawSQLTests {
    @Test(
        "Raw SQL inside an in-memory store's read { } is seen by the objects and results read before it, and observers hear of it (the object kept the old text)"
    )
    func rawSQLInsideInMemoryRead() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        try store.write { try store.create(TrialSix.Note.self, value: [1, "before"]) }
        let note = try #require(try store.object(ofType: TrialSix.Note.self, forPrimaryKey: 1))
        let results = try store.objects(TrialSix.Note.self).filter("text == %@", "after")
        #expect(note.text == "before")
        #expect(try results.count == 0)
        let heard = DispatchSemaphore(value: 0)
        let token = store.observe { change in
            if change.possiblyChanged.contains("Note") { heard.signal() }
        }
        try store.read { try store.connection.run("UPDATE Note SET text = 'after' WHERE id = 1") }
        #expect(note.text == "after")
        #expect(try results.count == 1)
        #expect(heard.wait(timeout: .now() + 5) == .success)
        token.invalidate()
    }

    @Test(
        "With raw transactions allowed, a value read before ROLLBACK TO a savepoint is not kept after it (the cached object answered the rolled-back text, results the rolled-back count)"
    )
    func rawRollbackToSavepointInvalidatesCaches() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        try store.write { try store.create(TrialSix.Note.self, value: [1, "before"]) }
        store.connection.allowRawTransactionsFromOneThread()
        let note = try #require(try store.object(ofType: TrialSix.Note.self, forPrimaryKey: 1))
        let results = try store.objects(TrialSix.Note.self).filter("text == %@", "phantom")
        try store.connection.execute("BEGIN")
        try store.connection.execute("SAVEPOINT sp")
        try store.connection.run("UPDATE Note SET text = 'phantom' WHERE id = 1")
        #expect(note.text == "phantom")
        #expect(try results.count == 1)
        try store.connection.execute("ROLLBACK TO sp")
        #expect(note.text == "before")
        #expect(try results.count == 0)
        try store.connection.execute("COMMIT")
        #expect(note.text == "before")
    }
}
