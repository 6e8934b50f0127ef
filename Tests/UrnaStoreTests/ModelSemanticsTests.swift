import Foundation
import Testing
import UrnaStore

final class Sticker: Object {
    @Persisted(primaryKey: true) var id: UUID
    @Persisted var label = ""
    @Persisted var createdAt = Date()
    @Persisted var token = UUID()
}

final class Kennel: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

final class Puppy: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var kennel: Kennel?
    @Persisted var friends: List<Puppy>
}

@Suite("Realm's model semantics, or a loud error")
struct ModelSemanticsTests {
    static func schema() throws -> Schema { try Schema(family: "stickers", version: 1, models: [Sticker.self]) }
    static func pets() throws -> Schema {
        try Schema(family: "kennels", version: 1, models: [Kennel.self, Puppy.self])
    }

    @Test("UUID keys without a default get a fresh random value per object")
    func uuidKeysAreDistinct() throws {
        let store = try Store.inMemory(schema: try Self.schema())
        let a = Sticker(value: ["label": "a"])
        let b = Sticker()
        #expect(a.id != b.id)
        try store.write {
            try store.add(a)
            try store.add(b)
            try store.create(Sticker.self, value: ["label": "c"])
            try store.create("Sticker", value: ["label": "d"])  // dynamic create: a fresh key too
        }
        let ids = try store.objects(Sticker.self).objects().map(\.id)
        #expect(Set(ids).count == 4)
        #expect(!ids.contains(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))))
    }

    @Test("Date() and UUID() defaults are evaluated per object and never recorded in the schema")
    func nonConstantDefaults() throws {
        let schema = try Self.schema()
        let sticker = try #require(schema[type: "Sticker"])
        #expect(sticker[property: "createdAt"]?.defaultValue == nil)
        #expect(sticker[property: "token"]?.defaultValue == nil)
        #expect(sticker[property: "label"]?.defaultValue == .string(""))
        let builtAt = Date()
        Thread.sleep(forTimeInterval: 0.05)
        let store = try Store.inMemory(schema: schema)
        let before = Date()
        let created: Sticker = try store.write { try store.create(Sticker.self, value: ["label": "x"]) }
        let added = Sticker()
        try store.write { try store.add(added) }
        let after = Date()
        for s in [created, added] {
            #expect(s.createdAt >= before.addingTimeInterval(-0.001) && s.createdAt <= after.addingTimeInterval(0.001))
            #expect(s.createdAt > builtAt)
        }
        #expect(created.token != added.token)
    }

