import Foundation
import Testing
import UrnaStore

/// One Store shared by tasks and threads, through the public API only (what an app compiles in Swift 6).
@Suite("One store shared by threads and tasks")
struct ConcurrencyTests {
    static let schema = try! Schema(
        family: "concurrency", version: 1,
        types: [
            ObjectSchema("Note", [Property("id", .int64, primaryKey: true), Property("text", .string, default: "")])
        ])

    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-conc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("notes.sqlite").path)
    }

    @Test("8 tasks x 100 writes on one Store: 800 rows, no error")
    func tasksShareOneStore() async throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<100 {
                        try store.write { try store.create("Note", value: ["id": t * 1000 + i, "text": "task \(t)"]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.objects("Note").count == 800)
        let reopened = try Store(path: path, schema: Self.schema)
        #expect(try reopened.objects("Note").count == 800)
        #expect(try reopened.objects("Note").filter("text == %@", "task 7").count == 100)
    }

    @Test("Unstructured Task { try store.write { ... } } compiles and commits")
    func unstructuredTasks() async throws {
        let store = try Store.inMemory(schema: Self.schema)
        var tasks: [Task<Void, Error>] = []
        for t in 0..<8 {
            tasks.append(
                Task { for i in 0..<25 { try store.write { try store.create("Note", value: ["id": t * 100 + i]) } } })
        }
        for task in tasks { try await task.value }
        #expect(try store.objects("Note").count == 200)
    }

    @Test("Threads writing at once queue for the writer instead of failing")
    func threadsShareOneStore() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        let failures = ChangeRecorder<String>()
        DispatchQueue.concurrentPerform(iterations: 6) { t in
            for i in 0..<50 {
                do {
                    try store.write {
                        try store.create("Note", value: ["id": t * 1000 + i])
                        // Reads inside the write see its own rows.
                        _ = try store.objects("Note").count
                    }
                } catch { failures.append("\(error)") }
            }
        }
        #expect(failures.all == [])
        #expect(try store.objects("Note").count == 300)
    }

    @Test("A write waits while another thread holds a write transaction, then commits")
    func secondWriterWaits() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try store.beginWrite()
        try store.create("Note", value: ["id": 1])
        let done = DispatchSemaphore(value: 0)
        let outcome = ChangeRecorder<String>()
        Thread.detachNewThread {
            do {
                try store.write { try store.create("Note", value: ["id": 2]) }
                outcome.append("ok")
            } catch { outcome.append("\(error)") }
            done.signal()
        }
        // The other thread is blocked on the writer; a reader on this thread's pool sees only committed rows.
        #expect(done.wait(timeout: .now() + 0.3) == .timedOut)
        try store.commitWrite()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.all == ["ok"])
        #expect(try store.objects("Note").count == 2)
    }

    @Test("Readers on other threads see only committed state and never fail during writes")
    func readersBesideTheWriter() async throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        let writer = Task {
            for i in 0..<200 { try store.write { try store.create("Note", value: ["id": i]) } }
        }
        let reader = Task { () throws -> [Int] in
            var seen: [Int] = []
            for _ in 0..<200 { seen.append(try store.objects("Note").count) }
            return seen
        }
        try await writer.value
        let seen = try await reader.value
        #expect(seen == seen.sorted(), "a reader never sees rows disappear")
        #expect(try store.objects("Note").count == 200)
    }

    @Test("asyncWrite and asyncRead from many tasks")
    func asyncVariants() async throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<20 {
                        try await store.asyncWrite { _ = try store.create("Note", value: ["id": t * 100 + i]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await store.asyncRead { try store.objects("Note").count }
        #expect(count == 160)
    }

    @Test("Nested write on the same thread is refused with a clear error, the outer write goes on")
    func nestedWriteIsRefused() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write {
            try store.create("Note", value: ["id": 1])
            #expect(throws: StoreError.alreadyInWriteTransaction) { try store.write {} }
            #expect(store.isInWriteTransaction)
        }
        #expect(!store.isInWriteTransaction)
        #expect(try store.objects("Note").count == 1)
    }

    @Test("A create outside a write on another thread is refused, not slipped into that thread's write")
    func writeFromAnotherThreadIsNotMixedIn() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.beginWrite()
        let outcome = ChangeRecorder<String>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                _ = try store.create("Note", value: ["id": 9])
                outcome.append("created")
            } catch { outcome.append("\(error)") }
            done.signal()
        }
        done.wait()
        store.cancelWrite()
        // Refused with the reason: this thread has none, and the open write is another thread's (or its handle's).
        #expect(outcome.all == [StoreError.writeOnAnotherThread.description])
        #expect(try store.objects("Note").count == 0)
    }
}
