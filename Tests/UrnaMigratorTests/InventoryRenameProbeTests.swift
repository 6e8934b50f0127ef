import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Inventory trial probes: renames that meet other changes, and keys that change under incoming links.
@Suite struct InventoryRenameProbeTests {
    typealias P = InventoryProbeTests

    static func product(_ props: [Property]) -> ObjectSchema { ObjectSchema("Product", props) }

    /// Two properties whose names renames swap: the table's SQL is the same, so the step left it alone and the
    /// run said nothing (each column kept the other's meaning).
    @Test func swappedNamesSwapTheValues() throws {
        let dir = try Fixture.directory()
        let a = [
            Self.product([
                Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
                Property("title", .string, default: ""),
            ])
        ]
        let path = try P.file(dir, a, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        let step = MigrationStep(renames: [
            PropertyRename(type: "Product", from: "name", to: "title"),
            PropertyRename(type: "Product", from: "title", to: "name"),
        ])
        let m = Migrator(family: P.family(a, a, step))
        let dry = try m.dryRun(path: path, sample: 0)
        #expect(dry.steps.first?.activity.first { $0.type == "Product" }?.copied == 1)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try P.column(path, "SELECT name || '/' || title FROM Product") == ["Bolt M8/bolt"])
    }

    /// `title` renamed to `name` while the old `name` goes: the old names are data dropped without permission.
    /// (The run exited 0 and the old names were gone: the check took `name` for kept because v1 has a `name`.)
    @Test func renamedOntoARemovedPropertysNameNeedsPermissionForTheOldValues() throws {
        let dir = try Fixture.directory()
        let a = [
            Self.product([
                Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
                Property("title", .string, default: ""),
            ])
        ]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let path = try P.file(dir, a, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        let step = MigrationStep(renames: [PropertyRename(type: "Product", from: "title", to: "name")])
        let m = Migrator(family: P.family(a, b, step))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        let now = try P.column(path, "SELECT name FROM Product")
        #expect(message.contains("Product.name: Product.title is renamed to name"), "\(message); now: \(now)")
        #expect(message.contains("--allow-loss Product.name"), "\(message)")
        #expect(try P.column(path, "SELECT name FROM Product") == ["bolt"])
        // Allowed, the run drops them and says so.
        let allowed = MigrationStep(
            renames: [PropertyRename(type: "Product", from: "title", to: "name")],
            allowances: [.discard(type: "Product", property: "name")])
        let report = try Migrator(family: P.family(a, b, allowed)).run(
            try Migrator(family: P.family(a, b, allowed)).plan(path: path), backup: .none)
        #expect(report.steps.first?.droppedData.map { "\($0.property ?? "*"):\($0.values)" } == ["name:1"])
        #expect(try P.column(path, "SELECT name FROM Product") == ["Bolt M8"])
    }

    @Test func renameWithALossyTypeChangeIsRefused() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, primaryKey: true), Property("qty", .string, default: "")])]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("count", .int64, default: 0)])]
        let path = try P.file(dir, a, [["sku": "A", "qty": "12a"]])
        let step = MigrationStep(renames: [PropertyRename(type: "Product", from: "qty", to: "count")])
        let m = Migrator(family: P.family(a, b, step))
        let message = P.outcome { _ = try m.plan(path: path) }
        #expect(message.contains("Product.count") || message.contains("Product.qty"), "\(message)")
    }

    static let bin = ObjectSchema(
        "Bin",
        [
            Property("id", .int64, primaryKey: true), Property("products", .list("Product")),
            Property("best", .link("Product")),
        ])

    static func binFile(_ dir: TemporaryDirectory, _ a: [ObjectSchema]) throws -> String {
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, a))
        try store.write {
            let x = try store.create("Product", value: ["sku": "A", "code": 10])
            let y = try store.create("Product", value: ["sku": "B", "code": 20])
            try store.create("Bin", value: ["id": 1, "products": [y, x], "best": y] as [String: Any])
        }
        return path
    }

    static let linksSQL =
        "SELECT group_concat(p.code) FROM Bin_products bp JOIN Product p ON p.\(Identifier.quoted("_id")) = bp.target OR p.sku = bp.target"

    /// The key moves from `sku` to `code` (another property the objects already hold): the bins still hold the same products.
    @Test func keyMovedToAnotherPropertyKeepsIncomingLinks() throws {
        let dir = try Fixture.directory()
        let a = [
            Self.product([Property("sku", .string, primaryKey: true), Property("code", .int64, default: 0)]), Self.bin,
        ]
        let b = [
            Self.product([Property("sku", .string, default: ""), Property("code", .int64, primaryKey: true)]), Self.bin,
        ]
        let path = try Self.binFile(dir, a)
        let m = Migrator(family: P.family(a, b))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        if message == "ok" {
            let store = try Store.openExisting(path: path)
            let bin = try #require(try store.object(ofType: "Bin", forPrimaryKey: .int(1)))
            let held = try bin.value(forKey: "products")
            #expect(
                held == .list([LinkTarget(type: "Product", key: .int(20)), LinkTarget(type: "Product", key: .int(10))]))
            #expect(try bin.value(forKey: "best") == .link(LinkTarget(type: "Product", key: .int(20))))
        } else {
            #expect(message.contains("Product"), "\(message)")
        }
    }

    /// Product loses its key (sku stays a plain property): the bins still hold the same products.
    @Test func keyRemovedKeepsIncomingLinks() throws {
        let dir = try Fixture.directory()
        let a = [
            Self.product([Property("sku", .string, primaryKey: true), Property("code", .int64, default: 0)]), Self.bin,
        ]
        let b = [
            Self.product([Property("sku", .string, default: ""), Property("code", .int64, default: 0)]), Self.bin,
        ]
        let path = try Self.binFile(dir, a)
        let m = Migrator(family: P.family(a, b))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        if message == "ok" {
            let store = try Store.openExisting(path: path)
            let bin = try #require(try store.object(ofType: "Bin", forPrimaryKey: .int(1)))
            guard case .list(let held) = try bin.value(forKey: "products") else {
                Issue.record("no list")
                return
            }
            let codes = try held.map {
                try store.object(ofType: "Product", forPrimaryKey: $0.key)?.value(forKey: "code")
            }
            #expect(codes == [.int(20), .int(10)])
        } else {
            #expect(message.contains("Product"), "\(message)")
        }
    }

    @Test func optionalKeyWithTwoNilsBecomingTheKeyIsRefused() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, optional: true), Property("name", .string, default: "")])]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let path = try P.file(dir, a, [["name": "bolt"], ["name": "nut"], ["sku": "C", "name": "washer"]])
        let before = try RowChecker.rows(path)
        let m = Migrator(family: P.family(a, b))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        let now = try P.column(path, "SELECT coalesce(sku, 'nil') || ':' || name FROM Product")
        #expect(message != "ok", "\(now)")
        #expect(try RowChecker.rows(path) == before)
    }

    /// Supplier removed with `.discardType`: the links to it (Product.supplier, removed too) need their own
    /// permission, and with it the dry run counts them.
    @Test func removedTypeWithIncomingLinksNeedsTheLinksPermissionToo() throws {
        let dir = try Fixture.directory()
        let supplier = ObjectSchema("Supplier", [Property("id", .int64, primaryKey: true)])
        let a = [
            supplier,
            Self.product([Property("sku", .string, primaryKey: true), Property("supplier", .link("Supplier"))]),
        ]
        let b = [Self.product([Property("sku", .string, primaryKey: true)])]
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, a))
        try store.write {
            let s = try store.create("Supplier", value: ["id": 1])
            try store.create("Product", value: ["sku": "A", "supplier": s] as [String: Any])
        }
        let refused = P.outcome {
            _ = try Migrator(family: P.family(a, b, MigrationStep(allowances: [.discardType(type: "Supplier")])))
                .plan(path: path)
        }
        #expect(refused.contains("--allow-loss Product.supplier"), "\(refused)")
        let allowed = MigrationStep(allowances: [
            .discardType(type: "Supplier"), .discard(type: "Product", property: "supplier"),
        ])
        let dry = try Migrator(family: P.family(a, b, allowed)).dryRun(path: path, sample: 0)
        let dropped = dry.steps.flatMap(\.droppedData).map { "\($0.type).\($0.property ?? "*"):\($0.values)" }
        #expect(Set(dropped) == ["Supplier.*:1", "Supplier.id:1", "Product.supplier:1"], "\(dropped)")
    }
}
