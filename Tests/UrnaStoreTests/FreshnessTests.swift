import Foundation
import Testing
import UrnaStore

/// Two stores (two connections) on one file: what A shows after B commits.
@Suite("Freshness across stores and connections")
struct FreshnessTests {
    static let schema = ConcurrencyTests.schema

    @Test("A's results, objects and observer see B's commit after a.refresh()")
    func refreshSeesOtherStore() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Store(path: path, schema: Self.schema)
        let b = try Store(path: path, schema: Self.schema)
        try a.write { try a.create("Note", value: ["id": 1, "text": "old"]) }
        let notes = try a.objects("Note")
        let note = try #require(try a.object(ofType: "Note", forPrimaryKey: .int(1)))
        #expect(try notes.count == 1)
        #expect(note["text"] == "old")
        let heard = ChangeRecorder<ChangeSet>()
        let token = a.observe { heard.append($0) }
        defer { token.invalidate() }

        try b.write {
            try b.create("Note", value: ["id": 2, "text": "new"])
            try #require(try b.object(ofType: "Note", forPrimaryKey: .int(1)))["text"] = "changed"
        }
        try a.refresh()  // true, unless the store's own look (it polls while observed) got there first
        #expect(try notes.count == 2)
        #expect(note["text"] == "changed")
        #expect(heard.all.contains { $0.types.contains("Note") })
        #expect(try !a.refresh(), "nothing new the second time")
    }

    @Test("A write starts by catching up with other connections' commits")
    func writeRefreshesFirst() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Store(path: path, schema: Self.schema)
        let b = try Store(path: path, schema: Self.schema)
        try a.write { try a.create("Note", value: ["id": 1, "text": "old"]) }
        let note = try #require(try a.object(ofType: "Note", forPrimaryKey: .int(1)))
        #expect(note["text"] == "old")
        try b.write { try #require(try b.object(ofType: "Note", forPrimaryKey: .int(1)))["text"] = "from b" }
        try a.write { #expect(note["text"] == "from b") }
    }

    @Test("Observers hear other connections' commits without an explicit refresh (the store polls)")
    func pollingFindsOtherCommits() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Store(path: path, schema: Self.schema)
        let b = try Store(path: path, schema: Self.schema)
        let heard = DispatchSemaphore(value: 0)
        let token = a.observe { if $0.types.contains("Note") { heard.signal() } }
        defer { token.invalidate() }
        try b.write { try b.create("Note", value: ["id": 5]) }
        #expect(heard.wait(timeout: .now() + 5) == .success)
    }

    @Test("Raw SQL inside store.write reaches observers")
    func rawSQLIsObserved() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { try store.create("Note", value: ["id": 1]) }
        let heard = ChangeRecorder<ChangeSet>()
        let token = store.observe { heard.append($0) }
        defer { token.invalidate() }
        try store.write { try store.connection.execute("UPDATE \"Note\" SET \"text\" = 'raw'") }
        #expect(heard.all.count == 1)
        #expect(heard.all.first?.possiblyChanged == ["Note"])
        #expect(try store.objects("Note").first?["text"] == "raw")
    }

    @Test("changes is an AsyncSequence of change sets")
    func changesAsAsyncSequence() async throws {
        let store = try Store.inMemory(schema: Self.schema)
        let stream = store.changes
        try store.write { try store.create("Note", value: ["id": 1]) }
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.inserted == ["Note": 1])
    }
}
