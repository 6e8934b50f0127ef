import Foundation
import Testing
import UrnaStore

/// Models for `GoneObjectListTests`, in a namespace because this test target has other owners and members.
enum GoneList {
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var items: List<Member>
        @Persisted var buddy: Member?
    }
    final class Member: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(originProperty: "items") var owners: LinkingObjects<Owner>
    }
}

/// A handle that found its object deleted never shows, through its lists or links, the members of an object that
/// took its key later (Realm's rule: the lists of an invalidated object read empty).
@Suite("Lists and links of objects deleted elsewhere and created again under the same key")
struct GoneObjectListTests {
    static func store() throws -> Store {
        try Store.inMemory(
            schema: Schema(family: "gonelist", version: 1, models: [GoneList.Owner.self, GoneList.Member.self]))
    }

    /// Owner 1 with members 1 and 2 (buddy 1), as the first objects.
    static func fill(_ store: Store) throws {
        try store.write {
            let m1 = try store.create(GoneList.Member.self, value: [1, "m1"])
            let m2 = try store.create(GoneList.Member.self, value: [2, "m2"])
            let o = try store.create(GoneList.Owner.self, value: [1, "first"])
            try o.items.append(contentsOf: [m1, m2])
            o.buddy = m1
        }
    }

    /// Deletes owner 1 and member 1 through other references (as another task would), then makes new objects with
    /// their keys: owner 1 lists member 3 (buddy 3), a new owner 2 lists the new member 1.
    static func replace(_ store: Store) throws {
        try store.write {
            try store.delete(try store.objects("Owner").filter("id == 1"))
            try store.delete(try store.objects("Member").filter("id == 1"))
        }
    }

    static func recreate(_ store: Store) throws {
        try store.write {
            let m3 = try store.create(GoneList.Member.self, value: [3, "m3"])
            let m1 = try store.create(GoneList.Member.self, value: [1, "new m1"])
            let o1 = try store.create(GoneList.Owner.self, value: [1, "second"])
            try o1.items.append(m3)
            o1.buddy = m3
            let o2 = try store.create(GoneList.Owner.self, value: [2, "other"])
            try o2.items.append(m1)
        }
    }

    @Test("A typed handle found gone reads its list and inverse links empty and its link nil, not the new object's")
    func typedListOfGoneHandle() throws {
        let store = try Self.store()
        try Self.fill(store)
        let owner = try #require(try store.object(ofType: GoneList.Owner.self, forPrimaryKey: 1))
        let member = try #require(try store.object(ofType: GoneList.Member.self, forPrimaryKey: 1))
        #expect(owner.name == "first")
        #expect(owner.items.map(\.name) == ["m1", "m2"])
        #expect(try member.owners.count == 1)
        let items = owner.items  // a list read before the delete, kept
        try Self.replace(store)
        #expect(owner.isInvalidated)
        #expect(member.isInvalidated)
        try Self.recreate(store)
        #expect(owner.isInvalidated, "the new owner 1 is another object")
        #expect(owner.name == "first", "the name it last read")
        #expect(owner.items.map(\.name) == [], "not the new owner 1's members")
        #expect(try owner.items.count == 0)
        #expect(items.map(\.name) == [], "a list taken before the delete")
        #expect(try items.count == 0)
        #expect(owner.buddy == nil, "not the new owner 1's buddy")
        #expect(try member.owners.count == 0, "not the owners of the new member 1")
        #expect(member.owners.map(\.name) == [])
        #expect(member.owners.first == nil)
        // Nor does it write into the new owner 1's list.
        #expect(throws: StoreError.invalidated(type: "Owner")) {
            try store.write { try owner.items.append(GoneList.Member(value: [4, "m4"])) }
        }
        // The new objects are read through new handles.
        let newOwner = try #require(try store.object(ofType: GoneList.Owner.self, forPrimaryKey: 1))
        #expect(newOwner.items.map(\.name) == ["m3"])
        #expect(newOwner.buddy?.name == "m3")
    }

    @Test("A dynamic handle found gone throws invalidated for its list, inverse links and link")
    func dynamicListOfGoneHandle() throws {
        let store = try Self.store()
        try Self.fill(store)
        let owner = try #require(try store.object(ofType: "Owner", forPrimaryKey: .int(1)))
        let member = try #require(try store.object(ofType: "Member", forPrimaryKey: .int(1)))
        let held = try owner.list("items")  // results taken before the delete, kept
        #expect(try held.count == 2)
        try Self.replace(store)
        #expect(owner.isInvalidated)
        #expect(member.isInvalidated)
        try Self.recreate(store)
        #expect(throws: StoreError.invalidated(type: "Owner")) { try owner.list("items") }
        #expect(throws: StoreError.invalidated(type: "Owner")) { try owner.value(forKey: "items") }
        #expect(throws: StoreError.invalidated(type: "Owner")) { try owner.linked("buddy") }
        #expect(throws: StoreError.invalidated(type: "Member")) { try member.linkingObjects("owners") }
        #expect(throws: StoreError.invalidated(type: "Member")) { try member.value(forKey: "owners") }
        #expect(held.isInvalidated)
        #expect(try held.count == 0, "not the new owner 1's members")
        #expect(try held.objects().isEmpty)
    }

    @Test("A list read that finds its owner deleted marks the handle gone before the key is used again")
    func listReadFindsOwnerGone() throws {
        let store = try Self.store()
        try Self.fill(store)
        let owner = try #require(try store.object(ofType: "Owner", forPrimaryKey: .int(1)))
        let member = try #require(try store.object(ofType: "Member", forPrimaryKey: .int(1)))
        try Self.replace(store)
        // No property read in between: the list reads themselves find the objects gone.
        #expect(throws: StoreError.invalidated(type: "Owner")) { try owner.list("items") }
        #expect(throws: StoreError.invalidated(type: "Member")) { try member.linkingObjects("owners") }
        try Self.recreate(store)
        #expect(owner.isInvalidated)
        #expect(member.isInvalidated)
        #expect(throws: StoreError.invalidated(type: "Owner")) { try owner.list("items") }
    }
}
