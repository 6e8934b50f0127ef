import Foundation
import Testing
import UrnaStore

/// Helpers for `SeventhThreadsTrialTests` (the models and files are `TrialSix`'s).
enum TrialSeven {
    /// Keeps `objects` alive for good: a test that found a hang leaves its threads blocked on their locks, and
    /// releasing a store then would block the test's own thread too.
    static func abandon(_ objects: AnyObject...) {
        for o in objects { _ = Unmanaged.passRetained(o) }
    }

    /// A flag set on one thread and read on others.
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        var isSet: Bool { lock.withLock { value } }
        func set() { lock.withLock { value = true } }
    }

    /// A count kept by several threads.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        var count: Int { lock.withLock { value } }
        func add() { lock.withLock { value += 1 } }
    }

    /// An observation whose callback holds another observation's token (its only holder), as a view model's observer
    /// holds the model and the model its tokens.
    static func tokenHoldingAnother(_ store: Store) -> ObservationToken {
        let inner = store.observe { _ in }
        return store.observe { _ in withExtendedLifetime(inner) {} }
    }
}

/// Defects the seventh threads trial found: each test was seen failing (or hanging, then failing on its time limit)
/// before its fix.
@Suite("Seventh threads trial: raw SQL outside writes, refresh inside reads, tokens released by tokens")
struct SeventhThreadsTrialTests {
    @Test(
        "Raw SQL on store.connection outside a write is seen by the store's cached objects and results and told to its observers: an object kept answering the old value, results the old count, observers heard nothing"
    )
    func rawSQLOutsideAWrite() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        try store.write { try store.create(TrialSix.Note.self, value: [1, "before"]) }
        let note = try #require(try store.object(ofType: TrialSix.Note.self, forPrimaryKey: 1))
        #expect(note.text == "before")
        let results = try store.objects(TrialSix.Note.self)
        #expect(try results.lastObject()?.id == 1)
        let heard = DispatchSemaphore(value: 0)
        let token = store.observe { change in
            if change.possiblyChanged.contains("Note") { heard.signal() }
        }
        try store.connection.run("UPDATE Note SET text = 'after' WHERE id = 1")
        try store.connection.run("INSERT INTO Note(id, text) VALUES (2, 'raw')")
        #expect(note.text == "after")
        #expect(try results.count == 2)
        #expect(try results.lastObject()?.id == 2)
        #expect(heard.wait(timeout: .now() + 5) == .success)
        token.invalidate()
        // A statement that changes nothing tells nobody and keeps the caches.
        let generation = store.generation
        try store.connection.run("UPDATE Note SET text = 'x' WHERE id = 99")
        #expect(store.generation == generation)
    }

    @Test(
        "Four threads inserting with raw SQL outside writes each read their own last insert at once (1,000 of 1,000), and an observer hears them"
    )
    func rawSQLOutsideWritesFromFourThreads() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let heard = TrialSeven.Counter()
        let token = store.observe { change in
            if change.possiblyChanged.contains("Note") { heard.add() }
        }
        let seen = TrialSeven.Counter()
        let stale = TrialSeven.Counter()
        let group = DispatchGroup()
        for t in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let mine = try? store.objects(TrialSix.Note.self).filter("text == %@", "thread \(t)") else {
                    return
                }
                for i in 0..<250 {
                    let id = t * 1000 + i
                    do {
                        try store.connection.run(
                            "INSERT INTO Note(id, text) VALUES (?, ?)", [.integer(Int64(id)), .text("thread \(t)")])
                        // `lastObject()` reads the cached keys while the generation has not moved.
                        if try mine.lastObject()?.id == id, try mine.count == i + 1 {
                            seen.add()
                        } else {
                            stale.add()
                        }
                    } catch {
                        stale.add()
                    }
                }
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(seen.count == 1000)
        #expect(stale.count == 0)
        #expect(try TrialSix.committedIDs(path).count == 1000)
        try store.refresh()
        let deadline = Date().addingTimeInterval(5)
        while heard.count == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(heard.count > 0)
        token.invalidate()
    }

    @Test(
        "refresh() inside read { } on four threads while another thread's refresh tells a results observer: it hung for good (the readers held every pooled connection and waited for the refresh lock, the delivering thread held that lock and waited for a connection)"
    )
    func refreshInsideReadsWhileObserversAreTold() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        let other = try Store(path: path, schema: try TrialSix.schema())
        try store.write { try store.create(TrialSix.Note.self, value: [0, "first"]) }
        let armed = TrialSeven.Flag()
        let delivering = DispatchSemaphore(value: 0)
        // Registered first, so called first: it holds the delivery until the four reads are in.
        let slow = store.observe { _ in
            if armed.isSet {
                delivering.signal()
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        let updates = TrialSeven.Counter()
        let token = try store.objects(TrialSix.Note.self).observe { change in
            if case .update = change { updates.add() }
        }
        armed.set()
        try other.write { try other.create(TrialSix.Note.self, value: [1, "from another store"]) }
        let refresher = TrialSix.onThread { _ = try? store.refresh() }
        #expect(delivering.wait(timeout: .now() + 10) == .success)
        let readers = DispatchGroup()
        let counts = TrialSeven.Counter()
        for _ in 0..<4 {
            readers.enter()
            Thread.detachNewThread {
                defer { readers.leave() }
                let ok = try? store.read {
                    _ = try store.objects(TrialSix.Note.self).count
                    _ = try store.refresh()
                    return true
                }
                if ok == true { counts.add() }
            }
        }
        let refreshed = refresher.wait(timeout: .now() + 20)
        let read = readers.wait(timeout: .now() + 20)
        #expect(refreshed == .success)
        #expect(read == .success)
        guard refreshed == .success, read == .success else {
            TrialSeven.abandon(store, other, slow, token)
            return
        }
        #expect(counts.count == 4)
        let deadline = Date().addingTimeInterval(5)
        while updates.count == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(updates.count >= 1)
        slow.invalidate()
        token.invalidate()
    }

    @Test(
        "Invalidating a token whose callback holds another token of the same store (its only holder) returns: the callback was released under the registry's lock and the other token's invalidation waited for that lock for good (200 of 200 rounds, from another thread and from inside the callback)"
    )
    func tokenReleasedByAnotherTokensCallback() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        var finished = 0
        for round in 0..<200 {
            let outer = TrialSeven.tokenHoldingAnother(store)
            let done: DispatchSemaphore
            if round % 2 == 0 {
                done = TrialSix.onThread { outer.invalidate() }
            } else {
                // From inside its own callback, during a delivery.
                let box = TokenBox()
                let selfInvalidating = store.observe { _ in box.invalidate() }
                box.hold(selfInvalidating)
                box.hold(outer)
                done = TrialSix.onThread {
                    try? store.write { try store.create(TrialSix.Note.self, value: [round, "r"]) }
                    box.waitUntilInvalidated()
                }
            }
            guard done.wait(timeout: .now() + 10) == .success else {
                TrialSeven.abandon(store, outer)
                break
            }
            finished += 1
        }
        #expect(finished == 200)
    }
    @Test(
        "A create outside a write while another thread writes is refused without reading the writer's state unlocked (the thread sanitizer reported the race on every run), 2,000 of 2,000 refused"
    )
    func createOutsideAWriteBesideAWriter() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        let refused = TrialSeven.Counter()
        let writer = TrialSix.onThread {
            for i in 0..<2000 { try? store.write { try store.create(TrialSix.Note.self, value: [i, "w"]) } }
        }
        let outsider = TrialSix.onThread {
            for i in 0..<2000 {
                do {
                    try store.create(TrialSix.Note.self, value: [10_000 + i, "outside"])
                } catch StoreError.notInWriteTransaction {
                    refused.add()
                } catch {}
            }
        }
        writer.wait()
        outsider.wait()
        #expect(refused.count == 2000)
        #expect(try store.objects(TrialSix.Note.self).count == 2000)
    }

    @Test("A write inside read { } of an in-memory store throws writeInsideRead, as in a file's (it committed)")
    func writeInsideAnInMemoryRead() throws {
        let store = try Store.inMemory(schema: try TrialSix.schema())
        #expect(throws: StoreError.writeInsideRead) {
            try store.read { try store.write { try store.create(TrialSix.Note.self, value: [1, "inside"]) } }
        }
        #expect(try store.objects(TrialSix.Note.self).count == 0)
        // Reads inside a write, and writes after the read, still work.
        try store.write {
            try store.create(TrialSix.Note.self, value: [2, "after"])
            #expect(try store.read { try store.objects(TrialSix.Note.self).count } == 1)
        }
        #expect(try store.objects(TrialSix.Note.self).count == 1)
    }
}

/// Tokens an observer invalidates from its own callback.
final class TokenBox: @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: [ObservationToken] = []
    private let invalidated = DispatchSemaphore(value: 0)

    func hold(_ token: ObservationToken) { lock.withLock { tokens.append(token) } }

    /// Drops every token (the last references): their observations end.
    func invalidate() {
        let dropped = lock.withLock { () -> [ObservationToken] in
            defer { tokens = [] }
            return tokens
        }
        guard !dropped.isEmpty else { return }
        for t in dropped { t.invalidate() }
        invalidated.signal()
    }

    func waitUntilInvalidated() { invalidated.wait() }
}
