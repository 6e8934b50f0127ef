import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Inventory trial: keys whose kind changes (Int -> String, UUID -> String) under incoming links and lists, and a
/// rename inside an embedded type.
@Suite struct InventoryKeyKindTests {
    typealias P = InventoryProbeTests

    static func types(key: PropertyType) -> [ObjectSchema] {
        [
            P.product([Property("sku", key, primaryKey: true), Property("name", .string, default: "")]),
            ObjectSchema(
                "Bin",
                [
                    Property("id", .int64, primaryKey: true), Property("products", .list("Product")),
                    Property("best", .link("Product")),
                ]),
        ]
    }

    static func check(from: PropertyType, keys: [Any], expected: [Value]) throws {
        let dir = try Fixture.directory()
        let a = Self.types(key: from)
        let b = Self.types(key: .string)
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, a))
        try store.write {
            let x = try store.create("Product", value: ["sku": keys[0], "name": "bolt"])
            let y = try store.create("Product", value: ["sku": keys[1], "name": "nut"])
            try store.create("Bin", value: ["id": 1, "products": [y, x], "best": y] as [String: Any])
        }
        let m = Migrator(
            family: P.family(a, b, MigrationStep(allowances: [.lossyConversion(type: "Product", property: "sku")])))
        _ = try m.run(try m.plan(path: path), backup: .none)
        let after = try Store.openExisting(path: path)
        let bin = try #require(try after.object(ofType: "Bin", forPrimaryKey: .int(1)))
        guard case .list(let held) = try bin.value(forKey: "products"),
            case .link(let best) = try bin.value(forKey: "best")
        else {
            Issue.record("Bin 1 lost its products")
            return
        }
        #expect(held.map(\.key) == [expected[1], expected[0]])
        #expect(best.key == expected[1])
        let names = try held.map { try after.object(ofType: "Product", forPrimaryKey: $0.key)?.value(forKey: "name") }
        #expect(names == [.string("nut"), .string("bolt")])
    }

    @Test func intKeysBecomeTextAndTheLinksFollow() throws {
        try Self.check(from: .int64, keys: [7, 12], expected: [.string("7"), .string("12")])
    }

    @Test func uuidKeysBecomeTextAndTheLinksFollow() throws {
        let u = [
            UUID(uuidString: "0E0B7A52-4C2D-4F57-9A4B-0A5D2C9E1F01")!,
            UUID(uuidString: "0E0B7A52-4C2D-4F57-9A4B-0A5D2C9E1F02")!,
        ]
        try Self.check(from: .uuid, keys: u, expected: u.map { .string($0.uuidString.lowercased()) })
    }

    /// A property of an embedded type renamed with a declared rename: renames are not applied inside embedded
    /// objects, so the family is refused before any file is read, naming the rename and the fix (it was refused
    /// as "Address.street is removed", as if no rename had been declared), and the value stays.
    @Test func renameInsideAnEmbeddedTypeIsTheFamilysProblem() throws {
        let dir = try Fixture.directory()
        func types(_ street: String) -> [ObjectSchema] {
            [
                ObjectSchema("Address", embedded: true, [Property(street, .string, default: "")]),
                ObjectSchema(
                    "Warehouse",
                    [
                        Property("code", .string, primaryKey: true),
                        Property("address", .embedded("Address"), optional: true),
                    ]),
            ]
        }
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, types("street")))
        try store.write {
            try store.create(
                "Warehouse", value: ["code": "POA", "address": ["street": "Av. Ipiranga, 10"]] as [String: Any])
        }
        let family = P.family(
            types("street"), types("line1"),
            MigrationStep(renames: [PropertyRename(type: "Address", from: "street", to: "line1")]))
        let expected =
            "inventory v1: rename of Address.street to line1: Address is embedded, and renames are not applied inside "
            + "embedded objects"
        #expect(family.problems().contains { $0.hasPrefix(expected) }, "\(family.problems())")
        let message = P.outcome { _ = try Migrator(family: family).plan(path: path) }
        #expect(message.contains(expected), "\(message)")
        let after = try Store.openExisting(path: path)
        let w = try #require(try after.object(ofType: "Warehouse", forPrimaryKey: "POA"))
        #expect(try w.value(forKey: "address") == .embedded(["street": .string("Av. Ipiranga, 10")]))
    }

    /// The key's name swapped with another property's: `sku` now holds the old codes, and the bins still hold
    /// the same products.
    @Test func keySwappedWithAnotherPropertyKeepsIncomingLinks() throws {
        let dir = try Fixture.directory()
        let a = [
            P.product([Property("sku", .string, primaryKey: true), Property("code", .string, default: "")]),
            ObjectSchema("Bin", [Property("id", .int64, primaryKey: true), Property("products", .list("Product"))]),
        ]
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, a))
        try store.write {
            let x = try store.create("Product", value: ["sku": "A", "code": "c-1"])
            let y = try store.create("Product", value: ["sku": "B", "code": "c-2"])
            try store.create("Bin", value: ["id": 1, "products": [y, x]] as [String: Any])
        }
        let step = MigrationStep(renames: [
            PropertyRename(type: "Product", from: "sku", to: "code"),
            PropertyRename(type: "Product", from: "code", to: "sku"),
        ])
        let m = Migrator(family: P.family(a, a, step))
        _ = try m.run(try m.plan(path: path), backup: .none)
        guard let held = try P.binProducts(in: try Store.openExisting(path: path), "code") else { return }
        #expect(held.keys == [.string("c-2"), .string("c-1")])
        #expect(held.values == [.string("B"), .string("A")])
    }
}
