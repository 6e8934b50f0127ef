import Foundation
import Synchronization
import Testing
import UrnaStore

/// Attacks on one Store used from several threads: caches stamped with the wrong generation.
@Suite("Live results and objects under concurrent writes")
struct ThreadAttackTests {
    static let schema = try! Schema(
        family: "attack", version: 1,
        types: [
            ObjectSchema("Note", [Property("id", .int64, primaryKey: true), Property("text", .string, default: "")])
        ])

    static func temporaryPath() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-attack-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("notes.sqlite").path)
    }

    /// Runs `write(i)` for i = 1, 2, ... on another thread while this one reads `read()` for up to 2 s; returns
    /// the first read older than a write that had already returned (nil: none was).
    static func firstStaleRead(
        _ write: @escaping @Sendable (Int) throws -> Void, read: () throws -> Int
    ) throws -> (seen: Int, finished: Int)? {
        let committed = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var i = 0
            while !stop.load(ordering: .relaxed) && i < 200_000 {
                i += 1
                try? write(i)
                committed.store(i, ordering: .sequentiallyConsistent)
            }
            done.signal()
        }
        defer {
            stop.store(true, ordering: .relaxed)
            done.wait()
        }
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            let finished = committed.load(ordering: .sequentiallyConsistent)
            let seen = try read()
            if seen < finished { return (seen, finished) }
        }
        return nil
    }

    @Test("Results reused on one thread never serve keys older than a write that had finished")
    func resultsCacheIsNeverStampedNewerThanItsRead() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try store.write { try store.create("Note", value: ["id": 0]) }
        let results = try store.objects("Note")
        let stale = try Self.firstStaleRead({ i in try store.write { try store.create("Note", value: ["id": i]) } }) {
            Int(try results.lastObject()?.primaryKeyValue.intValue ?? -1)
        }
        #expect(stale == nil, "results served note \(stale?.seen ?? 0) after write \(stale?.finished ?? 0) had returned")
    }

    @Test("An object read on one thread never keeps values older than a write that had finished")
    func objectValuesAreNeverStampedNewerThanTheirRead() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try store.write { try store.create("Note", value: ["id": 1, "text": "0"]) }
        let note = try #require(try store.object(ofType: "Note", forPrimaryKey: 1))
        let stale = try Self.firstStaleRead({ i in
            try store.write { try store.create("Note", value: ["id": 1, "text": "\(i)"], update: .modified) }
        }) {
            Int(try note.value(forKey: "text").stringValue ?? "") ?? -1
        }
        #expect(stale == nil, "the object read text \(stale?.seen ?? 0) after write \(stale?.finished ?? 0) had returned")
    }

    @Test("Inside a write, results already read see the write's own inserts and deletes")
    func resultsInsideAWriteSeeItsOwnChanges() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try store.write {
            for i in 1...3 { try store.create("Note", value: ["id": i]) }
        }
        try store.write {
            let notes = try store.objects("Note")
            let first = try notes.object(at: 0)
            try store.delete(first)
            #expect(try notes.count == 2)
            #expect(try notes.object(at: 0).primaryKeyValue == .int(2))
            try store.create("Note", value: ["id": 9])
            #expect(try notes.count == 3)
            #expect(try notes.lastObject()?.primaryKeyValue == .int(9))
        }
    }

    @Test("Two stores opening the same new file at once both open it")
    func twoStoresCreatingOneFileAtOnce() throws {
        let (dir, _) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let failures = ChangeRecorder<String>()
        for round in 0..<20 {
            let path = dir.appendingPathComponent("new-\(round).sqlite").path
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                do {
                    let store = try Store(path: path, schema: Self.schema)
                    try store.write { try store.create("Note", value: ["id": i]) }
                } catch { failures.append("round \(round), store \(i): \(error)") }
            }
        }
        #expect(failures.all == [])
    }

    @Test("An object whose store was released refuses reads and sets instead of answering defaults")
    func objectOutlivingItsStore() throws {
        let (dir, path) = try Self.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        var store: Store? = try Store(path: path, schema: Self.schema)
        try store!.write { try store!.create("Note", value: ["id": 1, "text": "hello"]) }
        let note = try #require(try store!.object(ofType: "Note", forPrimaryKey: 1))
        store = nil
        #expect(note.isInvalidated)
        #expect(throws: StoreError.storeReleased(type: "Note")) { try note.value(forKey: "text") }
        #expect(throws: StoreError.storeReleased(type: "Note")) { try note.setValue(.string("lost"), forKey: "text") }
        let reopened = try Store(path: path, schema: Self.schema)
        #expect(try reopened.object(ofType: "Note", forPrimaryKey: 1)?.value(forKey: "text") == .string("hello"))
    }
}
