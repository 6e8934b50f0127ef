import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// Realm's migration powers on a small kennel: enumerate old and new, rename a property, delete all
/// data of a type, create and delete objects, change primary keys with links and lists following.
@Suite struct ClosurePowersTests {
    static let v0 = try! Schema(
        family: "kennel", version: 0,
        types: [
            ObjectSchema("Owner", [Property("id", .int64, primaryKey: true), Property("name", .string, default: "")]),
            ObjectSchema(
                "Dog",
                [
                    Property("id", .int64, primaryKey: true), Property("name", .string, default: ""),
                    Property("owner", .link("Owner")),
                    Property("friends", .list("Dog")),
                ]),
            ObjectSchema("Tag", [Property("label", .string, default: "")]),
            ObjectSchema("Kennel", [Property("name", .string, default: "")]),
        ])
    static let v1 = try! Schema(
        family: "kennel", version: 1,
        types: [
            ObjectSchema(
                "Owner",
                [
                    Property("id", .string, primaryKey: true), Property("name", .string, default: ""),
                    Property("dogs", .linkingObjects(type: "Dog", property: "owner")),
                ]),
            ObjectSchema(
                "Dog",
                [
                    Property("id", .int64, primaryKey: true), Property("nickname", .string, default: "", indexed: true),
                    Property("owner", .link("Owner")),
                    Property("friends", .list("Dog")), Property("walker", .link("Owner")),
                ]),
            ObjectSchema("Tag", [Property("label", .string, default: "")]),
        ])

    static func family(_ closure: @escaping MigrationClosure) -> SchemaFamily {
        SchemaFamily(
            name: "kennel",
            versions: [SchemaVersion(v0), SchemaVersion(v1, step: MigrationStep("kennel", migration: closure))])
    }

