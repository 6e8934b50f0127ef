import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// The README's Swift examples, run as written (so the README cannot drift from the API).
@Suite("README examples")
struct ReadmeExampleTests {
    final class Dog: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var age = 0
        @Persisted var owner: Person?
    }

    final class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var dogs: List<Dog>
        @Persisted(originProperty: "owner") var ownedDogs: LinkingObjects<Dog>
        var scratch = ""
    }

    func temporaryPath(_ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name).path
    }

    @Test("Declare models, open a store, write, query")
    func storeExample() throws {
        let schema = try Schema(family: "pets", version: 1, models: [Dog.self, Person.self])
        let store = try Store(path: try temporaryPath("pets.sqlite"), schema: schema)
        try store.write {
            try store.create(Person.self, value: [1, "Jane", [[1, "Buster", 5], [2, "Buddy", 6]]])
            try store.create(Dog.self, value: ["id": 2, "age": 7], update: .modified)
        }
        let puppies = try store.objects(Dog.self).filter("age < %d", 7).sorted(byKeyPath: "name")
        #expect(try puppies.count == 1)
        #expect(puppies.first?.name == "Buster")
        #expect(try store.object(ofType: Dog.self, forPrimaryKey: 2)?.name == "Buddy")
        #expect(try store.object(ofType: Person.self, forPrimaryKey: 1)?.dogs.map(\.age) == [5, 7])
    }

    @Test("Register a migration, preview it, run it")
    func migrationExample() throws {
        let path = try temporaryPath("people.sqlite")
        let v0 = try Schema(family: "people", version: 0, types: [ObjectSchema("Person", [
            Property("firstName", .string, default: ""), Property("lastName", .string, default: ""),
            Property("age", .int64, default: 0)])])
        let v1 = try Schema(family: "people", version: 1, types: [ObjectSchema("Person", [
            Property("fullName", .string, default: ""), Property("age", .int64, default: 0)])])
        do {
            let store = try Store(path: path, schema: v0)
            try store.write { try store.create("Person", value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36]) }
        }
        let people = SchemaFamily(name: "people", versions: [
            SchemaVersion(v0),
            SchemaVersion(v1, step: MigrationStep("fullName = firstName + \" \" + lastName") { migration in
                try migration.enumerateObjects(ofType: "Person") { old, new in
                    new["fullName"] = .string("\(old["firstName"].stringValue ?? "") \(old["lastName"].stringValue ?? "")")
                }
            }),
        ])
        let migrator = Migrator(family: people)
        let preview = try migrator.dryRun(path: path, to: 1, sample: 3).renderText()
        #expect(preview.contains("fullName"))
        #expect(try Store.openExisting(path: path).schema.version == 0)
        _ = try migrator.run(try migrator.plan(path: path, to: 1), backup: .besideFile)
        let store = try Store.openExisting(path: path)
        #expect(store.schema.version == 1)
        #expect(try store.objects("Person").first?["fullName"] == .string("Ada Lovelace"))
    }
}