    @Test("A schema rebuilt later (another launch) still opens its file")
    func rebuiltSchemaOpens() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let store = try Store(path: path, schema: try Self.schema())
            try store.write { try store.add(Sticker()) }
        }
        Thread.sleep(forTimeInterval: 0.01)
        let again = try Store(path: path, schema: try Self.schema())
        #expect(try again.objects(Sticker.self).count == 1)
    }

    @Test("A file whose schema differs at the same version is refused at open, with the differences")
    func sameVersionMismatchIsRefused() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let v1 = try Schema(
            family: "notes", version: 1,
            types: [
                ObjectSchema("Note", [Property("id", .int64, primaryKey: true), Property("n", .int64, default: 0)])
            ])
        _ = try Store(path: path, schema: v1)
        let other = try Schema(
            family: "notes", version: 1,
            types: [
                ObjectSchema("Note", [Property("id", .int64, primaryKey: true), Property("n", .string, default: "")])
            ])
        do {
            _ = try Store(path: path, schema: other)
            Issue.record("a different schema at the same version opened")
        } catch let e as StoreError {
            #expect(e.description.contains("Note.n: the file has int64, the code has string"), "\(e)")
        }
    }

    @Test("Assigning an unmanaged object to a managed link adds it")
    func unmanagedLinkIsAdded() throws {
        let store = try Store.inMemory(schema: try Self.pets())
        let puppy: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 1, "name": "Rex"]) }
        try store.write { puppy.kennel = Kennel(value: ["id": 7, "name": "North"]) }
        #expect(puppy.kennel?.name == "North")
        #expect(try store.objects(Kennel.self).count == 1)
        let reread = try #require(try store.object(ofType: Puppy.self, forPrimaryKey: 1))
        #expect(reread.kennel?.id == 7)
    }

    @Test("isInvalidated after a delete through another reference; reads then throw, never defaults")
    func invalidation() throws {
        let store = try Store.inMemory(schema: try Self.pets())
        let puppy: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 1, "name": "Rex"]) }
        let friends = try #require(puppy.friends.results)
        #expect(!puppy.isInvalidated)
        #expect(!friends.isInvalidated)
        let other = try #require(try store.object(ofType: Puppy.self, forPrimaryKey: 1))
        try store.write { try store.delete(other) }
        #expect(other.isInvalidated)
        #expect(puppy.isInvalidated)
        #expect(friends.isInvalidated)
        let dynamic = try #require(puppy.managedObject)
        #expect(throws: StoreError.invalidated(type: "Puppy")) { try dynamic.value(forKey: "name") }
        #expect(!Puppy().isInvalidated, "unmanaged objects are not invalidated")
        #expect(!(try store.objects(Puppy.self).isInvalidated))
    }

    @Test("A misspelled sort key throws at sorted, as filter does")
    func sortKeyIsValidated() throws {
        let store = try Store.inMemory(schema: try Self.pets())
        #expect(throws: (any Error).self) { try store.objects(Puppy.self).sorted(byKeyPath: "nmae") }
        #expect(throws: (any Error).self) { try store.objects("Puppy").sorted(by: [SortKey(keyPath: "kennel.nmae")]) }
        _ = try store.objects(Puppy.self).sorted(byKeyPath: "kennel.name")
    }

    @Test("localizedDescription carries the message")
    func localizedDescriptions() throws {
        let store = try Store.inMemory(schema: try Self.pets())
        do {
            try store.write { try store.create("Puppy", value: ["nmae": "x"]) }
        } catch {
            #expect(error.localizedDescription == "Puppy has no property 'nmae'")
        }
        #expect(
            SQLiteError(code: 13, message: "database or disk is full").localizedDescription.contains("disk is full"))
        #expect(SchemaError.duplicateType("A").localizedDescription == "type 'A' is declared twice")
        #expect(QueryPredicateError(at: 3, "bad").localizedDescription == "at 3: bad")
    }

    @Test("A full disk in a setter makes write throw and roll back; nothing traps")
    func fullDiskInSetter() throws {
        let (dir, path) = try ConcurrencyTests.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try Self.pets())
        let puppy: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 1, "name": "Rex"]) }
        // SQLite answers SQLITE_FULL ("database or disk is full") once the file would pass this many pages.
        let pages = try store.connection.integer("PRAGMA page_count")
        try store.connection.execute("PRAGMA max_page_count = \(pages + 1)")
        let big = String(repeating: "x", count: 200_000)
        do {
            try store.write {
                puppy.name = big  // the setter cannot throw: the write does
                try store.create(Kennel.self, value: ["id": 2, "name": "after"])
            }
            Issue.record("the write succeeded on a full disk")
        } catch let e as SQLiteError {
            #expect(e.isDiskFull, "\(e)")
            // The message names the file whose disk is full (it was SQLite's text alone).
            #expect(e.file == path && e.description.contains("the disk holding \(path) is full"), "\(e)")
        }
        #expect(puppy.name == "Rex")
        #expect(try store.objects(Kennel.self).count == 0)
        do {
            try store.write { try store.create(Kennel.self, value: ["id": 3, "name": big]) }
            Issue.record("the write succeeded on a full disk")
        } catch let e as SQLiteError {
            #expect(e.isDiskFull, "\(e)")
        }
    }
}

