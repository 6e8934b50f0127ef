import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Inventory trial: renames that swap two names, followed by a step that rebuilds the type (fused and not), and a
/// renamed key under incoming links.
@Suite struct InventorySwapFusionTests {
    typealias P = InventoryProbeTests

    static let v0 = [
        P.product([
            Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
            Property("title", .string, default: ""),
        ])
    ]
    static let v2 = [
        P.product([
            Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
            Property("title", .string, default: ""), Property("qty", .int64, default: 5),
        ])
    ]

    static var family: SchemaFamily {
        SchemaFamily(
            name: "inventory",
            versions: [
                SchemaVersion(P.schema(0, v0)),
                SchemaVersion(
                    P.schema(1, v0),
                    step: MigrationStep(renames: [
                        PropertyRename(type: "Product", from: "name", to: "title"),
                        PropertyRename(type: "Product", from: "title", to: "name"),
                    ])),
                SchemaVersion(P.schema(2, v2)),
            ])
    }

    @Test(arguments: [true, false]) func swapThenAddedPropertyInOneRun(fuses: Bool) throws {
        let dir = try Fixture.directory()
        let path = try P.file(dir, Self.v0, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        var options = MigrationOptions()
        options.fusesSteps = fuses
        let m = Migrator(family: Self.family, options: options)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try P.column(path, "SELECT name || '/' || title || '/' || qty FROM Product") == ["Bolt M8/bolt/5"])
    }

    @Test func renamedKeyKeepsIncomingLinks() throws {
        let dir = try Fixture.directory()
        func types(_ key: String) -> [ObjectSchema] {
            [
                P.product([Property(key, .string, primaryKey: true), Property("name", .string, default: "")]),
                ObjectSchema(
                    "Bin", [Property("id", .int64, primaryKey: true), Property("products", .list("Product"))]),
            ]
        }
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, types("sku")))
        try store.write {
            let x = try store.create("Product", value: ["sku": "A", "name": "bolt"])
            let y = try store.create("Product", value: ["sku": "B", "name": "nut"])
            try store.create("Bin", value: ["id": 1, "products": [y, x]] as [String: Any])
        }
        let m = Migrator(
            family: P.family(
                types("sku"), types("code"),
                MigrationStep(renames: [PropertyRename(type: "Product", from: "sku", to: "code")])))
        _ = try m.run(try m.plan(path: path), backup: .none)
        guard let held = try P.binProducts(in: try Store.openExisting(path: path), "name") else { return }
        #expect(held.values == [.string("nut"), .string("bolt")])
    }

    /// Swapped names of an indexed and a plain property: the index follows the name (`Product_name_idx` on the
    /// new `name`), and queries through it find the swapped values.
    @Test func swappedIndexedNameKeepsItsIndex() throws {
        let dir = try Fixture.directory()
        let a = [
            P.product([
                Property("sku", .string, primaryKey: true), Property("name", .string, default: "", indexed: true),
                Property("title", .string, default: ""),
            ])
        ]
        let path = try P.file(dir, a, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        let step = MigrationStep(renames: [
            PropertyRename(type: "Product", from: "name", to: "title"),
            PropertyRename(type: "Product", from: "title", to: "name"),
        ])
        let m = Migrator(family: P.family(a, a, step))
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(
            try P.column(
                path, "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Product' AND sql IS NOT NULL"
            )
            .contains { $0.contains("\"name\"") })
        let store = try Store.openExisting(path: path)
        #expect(try store.objects("Product").filter("name == %@", "Bolt M8").count == 1)
        #expect(try P.column(path, "PRAGMA integrity_check") == ["ok"])
    }
}
