import Foundation
import Testing

@testable import UrnaStore

/// Reads that fail must say so: `count` used to swallow SQLite errors and answer 0, and a column that another
/// process renamed away used to read as its own name (SQLite's double-quoted string fallback).
@Suite("Reads report their errors")
struct ReadErrorTests {
    func temporaryFile() throws -> (dir: URL, path: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-count-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, dir.appendingPathComponent("people.sqlite").path)
    }

    /// A store at `path` with persons P0, P1, P2 aged 0, 1, 2.
    static func threePeople(at path: String) throws -> Store {
        let store = try Store(path: path, schema: StoreBehaviourTests.people)
        try store.write {
            for i in 0..<3 { try store.create("Person", value: ["fullName": "P\(i)", "age": i]) }
        }
        return store
    }

    @Test("A table dropped by another connection makes count, isEmpty and typed counts throw, not answer 0")
    func droppedTable() throws {
        let (dir, path) = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Self.threePeople(at: path)
        let adults = try store.objects("Person").filter("age >= %d", 1)
        #expect(try adults.count == 2)
        #expect(try adults.isEmpty == false)

        // Another connection (another process, in real life) removes the table under the store.
        let other = try Connection(path: path)
        try other.execute("DROP TABLE Person")

        let fresh = try store.objects("Person")
        let error = #expect(throws: SQLiteError.self) { try fresh.count }
        #expect(error?.message.contains("no such table") == true, "\(String(describing: error))")
        #expect(throws: SQLiteError.self) { try fresh.isEmpty }
        #expect(throws: SQLiteError.self) { try fresh.filter("age > 0").count }
    }

    @Test("objects(), firstObject(), lastObject() and object(at:) throw where iteration, first and last answer nothing")
    func throwingForms() throws {
        let (dir, path) = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Self.threePeople(at: path)
        let byAge = try store.objects("Person").filter("age >= %d", 1).sorted(byKeyPath: "age")
        #expect(try byAge.objects().map { try $0.value(forKey: "fullName") } == [.string("P1"), .string("P2")])
        #expect(try byAge.firstObject()?.value(forKey: "age") == .int(1))
        #expect(try byAge.lastObject()?.value(forKey: "age") == .int(2))
        #expect(try byAge.object(at: 1).value(forKey: "fullName") == .string("P2"))
        let outOfRange = #expect(throws: StoreError.self) { try byAge.object(at: 2) }
        #expect(outOfRange?.description == "index 2 is out of range: the results hold 2 objects")
        #expect(try store.objects("Person").filter("age > 5").firstObject() == nil)
        #expect(try store.objects("Person").filter("age > 5").objects().isEmpty)

        let other = try Connection(path: path)
        try other.execute("DROP TABLE Person")
        let fresh = try store.objects("Person")
        #expect(throws: SQLiteError.self) { try fresh.objects() }
        #expect(throws: SQLiteError.self) { try fresh.firstObject() }
        #expect(throws: SQLiteError.self) { try fresh.lastObject() }
        #expect(throws: SQLiteError.self) { try fresh.object(at: 0) }
        // The non-throwing conveniences answer nothing (as documented), the throwing forms said why.
        #expect(fresh.first == nil)
        #expect(fresh.last == nil)
        #expect(Array(fresh).isEmpty)
    }

    @Test("List and LinkingObjects counts throw when their table is gone")
    func listCounts() throws {
        let (dir, path) = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: SeedSchemas.dogs())
        let owner = DogOwner(value: ["name": "Ada"])
        try store.write {
            try store.add(owner)
            try owner.dogs.append(Dog(value: ["name": "Rex", "age": 3]))
            try owner.dogs.append(Dog(value: ["name": "Fido", "age": 5]))
        }
        let rex = try #require(try store.objects(Dog.self).filter("name == 'Rex'").first)
        #expect(try owner.dogs.count == 2)
        #expect(try rex.owners.count == 1)
        #expect(try store.objects(Dog.self).count == 2)

        let other = try Connection(path: path)
        try other.execute("DROP TABLE \(Identifier.quoted(StorageLayout.listTable(type: "Person", property: "dogs")))")
        #expect(try store.objects(Dog.self).sorted(byKeyPath: "age").objects().map(\.name) == ["Rex", "Fido"])
        #expect(try store.objects(Dog.self).sorted(byKeyPath: "age").lastObject()?.name == "Fido")
        #expect(throws: SQLiteError.self) { try owner.dogs.count }
        #expect(throws: SQLiteError.self) { try rex.owners.count }
        // The dogs themselves are still there: only the broken reads throw.
        #expect(try store.objects(Dog.self).count == 2)
        try other.execute("DROP TABLE Dog")
        #expect(throws: SQLiteError.self) { try store.objects(Dog.self).objects() }
        #expect(throws: SQLiteError.self) { try store.objects(Dog.self).firstObject() }
        #expect(try store.objects(Dog.self).first == nil)
    }

    @Test("Unmanaged lists and linking objects still count without a store")
    func unmanaged() throws {
        let owner = DogOwner(value: ["name": "Ada", "dogs": [Dog(value: ["name": "Rex"])]])
        #expect(try owner.dogs.count == 1)
        #expect(try Dog().owners.count == 0)
    }

    @Test("A column renamed by another connection is an error, never its own name read back as text")
    func staleColumn() throws {
        let (dir, path) = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let store = try Store(path: path, schema: StoreBehaviourTests.people)
            try store.write {
                try store.create("Person", value: ["fullName": "Ada", "email": "ada@example.org", "age": 36])
            }
        }
        let store = try Store.openExisting(path: path, readOnly: true)
        let ada = try #require(try store.objects("Person").first)
        #expect(try ada.value(forKey: "email") == .string("ada@example.org"))

        // Another process changes the table's shape (as a migration does) after this store read the schema.
        let other = try Connection(path: path)
        try other.execute("ALTER TABLE Person RENAME COLUMN email TO mail")

        let again = try #require(try store.objects("Person").first)
        let error = #expect(throws: SQLiteError.self) { try again.value(forKey: "email") }
        #expect(error?.message.contains("no such column") == true, "\(String(describing: error))")
        #expect(throws: SQLiteError.self) { try store.objects("Person").filter("email == 'email'").count }
    }
}

@Suite("Read-only media")
struct ReadOnlyMediaTests {
    @Test("Paths become SQLite URI paths with %, ? and # escaped")
    func uriEscaping() {
        #expect(Connection.uriEscaped("/media/cd/urna.sqlite") == "/media/cd/urna.sqlite")
        #expect(Connection.uriEscaped("/a%b/c?d#e.sqlite") == "/a%25b/c%3fd%23e.sqlite")
        #expect(Connection.uriEscaped("/dados/eleições.sqlite") == "/dados/eleições.sqlite")
    }

    @Test("A file on a writable file system is never opened as immutable")
    func writableIsNotSettled() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("urna-ro-\(UUID().uuidString).sqlite")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Connection(path: path)
        #expect(Connection.isSettledOnReadOnlyMedia(path) == false)
    }
}