@Suite("Reading an object another task deleted never traps")
struct DeletedReadTests {
    @Test("A typed property or the subscript of an object deleted elsewhere answers what it last read")
    func deletedReadsAnswerTheLastValues() throws {
        let store = try Store.inMemory(schema: try ModelSemanticsTests.pets())
        let puppy: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 1, "name": "Rex"]) }
        #expect(puppy.name == "Rex")
        let other = try #require(try store.object(ofType: Puppy.self, forPrimaryKey: 1))
        try store.write { try store.delete(other) }
        #expect(puppy.isInvalidated)
        #expect(puppy.name == "Rex", "the last value it read")
        let dynamic = try #require(puppy.managedObject)
        #expect(dynamic["name"] == .string("Rex"))
        #expect(throws: StoreError.invalidated(type: "Puppy")) { try dynamic.value(forKey: "name") }
        // Deleted through this reference, and one gone before it read anything (its defaults): no trap either.
        #expect(other.isInvalidated)
        _ = other.name
        let never: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 2, "name": "Max"]) }
        let lazy = try #require(try store.object(ofType: Puppy.self, forPrimaryKey: 2))
        try store.write { try store.delete(never) }
        #expect(lazy.isInvalidated)
        _ = lazy.name
    }

    @Test("A write to an object another reference deleted throws and rolls back; a rolled-back delete gives the handle back")
    func writesToDeletedObjectsAndRolledBackDeletes() throws {
        struct Boom: Error {}
        let store = try Store.inMemory(schema: try ModelSemanticsTests.pets())
        let rex: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 1, "name": "Rex"]) }
        let other = try #require(try store.object(ofType: Puppy.self, forPrimaryKey: 1))
        try store.write { try store.delete(other) }
        #expect(throws: StoreError.invalidated(type: "Puppy")) { try store.write { rex.name = "Max" } }
        #expect(try store.objects(Puppy.self).count == 0)

        let bo: Puppy = try store.write { try store.create(Puppy.self, value: ["id": 2, "name": "Bo"]) }
        #expect(throws: Boom.self) {
            try store.write {
                try store.delete(bo)
                throw Boom()
            }
        }
        #expect(!bo.isInvalidated, "the delete was rolled back")
        #expect(bo.name == "Bo")
        try store.write { bo.name = "Bob" }
        #expect(try store.object(ofType: Puppy.self, forPrimaryKey: 2)?.name == "Bob")
    }

    @Test("Lists, links and indexes of gone objects answer empty, nil and a gone object instead of trapping")
    func goneListsLinksAndIndexes() throws {
        let store = try Store.inMemory(schema: try ModelSemanticsTests.pets())
        let puppy: Puppy = try store.write {
            let p = try store.create(Puppy.self, value: ["id": 1, "name": "Rex"])
            p.kennel = Kennel(value: ["id": 7, "name": "North"])
            return p
        }
        #expect(puppy.kennel?.name == "North")
        try store.write { try store.delete(puppy) }
        #expect(try puppy.friends.count == 0)
        #expect(puppy.kennel == nil, "never a made-up kennel")
        let all = try store.objects(Kennel.self)
        let beyond = all[5]
        #expect(beyond.isInvalidated)
    }

    @Test("A type without a primary key never gives a deleted object's _id to a new one (a kept handle read it)")
    func deletedRowidsAreNotReused() throws {
        let schema = try Schema(
            family: "tags", version: 0, types: [ObjectSchema("Tag", [Property("label", .string, default: "")])])
        let store = try Store.inMemory(schema: schema)
        let tags: [DynamicObject] = try store.write { try (1...3).map { try store.create("Tag", value: ["label": "t\($0)"]) } }
        let last = tags[2]
        #expect(last["label"] == .string("t3"))
        let lastKey = last.primaryKeyValue
        try store.write { try store.delete(last) }
        let next: DynamicObject = try store.write { try store.create("Tag", value: ["label": "someone else"]) }
        #expect(next.primaryKeyValue != lastKey, "the deleted object's _id \(lastKey) was given again")
        #expect(last.isInvalidated)
        #expect(last["label"] == .string("t3"), "the deleted handle keeps its own last values")
        // Through a query too, and after deleting everything.
        try store.write { try store.delete(store.objects("Tag").filter("label == 'someone else'")) }
        let again: DynamicObject = try store.write { try store.create("Tag", value: ["label": "new"]) }
        #expect(again.primaryKeyValue != next.primaryKeyValue)
        try store.write { try store.deleteAll() }
        let after: DynamicObject = try store.write { try store.create("Tag", value: ["label": "after"]) }
        #expect(after.primaryKeyValue != again.primaryKeyValue)
    }

    @Test("Many readers of objects another task deletes: no trap, every read a value the object had")
    func concurrentDeletesNeverTrap() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-deleted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.appendingPathComponent("p.sqlite").path, schema: try ModelSemanticsTests.pets())
        try store.write { for i in 0..<2000 { try store.create(Puppy.self, value: ["id": i, "name": "p\(i)"]) } }
        let deleter = Task.detached {
            for i in stride(from: 0, to: 2000, by: 20) {
                try store.write { try store.delete(try store.objects(Puppy.self).filter("id >= %d AND id < %d", i, i + 20)) }
            }
        }
        var read = 0
        var wrong = 0
        for puppy in try store.objects(Puppy.self) {
            let name = puppy.name
            if name != "p\(puppy.id)" && name != "" { wrong += 1 }
            read += 1
        }
        try await deleter.value
        #expect(read > 0 && wrong == 0, "\(read) read, \(wrong) wrong")
    }
}

@Suite("A write is all or nothing, also when misused")
struct WriteBlockMisuseTests {
    @Test("commitWrite() inside write { } rolls the whole write back and throws, instead of committing half")
    func commitInsideAWriteBlock() throws {
        let store = try Store.inMemory(schema: try ModelSemanticsTests.pets())
        #expect(throws: StoreError.commitInsideWriteBlock) {
            try store.write {
                try store.create(Puppy.self, value: ["id": 1, "name": "Rex"])
                try store.commitWrite()
                try store.create(Puppy.self, value: ["id": 2, "name": "Max"])
            }
        }
        #expect(try store.objects(Puppy.self).count == 0)
        // The store is usable afterwards, and beginWrite/commitWrite on their own still commit.
        try store.beginWrite()
        try store.create(Puppy.self, value: ["id": 3, "name": "Bo"])
        try store.commitWrite()
        try store.write { try store.create(Puppy.self, value: ["id": 4, "name": "Lu"]) }
        #expect(try store.objects(Puppy.self).count == 2)
    }
}
