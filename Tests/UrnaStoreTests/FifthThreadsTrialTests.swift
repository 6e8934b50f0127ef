import Foundation
import Testing
import UrnaStore

/// Models and helpers for `FifthThreadsTrialTests`, in a namespace because this test target has other models.
enum TrialFive {
    final class Ticket: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
    }

    static func schema() throws -> Schema { try Schema(family: "trialfive", version: 1, models: [Ticket.self]) }

    /// A new file in its own temporary folder.
    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-trialfive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("tickets.sqlite").path)
    }

    /// Counts shared with consumer tasks.
    final class Counts: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: Int] = [:]
        func add(_ key: String, _ n: Int = 1) { lock.withLock { values[key, default: 0] += n } }
        subscript(key: String) -> Int { lock.withLock { values[key] ?? 0 } }
    }

    /// A message shared with another thread.
    final class Message: @unchecked Sendable {
        private let lock = NSLock()
        private var value = ""
        func set(_ s: String) { lock.withLock { value = s } }
        var text: String { lock.withLock { value } }
    }

    /// Waits until `done()` or about `seconds` (a bound on the test, not a timing check: the expectations after it
    /// say what was heard).
    static func wait(upTo seconds: Double, until done: () -> Bool) async throws {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !done() && ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(10)) }
    }
}

/// Defects the fifth threads trial (`Examples/threads-trial`: streams, lifetimes) found: each was seen failing before
/// its fix.
@Suite("Fifth threads trial: observation streams shared by tasks or outliving the store, statements outliving it")
struct FifthThreadsTrialTests {
    @Test("One store.changes sequence iterated by two tasks: each hears every commit (an AsyncStream split them)")
    func storeChangesSharedByTwoTasks() async throws {
        let store = try Store.inMemory(schema: try TrialFive.schema())
        let changes = store.changes
        let heard = TrialFive.Counts()
        let consumers = ["a", "b"].map { name in
            Task {
                for await change in changes {
                    heard.add(name, change.inserted["Ticket"] ?? 0)
                    if heard[name] >= 20 { break }
                }
            }
        }
        // Both iterators exist before the first write (an iterator hears the commits made after it began).
        try await Task.sleep(for: .milliseconds(50))
        for i in 0..<20 { try store.write { try store.create(TrialFive.Ticket.self, value: [i, "t\(i)"]) } }
        try await TrialFive.wait(upTo: 10) { heard["a"] >= 20 && heard["b"] >= 20 }
        for c in consumers { c.cancel() }
        #expect(heard["a"] == 20)
        #expect(heard["b"] == 20)
    }

    @Test("One results.changes sequence iterated by two tasks: each gets .initial and every update (it trapped)")
    func resultsChangesSharedByTwoTasks() async throws {
        let store = try Store.inMemory(schema: try TrialFive.schema())
        let changes = try store.objects(TrialFive.Ticket.self).changes
        let last = TrialFive.Counts()
        let consumers = ["a", "b"].map { name in
            Task {
                var first = true
                for try await change in changes {
                    if first, case .initial = change { last.add("\(name) initial") }
                    first = false
                    if case .update(let count, _, _, _) = change {
                        last.add("\(name) updates")
                        if count == 10 { break }
                    }
                }
            }
        }
        try await TrialFive.wait(upTo: 10) { last["a initial"] == 1 && last["b initial"] == 1 }
        for i in 0..<10 { try store.write { try store.create(TrialFive.Ticket.self, value: [i, "t\(i)"]) } }
        try await TrialFive.wait(upTo: 10) { last["a updates"] >= 10 && last["b updates"] >= 10 }
        for c in consumers { c.cancel() }
        #expect(last["a initial"] == 1 && last["b initial"] == 1)
        #expect(last["a updates"] == 10)
        #expect(last["b updates"] == 10)
    }

