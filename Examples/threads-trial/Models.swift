import Foundation
import UrnaMigrator
import UrnaStore

/// The trial app's models: a shared counter, items each writer adds, people with lists of dogs.
final class Counter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var n = 0
}

final class Item: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted(indexed: true) var worker = ""
    @Persisted var seq = 0
    @Persisted var batch = 0
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<Dog>
}

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

enum TrialSchema {
    static func schema() throws -> Schema {
        try Schema(family: "threadstrial", version: 1, models: [Counter.self, Item.self, Person.self, Dog.self])
    }
}

/// A family for the migration scenarios: v1 Entry(id, v), v2 adds w = 2 * v in a closure.
enum EntryFamily {
    static let v1 = try! Schema(
        family: "entries", version: 1,
        types: [
            ObjectSchema(
                "Entry",
                [
                    Property("id", .string, primaryKey: true), Property("v", .int64, default: 0),
                    Property("writer", .string, default: ""),
                ])
        ])
    static let v2 = try! Schema(
        family: "entries", version: 2,
        types: [
            ObjectSchema(
                "Entry",
                [
                    Property("id", .string, primaryKey: true), Property("v", .int64, default: 0),
                    Property("writer", .string, default: ""), Property("w", .int64, default: 0),
                ])
        ])
    static let family = SchemaFamily(
        name: "entries",
        versions: [
            SchemaVersion(v1),
            SchemaVersion(
                v2,
                step: MigrationStep("w = 2v") { migration in
                    try migration.enumerateObjects(ofType: "Entry") { old, new in
                        new["w"] = .int((old["v"].intValue ?? 0) * 2)
                    }
                }),
        ])
}
