import Foundation
import Testing
import UrnaStore

/// Models for `FourthThreadsTrialTests`, in a namespace because this test target has other models.
enum TrialFour {
    final class Walker: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var hounds: List<Hound>
    }
    final class Hound: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(originProperty: "hounds") var walkers: LinkingObjects<Walker>
    }

    static func schema() throws -> Schema {
        try Schema(family: "trialfour", version: 1, models: [Walker.self, Hound.self])
    }

    /// A new file in its own temporary folder.
    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-trialfour-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("walkers.sqlite").path)
    }

    /// Counts rows through a connection of its own (not the store under test).
    static func count(_ path: String, _ sql: String) throws -> Int64 {
        try Connection(path: path, readOnly: true, create: false).integer(sql)
    }

    /// The last value an observer reported, shared with the callback's thread.
    final class Last: @unchecked Sendable {
        private let lock = NSLock()
        private var value = -1
        func set(_ v: Int) { lock.withLock { value = v } }
        var current: Int { lock.withLock { value } }
    }
}

/// Defects the fourth threads trial (`Examples/threads-trial`) found: each was seen failing before its fix.
@Suite("Fourth threads trial: raw statements, released stores, gone owners' lists, observing inside read")
struct FourthThreadsTrialTests {
    @Test("A statement prepared on store.connection and run on another thread waits for an open write, not joins it")
    func preparedStatementWaitsForOpenWrite() throws {
        let (dir, path) = try TrialFour.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialFour.schema())
        struct Failure: Error {}
        let opened = DispatchSemaphore(value: 0)
        let rawStarted = DispatchSemaphore(value: 0)
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            // A write that stays open 200 ms after the raw statement starts, then throws: everything it did rolls back.
            try? store.write {
                try store.create(TrialFour.Hound.self, value: [1, "from the write that throws"])
                opened.signal()
                rawStarted.wait()
                usleep(200_000)
                throw Failure()
            }
            writerDone.signal()
        }
        opened.wait()
        rawStarted.signal()
        let s = try store.connection.prepare("INSERT INTO Hound(id, name) VALUES (2, 'raw')")
        try s.runToCompletion()
        writerDone.wait()
        #expect(
            try TrialFour.count(path, "SELECT count(*) FROM Hound WHERE id = 2") == 1, "the raw insert reported done")
        #expect(try TrialFour.count(path, "SELECT count(*) FROM Hound WHERE id = 1") == 0)
    }

    @Test("Lists and inverse links of objects whose store was released throw storeReleased; edits are never kept aside")
    func listsOfReleasedStore() throws {
        let (dir, path) = try TrialFour.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        var walker: TrialFour.Walker?
        var hound: TrialFour.Hound?
        var unreadWalker: TrialFour.Walker?
        var neverReadHound: TrialFour.Hound?
        do {
            let store = try Store(path: path, schema: try TrialFour.schema())
            try store.write {
                let w = try store.create(TrialFour.Walker.self, value: [1, "Ann"])
                try w.hounds.append(try store.create(TrialFour.Hound.self, value: [1, "Rex"]))
            }
            walker = try store.object(ofType: TrialFour.Walker.self, forPrimaryKey: 1)
            hound = try store.object(ofType: TrialFour.Hound.self, forPrimaryKey: 1)
            unreadWalker = try store.object(ofType: TrialFour.Walker.self, forPrimaryKey: 1)
            neverReadHound = try store.object(ofType: TrialFour.Hound.self, forPrimaryKey: 1)
            #expect(try walker?.hounds.count == 1)
            #expect(try hound?.walkers.count == 1)
        }
        let w = try #require(walker)
        let h = try #require(hound)
        let unread = try #require(unreadWalker)
        let unreadHound = try #require(neverReadHound)
        #expect(!w.isManaged, "the store is released")
        // Handles whose list and inverse links were never read before the release.
        #expect(throws: StoreError.storeReleased(type: "Walker")) { try unread.hounds.count }
        #expect(throws: StoreError.storeReleased(type: "Hound")) { try unreadHound.walkers.count }
        #expect(throws: StoreError.storeReleased(type: "Walker")) { try w.hounds.count }
        #expect(throws: StoreError.storeReleased(type: "Hound")) { try h.walkers.count }
        #expect(throws: StoreError.storeReleased(type: "Walker")) { try w.managedObject?.list("hounds") }
        let other = try Store(path: path, schema: try TrialFour.schema())
        #expect(throws: StoreError.storeReleased(type: "Walker")) {
            try other.write { try w.hounds.append(TrialFour.Hound(value: [2, "Bo"])) }
        }
        #expect(throws: StoreError.storeReleased(type: "Walker")) { try other.write { try w.hounds.removeAll() } }
        #expect(throws: StoreError.storeReleased(type: "Walker")) {
            try other.write { try unread.hounds.append(TrialFour.Hound(value: [3, "Cy"])) }
        }
        #expect(try other.objects(TrialFour.Hound.self).count == 1)
        #expect(try TrialFour.count(path, "SELECT count(*) FROM Walker_hounds") == 1)
    }

    @Test("Edits of the list of an object deleted through its own handle throw invalidated instead of being dropped")
    func listEditsOfDeletedOwner() throws {
        let store = try Store.inMemory(schema: try TrialFour.schema())
        let w: TrialFour.Walker = try store.write {
            let w = try store.create(TrialFour.Walker.self, value: [1, "Ann"])
            try w.hounds.append(try store.create(TrialFour.Hound.self, value: [1, "Rex"]))
            return w
        }
        let hounds = w.hounds  // the list as read before the delete
        try store.write { try store.delete(w) }
        #expect(w.isInvalidated)
        let invalidated = StoreError.invalidated(type: "Walker")
        #expect(throws: invalidated) { try store.write { try w.hounds.append(TrialFour.Hound(value: [2, "Bo"])) } }
        #expect(throws: invalidated) { try store.write { try hounds.append(TrialFour.Hound(value: [3, "Cy"])) } }
        #expect(throws: invalidated) {
            try store.write { try w.hounds.append(contentsOf: [TrialFour.Hound(value: [4, "Di"])]) }
        }
        #expect(throws: invalidated) {
            try store.write { try w.hounds.insert(TrialFour.Hound(value: [5, "Ed"]), at: 0) }
        }
        #expect(throws: invalidated) { try store.write { try w.hounds.removeAll() } }
        #expect(throws: invalidated) { try store.write { try w.hounds.remove(at: 0) } }
        #expect(throws: invalidated) { try store.write { try w.hounds.move(from: 0, to: 0) } }
        #expect(throws: invalidated) { try store.write { try w.hounds.replace(index: 0, object: TrialFour.Hound()) } }
        // A handle whose list was never read before its object was deleted through it.
        let unread: TrialFour.Walker = try store.write { try store.create(TrialFour.Walker.self, value: [2, "Bea"]) }
        try store.write { try store.delete(unread) }
        #expect(throws: invalidated) {
            try store.write { try unread.hounds.append(TrialFour.Hound(value: [6, "Flo"])) }
        }
        #expect(throws: invalidated) { try store.write { try unread.hounds.removeAll() } }
        #expect(try store.objects(TrialFour.Hound.self).count == 1, "no hound was added by the refused edits")
        #expect(try w.hounds.count == 0)
        #expect(hounds.map(\.name) == [])
    }

    @Test("An observer registered inside store.read hears a commit made before it registered, once the read ends")
    func observerRegisteredInsideReadCatchesUp() throws {
        let (dir, path) = try TrialFour.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialFour.schema())
        try store.write { try store.create(TrialFour.Hound.self, value: [1, "Rex"]) }
        let last = TrialFour.Last()
        let token = try store.read { () throws -> ObservationToken in
            #expect(try store.objects(TrialFour.Hound.self).count == 1)  // the read's commit
            let writer = Thread { try? store.write { try store.create(TrialFour.Hound.self, value: [2, "Bo"]) } }
            writer.start()
            while !writer.isFinished { usleep(1000) }
            return try store.objects(TrialFour.Hound.self).observe { change in
                switch change {
                case .initial(let count), .update(let count, _, _, _): last.set(count)
                case .error: break
                }
            }
        }
        defer { token.invalidate() }
        let deadline = Date().addingTimeInterval(3)
        while last.current != 2 && Date() < deadline { usleep(10_000) }
        #expect(last.current == 2, "the file holds 2 hounds")
    }

    @Test("refresh() inside store.read tells observers what the file holds, not what the read's snapshot held")
    func refreshInsideReadDeliversCurrentState() throws {
        let (dir, path) = try TrialFour.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialFour.schema())
        let other = try Store(path: path, schema: try TrialFour.schema())
        try store.write { try store.create(TrialFour.Hound.self, value: [1, "Rex"]) }
        let last = TrialFour.Last()
        let token = try store.objects(TrialFour.Hound.self).observe { change in
            switch change {
            case .initial(let count), .update(let count, _, _, _): last.set(count)
            case .error: break
            }
        }
        defer { token.invalidate() }
        try store.read {
            #expect(try store.objects(TrialFour.Hound.self).count == 1)
            try other.write { try other.create(TrialFour.Hound.self, value: [2, "Bo"]) }
            try store.refresh()
        }
        // The refresh saw the other store's commit: nothing else will tell the observer of it.
        let deadline = Date().addingTimeInterval(3)
        while last.current != 2 && Date() < deadline { usleep(10_000) }
        #expect(last.current == 2, "the file holds 2 hounds")
    }

    @Test("A second Store's write nested in the first's on one thread is refused at once, not after a 5 s busy wait")
    func nestedWriteOfAnotherStoreOfTheFile() throws {
        let (dir, path) = try TrialFour.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialFour.schema())
        let other = try Store(path: path, schema: try TrialFour.schema())
        var refusal: Error?
        try store.write {
            try store.create(TrialFour.Hound.self, value: [1, "outer"])
            do {
                try other.write { try other.create(TrialFour.Hound.self, value: [2, "inner"]) }
            } catch {
                refusal = error
            }
        }
        #expect(refusal as? StoreError == .alreadyInWriteTransaction, "it was \(String(describing: refusal))")
        #expect(try TrialFour.count(path, "SELECT count(*) FROM Hound") == 1, "the outer write committed, alone")
        // Each store writes on its own afterwards, and both on other threads at once.
        try other.write { try other.create(TrialFour.Hound.self, value: [3, "other"]) }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? other.write { try other.create(TrialFour.Hound.self, value: [4, "other thread"]) }
            done.signal()
        }
        try store.write { try store.create(TrialFour.Hound.self, value: [5, "this thread"]) }
        done.wait()
        #expect(try TrialFour.count(path, "SELECT count(*) FROM Hound") == 4)
    }
}
