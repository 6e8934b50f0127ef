import Foundation
import Testing
import UrnaStore

@Suite("Change notifications per results and per object")
struct ObservationTests {
    static let schema = ConcurrencyTests.schema

    @Test("Results observers get insertions, deletions and modifications as indices")
    func resultsChanges() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { for i in 1...4 { try store.create("Note", value: ["id": i, "text": "n\(i)"]) } }
        let notes = try store.objects("Note").sorted(byKeyPath: "id")
        let heard = ChangeRecorder<ResultsChange>()
        let token = try notes.observe { heard.append($0) }
        defer { token.invalidate() }
        #expect(heard.all == [.initial(count: 4)])

        try store.write {
            try store.delete(try #require(try store.object(ofType: "Note", forPrimaryKey: .int(2))))
            try store.create("Note", value: ["id": 9, "text": "n9"])
            try #require(try store.object(ofType: "Note", forPrimaryKey: .int(3)))["text"] = "changed"
        }
        // Before: 1 2 3 4; after: 1 3 4 9. Deleted old index 1, modified old index 2, inserted new index 3.
        #expect(heard.all.last == .update(count: 4, deletions: [1], insertions: [3], modifications: [2]))
        let before = heard.count
        #expect(throws: StoreError.unknownType("Other")) { try store.write { try store.create("Other", value: []) } }
        #expect(heard.count == before)
    }

    @Test("An observer invalidated by an earlier observer of the same change is not called for it")
    func invalidatedDuringANotificationIsSkipped() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let heard = ChangeRecorder<String>()
        let later = ChangeRecorder<ObservationToken>()
        let first = store.observe { _ in
            heard.append("first")
            for t in later.all { t.invalidate() }
        }
        defer { first.invalidate() }
        later.append(store.observe { _ in heard.append("second") })
        try store.write { try store.create("Note", value: ["id": 1, "text": "a"]) }
        #expect(heard.all == ["first"], "the second observer was invalidated before its turn")
    }

    @Test("A write that does not touch the results does not notify them")
    func unrelatedWriteIsQuiet() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { for i in 1...3 { try store.create("Note", value: ["id": i, "text": i == 1 ? "a" : "b"]) } }
        let onlyA = try store.objects("Note").filter("text == %@", "a")
        let heard = ChangeRecorder<ResultsChange>()
        let token = try onlyA.observe { heard.append($0) }
        defer { token.invalidate() }
        try store.write { try #require(try store.object(ofType: "Note", forPrimaryKey: .int(3)))["text"] = "c" }
        #expect(heard.all == [.initial(count: 1)])
    }

    @Test("Object observers hear which properties changed, then the deletion")
    func objectChanges() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let note: DynamicObject = try store.write { try store.create("Note", value: ["id": 1, "text": "a"]) }
        let heard = ChangeRecorder<ObjectChange>()
        let token = try note.observe { heard.append($0) }
        defer { token.invalidate() }
        try store.write { note["text"] = "b" }
        try store.write { try store.delete(try #require(try store.object(ofType: "Note", forPrimaryKey: .int(1)))) }
        #expect(heard.all == [.change(propertyNames: ["text"]), .deleted])
    }

    @Test("Results changes as an AsyncSequence, also for another store's commit")
    func asyncResultsChanges() async throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Store(path: path, schema: Self.schema)
        let b = try Store(path: path, schema: Self.schema)
        var iterator = try a.objects("Note").changes.makeAsyncIterator()
        #expect(try await iterator.next() == .initial(count: 0))
        try b.write { try b.create("Note", value: ["id": 1]) }
        try a.refresh()
        #expect(try await iterator.next() == .update(count: 1, deletions: [], insertions: [0], modifications: []))
    }

    @Test("observe inside a write is refused (its first snapshot would hold uncommitted changes); outside it works")
    func observeInsideAWriteIsRefused() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let note: DynamicObject = try store.write { try store.create("Note", value: ["id": 1, "text": "a"]) }
        let notes = try store.objects("Note")
        try store.write {
            try store.create("Note", value: ["id": 2, "text": "uncommitted"])
            #expect(throws: StoreError.observeInWriteTransaction) { _ = try notes.observe { _ in } }
            #expect(throws: StoreError.observeInWriteTransaction) { _ = try note.observe { _ in } }
        }
        #expect("\(StoreError.observeInWriteTransaction)".contains("before store.write"))
        let heard = ChangeRecorder<ResultsChange>()
        let token = try notes.observe { heard.append($0) }
        defer { token.invalidate() }
        #expect(heard.all == [.initial(count: 2)], "after the write, observing starts from the committed state")
    }

    @Test("Another thread may observe while this one holds a write open; it sees only committed objects")
    func anotherThreadObservesDuringAWrite() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: Self.schema)
        try store.write { try store.create("Note", value: ["id": 1, "text": "a"]) }
        let heard = ChangeRecorder<ResultsChange>()
        let failures = ChangeRecorder<String>()
        let tokens = ChangeRecorder<ObservationToken>()
        let done = DispatchSemaphore(value: 0)
        try store.write {
            try store.create("Note", value: ["id": 2, "text": "uncommitted"])
            Thread.detachNewThread {
                do { tokens.append(try store.objects("Note").observe { heard.append($0) }) } catch {
                    failures.append("\(error)")
                }
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 20) == .success, "the other thread's observe did not return")
        }
        defer { for t in tokens.all { t.invalidate() } }
        #expect(failures.all.isEmpty)
        #expect(heard.all.first == .initial(count: 1), "the other thread's first snapshot holds only the committed note")
    }
}