    static func file(_ path: String) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            let ann = try store.create("Owner", value: ["id": 1, "name": "Ann"])
            let bob = try store.create("Owner", value: ["id": 2, "name": "Bob"])
            let rex = try store.create("Dog", value: ["id": 10, "name": "Rex", "owner": ann])
            let fido = try store.create("Dog", value: ["id": 11, "name": "Fido", "owner": bob, "friends": [rex]])
            try store.create("Dog", value: ["id": 12, "name": "Lassie", "owner": ann, "friends": [rex, fido]])
            try store.create("Tag", value: ["label": "good"])
            try store.create("Kennel", value: ["name": "North"])
        }
    }

    @Test func everyPower() throws {
        let dir = try Fixture.directory()
        let path = dir.file("kennel.sqlite")
        try Self.file(path)
        let family = Self.family { m in
            #expect(m.oldSchemaVersion == 0 && m.newSchemaVersion == 1)
            try m.renameProperty(onType: "Dog", from: "name", to: "nickname")
            try m.enumerateObjects(ofType: "Owner") { old, new in
                new["id"] = .string("o\(old["id"])")  // re-keyed: dogs' links must follow
            }
            let carol = try m.create("Owner", value: ["id": "carol", "name": "Carol"])
            try m.enumerateObjects(ofType: "Dog") { old, new in
                if old["name"] == "Rex" { try m.delete(new) }
                if old["id"] == 11 {
                    new["walker"] = carol.link  // a link to a created object
                    new["owner"] = .link(LinkTarget(type: "Owner", key: "o1"))  // explicit, final key
                }
                if old["id"] == 12 { new["walker"] = .link(LinkTarget(type: "Owner", key: "o2")) }
            }
            try m.deleteData(forType: "Tag")
            var kennels = 0
            try m.enumerateObjects(ofType: "Kennel") { old, new in
                kennels += 1
                #expect(old["name"] == "North")
                #expect(throws: MigrationObjectError.self) { try new.setValue("x", forKey: "name") }
            }
            #expect(kennels == 1)
            // Second pass over Dog sees the new forms written by the first.
            try m.enumerateObjects(ofType: "Dog") { old, new in
                #expect(new["nickname"] == old["name"])
            }
            #expect(try m.newObject(ofType: "Owner", oldPrimaryKey: 2)?["id"] == "o2")
            #expect(try m.oldObject(ofType: "Owner", forPrimaryKey: 2)?["name"] == "Bob")
        }
        let migrator = Migrator(family: family)
        let preview = try migrator.dryRun(path: path)
        #expect(preview.outcome == .previewed, "\(preview.failures)")
        let report = try migrator.run(try migrator.plan(path: path), backup: .none)
        let step = report.steps[0]
        #expect(step.diff.typeChanges.first { $0.type == "Dog" }?.renamed == [Rename(from: "name", to: "nickname")])
        #expect(step.droppedData.contains(DroppedData(type: "Kennel", property: nil, values: 1, readByClosure: true)))
        let activity = Dictionary(uniqueKeysWithValues: step.activity.map { ($0.type, $0) })
        #expect(activity["Dog"]?.deleted == 1)
        #expect(activity["Owner"]?.created == 1)
        #expect(activity["Tag"]?.deleted == 1)

        let store = try Store(path: path, schema: Self.v1)
        #expect(try store.counts() == ["Owner": 3, "Dog": 2, "Tag": 0])
        let fido = try #require(try store.object(ofType: "Dog", forPrimaryKey: 11))
        let lassie = try #require(try store.object(ofType: "Dog", forPrimaryKey: 12))
        #expect(fido["nickname"] == "Fido")
        #expect(fido["owner"] == .link(LinkTarget(type: "Owner", key: "o1")), "explicit link kept")
        #expect(fido["walker"] == .link(LinkTarget(type: "Owner", key: "carol")))
        #expect(fido["friends"] == .list([]), "the deleted Rex left every list")
        #expect(lassie["owner"] == .link(LinkTarget(type: "Owner", key: "o1")), "carried link followed the new key")
        #expect(lassie["walker"] == .link(LinkTarget(type: "Owner", key: "o2")))
        #expect(lassie["friends"] == .list([LinkTarget(type: "Dog", key: 11)]))
        let ann = try #require(try store.object(ofType: "Owner", forPrimaryKey: "o1"))
        #expect(Set(Array(try ann.linkingObjects("dogs")).map(\.primaryKeyValue)) == [11, 12])
        #expect(try store.object(ofType: "Owner", forPrimaryKey: "o2")?["name"] == "Bob")
        #expect(
            try Connection(path: path).rows("SELECT name FROM sqlite_master WHERE name = 'Dog_nickname_idx'").count == 1
        )
    }

    /// Old keys that collide with other objects' new keys: the rewrite uses the old key of each link.
    @Test func swappedKeys() throws {
        let dir = try Fixture.directory()
        let path = dir.file("kennel.sqlite")
        try Self.file(path)
        let v1 = try Schema(family: "kennel", version: 1, types: Self.v0.types)
        let family = SchemaFamily(
            name: "kennel",
            versions: [
                SchemaVersion(Self.v0),
                SchemaVersion(
                    v1,
                    step: MigrationStep { m in
                        try m.enumerateObjects(ofType: "Owner") { old, new in new["id"] = old["id"] == 1 ? 2 : 1 }  // Ann ↔ Bob
                        try m.enumerateObjects(ofType: "Dog") { old, new in
                            new["id"] = .int(110 - (old["id"].intValue ?? 0))
                        }  // 10→100, 11→99, 12→98
                    }),
            ])
        _ = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        let store = try Store(path: path, schema: v1)
        #expect(try store.object(ofType: "Owner", forPrimaryKey: 2)?["name"] == "Ann")
        let rex = try #require(try store.object(ofType: "Dog", forPrimaryKey: 100))
        #expect(rex["name"] == "Rex")
        #expect(rex["owner"] == .link(LinkTarget(type: "Owner", key: 2)))
        let lassie = try #require(try store.object(ofType: "Dog", forPrimaryKey: 98))
        #expect(lassie["friends"] == .list([LinkTarget(type: "Dog", key: 100), LinkTarget(type: "Dog", key: 99)]))
        #expect(lassie["owner"] == .link(LinkTarget(type: "Owner", key: 2)))
        #expect(
            try store.object(ofType: "Dog", forPrimaryKey: 99)?["owner"] == .link(LinkTarget(type: "Owner", key: 1)))
    }

    @Test func misuseIsReported() throws {
        let dir = try Fixture.directory()
        let path = dir.file("kennel.sqlite")
        try Self.file(path)
        let typo = Self.family { m in
            try m.enumerateObjects(ofType: "Owner") { old, new in new["id"] = .string("\(old["idd"])") }
        }
        let report = try Migrator(family: typo).dryRun(path: path)
        #expect(report.outcome == .failed)
        #expect(report.failures.first?.message.contains("Owner has no property 'idd' in version 0") == true)
        let readOnly = Self.family { m in
            try m.enumerateObjects(ofType: "Owner") { old, _ in old["name"] = "x" }
        }
        #expect(try Migrator(family: readOnly).dryRun(path: path).failures.first?.message.contains("read-only") == true)
        let late = Self.family { m in
            try m.enumerateObjects(ofType: "Dog") { _, _ in }
            try m.renameProperty(onType: "Dog", from: "name", to: "nickname")
        }
        #expect(
            try Migrator(family: late).dryRun(path: path).failures.first?.message.contains("before enumerating") == true
        )
    }
}
