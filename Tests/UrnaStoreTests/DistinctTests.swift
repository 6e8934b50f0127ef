import Foundation
import Testing
import UrnaStore

@Suite("distinct(by:)")
struct DistinctTests {
    static func store() throws -> Store {
        let store = try Store.inMemory(schema: SeedSchemas.dogs())
        try store.write {
            for (name, age, color) in [
                ("Rex", 3, "tan"), ("Lua", 5, "black"), ("Bob", 3, "tan"), ("Ace", 7, "black"), ("Zed", 3, "white"),
            ] {
                try store.add(Dog(value: ["name": name, "age": age, "color": color]))
            }
        }
        return store
    }

    @Test("Keeps the first object of each value, in the results' order, after filter and sort")
    func firstPerValue() throws {
        let store = try Self.store()
        let byColor = try store.objects(Dog.self).sorted(byKeyPath: "name").distinct(by: ["color"])
        #expect(byColor.map(\.name) == ["Ace", "Bob", "Zed"])
        let oldestFirst = try store.objects(Dog.self).sorted(byKeyPath: "age", ascending: false).distinct(by: ["color"])
        #expect(oldestFirst.map(\.name) == ["Ace", "Rex", "Zed"])
        let young = try store.objects(Dog.self).filter("age < %@", 6).sorted(byKeyPath: "name").distinct(by: ["age"])
        #expect(young.map(\.name) == ["Bob", "Lua"])
        #expect(try young.count == 2)
        let pairs = try store.objects(Dog.self).distinct(by: ["age", "color"])
        #expect(try pairs.count == 4)
        #expect(try store.objects(Dog.self).sorted(byKeyPath: "name").distinct(by: ["color"]).limit(2).map(\.name)
            == ["Ace", "Bob"])
    }

    @Test("Distinct results stay live and bad key paths throw at distinct")
    func liveAndChecked() throws {
        let store = try Self.store()
        let colors = try store.objects(Dog.self).distinct(by: ["color"])
        #expect(try colors.count == 3)
        try store.write { try store.add(Dog(value: ["name": "Pip", "age": 1, "color": "grey"])) }
        #expect(try colors.count == 4)
        #expect(throws: QueryPredicateError.self) { try store.objects(Dog.self).distinct(by: ["colour"]) }
        #expect(throws: QueryPredicateError.self) { try store.objects(DogOwner.self).distinct(by: ["dogs.name"]) }
    }

    @Test("distinct and aggregates through a to-one link, and over a list's members")
    func throughLinksAndLists() throws {
        let store = try Store.inMemory(schema: try ModelSemanticsTests.pets())
        try store.write {
            let north = try store.create(Kennel.self, value: ["id": 7, "name": "North"])
            let south = try store.create(Kennel.self, value: ["id": 2, "name": "South"])
            let owner = try store.create(Puppy.self, value: ["id": 100, "name": "owner"])
            for (i, kennel) in [north, north, south, north].enumerated() {
                let p = try store.create(Puppy.self, value: ["id": i + 1, "name": "p\(i + 1)"])
                p.kennel = kennel
                try owner.friends.append(p)
            }
        }
        let kennelled = try store.objects(Puppy.self).filter("kennel != nil")
        #expect(try kennelled.sum(ofProperty: "kennel.id") == .int(23))
        #expect(try kennelled.min(ofProperty: "kennel.id") == .int(2))
        #expect(try kennelled.max(ofProperty: "kennel.id") == .int(7))
        #expect(try kennelled.average(ofProperty: "kennel.id") == 5.75)
        #expect(try store.objects(Puppy.self).distinct(by: ["kennel.name"]).map(\.name) == ["p1", "p3", "owner"])
        let owner = try #require(try store.object(ofType: Puppy.self, forPrimaryKey: 100))
        #expect(try owner.friends.sum(ofProperty: "id") == .int(10))
        #expect(try owner.friends.distinct(by: ["kennel.id"]).map(\.name) == ["p1", "p3"])
        #expect(throws: (any Error).self) { try kennelled.sum(ofProperty: "kennel.name") }
        #expect(throws: (any Error).self) { try kennelled.sum(ofProperty: "friends.id") }
    }
}