    @Test("One object.changes sequence iterated by two tasks: both hear the change and the deletion")
    func objectChangesSharedByTwoTasks() async throws {
        let store = try Store.inMemory(schema: try TrialFive.schema())
        try store.write { try store.create(TrialFive.Ticket.self, value: [1, "a"]) }
        let changes = try #require(try store.object(ofType: TrialFive.Ticket.self, forPrimaryKey: 1)).changes
        let heard = TrialFive.Counts()
        let consumers = ["a", "b"].map { name in
            Task {
                for try await change in changes {
                    heard.add(change == .deleted ? "\(name) deleted" : "\(name) changed")
                }
                heard.add("\(name) ended")
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        try store.write { try #require(try store.object(ofType: TrialFive.Ticket.self, forPrimaryKey: 1)).title = "b" }
        try store.write {
            try store.delete(try #require(try store.object(ofType: TrialFive.Ticket.self, forPrimaryKey: 1)))
        }
        try await TrialFive.wait(upTo: 10) { heard["a ended"] == 1 && heard["b ended"] == 1 }
        for c in consumers { c.cancel() }
        for name in ["a", "b"] {
            #expect(heard["\(name) changed"] == 1)
            #expect(heard["\(name) deleted"] == 1)
        }
    }

    @Test("store.changes still being iterated ends when the store is released (it waited forever)")
    func storeChangesEndWithTheStore() async throws {
        let (dir, path) = try TrialFive.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        var store: Store? = try Store(path: path, schema: try TrialFive.schema())
        let changes = try #require(store).changes
        let state = TrialFive.Counts()
        let consumer = Task {
            for await _ in changes { state.add("heard") }
            if !Task.isCancelled { state.add("ended by itself") }
        }
        try store?.write { try store?.create(TrialFive.Ticket.self, value: [1, "a"]) }
        try await TrialFive.wait(upTo: 10) { state["heard"] == 1 }
        weak let released = store
        store = nil
        #expect(released == nil, "nothing else holds the store")
        try await TrialFive.wait(upTo: 10) { state["ended by itself"] == 1 }
        consumer.cancel()
        await consumer.value
        #expect(state["heard"] == 1)
        #expect(state["ended by itself"] == 1)
        // A new iteration of a sequence whose store is gone ends at once.
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @Test("A statement prepared on store.connection can be stepped after the store is released (it crashed)")
    func preparedStatementOutlivesTheStore() throws {
        let (dir, path) = try TrialFive.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        var store: Store? = try Store(path: path, schema: try TrialFive.schema())
        try store?.write { try store?.create(TrialFive.Ticket.self, value: [1, "a"]) }
        let statement = try #require(try store?.connection.prepare("SELECT count(*) FROM Ticket"))
        store = nil
        #expect(try statement.step())
        #expect(statement.value(at: 0) == .integer(1))
    }

    @Test("A cached statement used after its connection was released throws, saying what to do")
    func cachedStatementAfterItsConnectionThrows() throws {
        var connection: Connection? = try Connection(path: ":memory:")
        let statement = try #require(try connection?.cachedStatement("SELECT 1"))
        connection = nil
        #expect {
            try statement.step()
        } throws: { error in
            "\(error)".contains("was closed") && "\(error)".contains("Connection.prepare")
        }
    }

    @Test("A cached statement held across clearStatementCache() throws once its connection is gone (it crashed)")
    func cachedStatementHeldAcrossACacheClearThrows() throws {
        var connection: Connection? = try Connection(path: ":memory:")
        let statement = try #require(try connection?.cachedStatement("SELECT 1"))
        connection?.clearStatementCache()  // as the importer and the migrator do
        #expect(try statement.step())  // still the connection's: it steps
        statement.reset()
        connection = nil
        #expect {
            try statement.step()
        } throws: { error in
            "\(error)".contains("was closed") && "\(error)".contains("Connection.prepare")
        }
    }

    @Test("results[i] after another connection migrated the file answers an unreadable object (it trapped)")
    func subscriptAfterAnotherConnectionMigrated() throws {
        let (dir, path) = try TrialFive.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialFive.schema())
        try store.write { for i in 0..<3 { try store.create(TrialFive.Ticket.self, value: [i, "t\(i)"]) } }
        let dynamic = try store.objects("Ticket").sorted(byKeyPath: "id")
        let typed = try store.objects(TrialFive.Ticket.self)
        #expect(try dynamic.count == 3)
        #expect(try typed.count == 3)
        // What a migrator in another thread or process commits last: the file's new family version.
        let other = try Connection(path: path)
        try other.execute("UPDATE _urna_schema SET version = 2 WHERE id = 1; PRAGMA user_version = 2")
        try store.refresh()  // as the store's own look does while observers exist
        let object = dynamic[0]
        #expect(object.isInvalidated)
        #expect {
            try object.value(forKey: "title")
        } throws: { error in
            guard case StoreError.schemaMismatch(let m) = error else { return false }
            return m.contains("version 2")
        }
        #expect(typed[1].isInvalidated)
        #expect(typed[1].title == "")
        #expect(throws: StoreError.self) { try dynamic.object(at: 0) }
    }

    @Test("asyncWrite { try store.create(...) } compiles and writes (it failed: the object is not Sendable)")
    func asyncWriteWithAnObjectMakingBody() async throws {
        let store = try Store.inMemory(schema: try TrialFive.schema())
        // Before the Void form this line did not compile: "type 'Ticket' does not conform to the 'Sendable' protocol".
        try await store.asyncWrite { try store.create(TrialFive.Ticket.self, value: [1, "a"]) }
        let title: String = try await store.asyncWrite {
            try store.create(TrialFive.Ticket.self, value: [2, "b"]).title
        }
        #expect(title == "b")
        #expect(try store.objects(TrialFive.Ticket.self).count == 2)
    }

    @Test("A write from a cancellation handler that task.cancel() ran inside a write is refused, saying what to do")
    func writeFromACancellationHandlerInsideAWrite() async throws {
        let store = try Store.inMemory(schema: try TrialFive.schema())
        let refusal = TrialFive.Message()
        let started = TrialFive.Counts()
        let task = Task {
            await withTaskCancellationHandler {
                started.add("started")
                try? await Task.sleep(for: .seconds(30))
            } onCancel: {
                do { try store.write { try store.create(TrialFive.Ticket.self, value: [2, "cancelled"]) } } catch {
                    refusal.set("\(error)")
                }
            }
        }
        try await TrialFive.wait(upTo: 10) { started["started"] == 1 }
        try store.write {
            try store.create(TrialFive.Ticket.self, value: [1, "outer"])
            task.cancel()  // runs the handler here, on this thread, inside this write
        }
        await task.value
        #expect(try store.objects(TrialFive.Ticket.self).count == 1)
        #expect(refusal.text.contains("cancellation handler"), "\(refusal.text)")
        #expect(refusal.text.contains("asyncWrite"), "\(refusal.text)")
    }
}
