import Foundation
import Testing
import UrnaStore

@Suite("List editing (Realm's API), one statement or two per edit")
struct ListEditingTests {
    static func store() throws -> Store { try Store.inMemory(schema: try ModelSemanticsTests.pets()) }

    static func names(_ p: Puppy) -> [String] { p.friends.map(\.name) }

    @Test("2,000 appends in one write keep their order and count")
    func manyAppends() throws {
        let store = try Self.store()
        let start = Date()
        let owner = try store.write { () throws -> Puppy in
            let owner = try store.create(Puppy.self, value: ["id": 0, "name": "owner"])
            for i in 1...2000 { try owner.friends.append(Puppy(value: ["id": i, "name": "p\(i)"])) }
            return owner
        }
        print("2,000 list appends in one write: \(Int(Date().timeIntervalSince(start) * 1000)) ms")
        #expect(try owner.friends.count == 2000)
        #expect(owner.friends[0].name == "p1")
        #expect(owner.friends[1999].name == "p2000")
    }

    @Test("insert, remove, move, replace, subscript set, append(contentsOf:), removeAll")
    func editing() throws {
        let store = try Self.store()
        let owner: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 0, "name": "owner"]) }
        let a = Puppy(value: ["id": 1, "name": "a"])
        let b = Puppy(value: ["id": 2, "name": "b"])
        let c = Puppy(value: ["id": 3, "name": "c"])
        let d = Puppy(value: ["id": 4, "name": "d"])
        try store.write { try owner.friends.append(contentsOf: [a, b, c]) }
        #expect(Self.names(owner) == ["a", "b", "c"])
        try store.write { try owner.friends.insert(d, at: 1) }
        #expect(Self.names(owner) == ["a", "d", "b", "c"])
        try store.write { try owner.friends.move(from: 0, to: 3) }
        #expect(Self.names(owner) == ["d", "b", "c", "a"])
        try store.write { try owner.friends.move(from: 3, to: 1) }
        #expect(Self.names(owner) == ["d", "a", "b", "c"])
        try store.write { try owner.friends.remove(at: 0) }
        #expect(Self.names(owner) == ["a", "b", "c"])
        try store.write { try owner.friends.replace(index: 1, object: d) }
        #expect(Self.names(owner) == ["a", "d", "c"])
        try store.write { owner.friends[2] = b }
        #expect(Self.names(owner) == ["a", "d", "b"])
        try store.write { try owner.friends.insert(c, at: 3) }
        #expect(Self.names(owner) == ["a", "d", "b", "c"])
        #expect(throws: StoreError.indexOutOfRange(index: 9, count: 4)) {
            try store.write { try owner.friends.remove(at: 9) }
        }
        try store.write { try owner.friends.removeAll() }
        #expect(try owner.friends.count == 0)
        #expect(try store.objects(Puppy.self).count == 5, "members leave the list, not the store")
    }

    @Test("Unmanaged lists edit like arrays")
    func unmanaged() throws {
        let owner = Puppy()
        try owner.friends.append(contentsOf: [Puppy(value: ["name": "a"]), Puppy(value: ["name": "b"])])
        try owner.friends.insert(Puppy(value: ["name": "c"]), at: 0)
        try owner.friends.move(from: 0, to: 2)
        #expect(Self.names(owner) == ["a", "b", "c"])
        try owner.friends.removeAll()
        #expect(try owner.friends.count == 0)
    }
}
