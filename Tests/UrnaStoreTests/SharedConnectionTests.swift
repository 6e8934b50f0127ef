import Foundation
import Synchronization
import Testing
import UrnaStore

/// `store.connection` is public and `Store` is `Sendable`: raw SQL on it from several threads (what a Swift 6
/// app compiles) must neither join another thread's open write nor share cached statements.
@Suite("The store's writer connection used from several threads")
struct SharedConnectionTests {
    static let schema = try! Schema(
        family: "shared", version: 1,
        types: [ObjectSchema("Note", [Property("id", .int64, primaryKey: true), Property("n", .int64, default: 0)])])

    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-shared-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("notes.sqlite").path)
    }

    @Test("A raw INSERT from another thread while a write is open survives that write's rollback")
    func rawStatementDoesNotJoinAnotherThreadsWrite() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        let rawReturned = DispatchSemaphore(value: 0)
        let rawError = Mutex<String?>(nil)
        try store.beginWrite()
        try store.create("Note", value: ["id": 1])
        Thread.detachNewThread {
            do { try store.connection.run("INSERT INTO \"Note\"(id, n) VALUES (2, 0)") } catch {
                rawError.withLock { $0 = "\(error)" }
            }
            rawReturned.signal()
        }
        // Before the fix the raw INSERT ran at once, inside this write; now it waits for the write to end. Either
        // way it has had its chance to run (or to start waiting) after this pause.
        let returnedDuringWrite = rawReturned.wait(timeout: .now() + 0.3) == .success
        store.cancelWrite()
        if !returnedDuringWrite { rawReturned.wait() }
        #expect(rawError.withLock { $0 } == nil)
        let ids = try store.objects("Note").objects().map { $0.primaryKeyValue.intValue }
        #expect(ids == [2], "the raw INSERT that returned without error must be in the file; note 1 was rolled back")
    }

    @Test("Raw reads on the writer from 4 threads while a 5th writes: every count is right")
    func rawReadsFromSeveralThreads() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try store.write { for i in 0..<100 { try store.create("Note", value: ["id": i, "n": i]) } }
        let wrong = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let group = DispatchGroup()
        for t in 0..<5 {
            group.enter()
            Thread.detachNewThread {
                for i in 0..<1500 {
                    do {
                        if t == 0 {
                            if i % 5 == 0 { try store.write { try store.create("Note", value: ["id": 1000 + i]) } }
                        } else {
                            let sql =
                                t % 2 == 0
                                ? "SELECT count(*) FROM \"Note\" WHERE id < ?"
                                : "SELECT sum(n) FROM \"Note\" WHERE id < ?"
                            let v = try store.connection.integer(sql, [.integer(100)])
                            if v != (t % 2 == 0 ? 100 : 4950) { wrong.add(1, ordering: .relaxed) }
                        }
                    } catch { failures.add(1, ordering: .relaxed) }
                }
                group.leave()
            }
        }
        group.wait()
        #expect(wrong.load(ordering: .relaxed) == 0)
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
