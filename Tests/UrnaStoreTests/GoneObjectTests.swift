import Foundation
import Testing
import UrnaStore

/// A handle that found its object deleted stays invalidated, even when another object takes its primary key.
@Suite("Objects deleted elsewhere and created again under the same key")
struct GoneObjectTests {
    static let schema = try! Schema(
        family: "gone", version: 1,
        types: [
            ObjectSchema(
                "Item",
                [
                    Property("id", .int64, primaryKey: true), Property("n", .int64, default: 0),
                    Property("tag", .string, default: ""),
                ])
        ])

    @Test("A handle that read nothing before its object was deleted never mixes defaults with the next object's values")
    func goneHandleStaysGone() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { try store.create("Item", value: ["id": 1, "n": 10, "tag": "first"]) }
        let handle = try store.objects("Item").object(at: 0)  // its key only: nothing read yet
        try store.write { try store.delete(try store.objects("Item")) }  // another task's delete, say
        let n = handle["n"]  // gone before it read anything: its default
        try store.write { try store.create("Item", value: ["id": 1, "n": 20, "tag": "second"]) }
        let tag = handle["tag"]
        #expect(n == .int(0))
        #expect(tag == .string(""), "n came from the deleted object (its default), tag from the new one")
        #expect(handle.isInvalidated)
        #expect(throws: StoreError.invalidated(type: "Item")) { try handle.value(forKey: "n") }
        // The new object is read through a new handle.
        #expect(try store.object(ofType: "Item", forPrimaryKey: .int(1))?["tag"] == .string("second"))
    }

    @Test("isInvalidated, once true outside a write, stays true when the key is used again")
    func invalidatedStaysTrue() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { try store.create("Item", value: ["id": 1, "n": 10, "tag": "first"]) }
        let handle = try #require(try store.objects("Item").objects().first)  // its values read with it
        try store.write { try store.delete(try store.objects("Item")) }
        #expect(handle.isInvalidated)
        try store.write { try store.create("Item", value: ["id": 1, "n": 20, "tag": "second"]) }
        #expect(handle.isInvalidated)
        #expect(handle["n"] == .int(10), "the values it last read, not the new object's")
    }

    @Test("Inside a write that deletes and rolls back, a handle is not marked gone")
    func rollbackKeepsHandle() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write { try store.create("Item", value: ["id": 1, "n": 10, "tag": "first"]) }
        let handle = try store.objects("Item").object(at: 0)
        try store.beginWrite()
        try store.delete(try store.objects("Item"))
        #expect(throws: StoreError.invalidated(type: "Item")) { try handle.value(forKey: "n") }
        store.cancelWrite()
        #expect(!handle.isInvalidated)
        #expect(handle["n"] == .int(10))
    }
}
