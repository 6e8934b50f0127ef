import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Inventory trial: renames of lists, and a rename onto a removed name beside a closure.
@Suite struct InventoryListRenameTests {
    typealias P = InventoryProbeTests

    static let tag = ObjectSchema("Tag", [Property("id", .int64, primaryKey: true)])

    static func product(_ lists: [String]) -> ObjectSchema {
        ObjectSchema(
            "Product",
            [Property("sku", .string, primaryKey: true), Property("name", .string, default: "")]
                + lists.map { Property($0, .list("Tag")) })
    }

    /// A v0 file: product A's `tags` hold 1, 2 and its `labels` hold 3.
    static func file(_ dir: TemporaryDirectory, _ a: [ObjectSchema]) throws -> String {
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: P.schema(0, a))
        try store.write {
            let t = try (1...3).map { try store.create("Tag", value: ["id": $0]) }
            try store.create("Product", value: ["sku": "A", "tags": [t[0], t[1]], "labels": [t[2]]] as [String: Any])
        }
        return path
    }

    static func held(_ path: String, _ list: String) throws -> [Value] {
        let store = try Store.openExisting(path: path)
        guard case .list(let l) = try store.object(ofType: "Product", forPrimaryKey: "A")?.value(forKey: list) else {
            return []
        }
        return l.map(\.key)
    }

    @Test func swappedListNamesSwapTheEntries() throws {
        let dir = try Fixture.directory()
        let a = [Self.tag, Self.product(["tags", "labels"])]
        let path = try Self.file(dir, a)
        let step = MigrationStep(renames: [
            PropertyRename(type: "Product", from: "tags", to: "labels"),
            PropertyRename(type: "Product", from: "labels", to: "tags"),
        ])
        let m = Migrator(family: P.family(a, a, step))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message == "ok")
        #expect(try Self.held(path, "tags") == [.int(3)])
        #expect(try Self.held(path, "labels") == [.int(1), .int(2)])
    }

    @Test func listRenamedOntoARemovedListsNameNeedsPermission() throws {
        let dir = try Fixture.directory()
        let a = [Self.tag, Self.product(["tags", "labels"])]
        let b = [Self.tag, Self.product(["tags"])]
        let path = try Self.file(dir, a)
        let step = MigrationStep(renames: [PropertyRename(type: "Product", from: "labels", to: "tags")])
        let m = Migrator(family: P.family(a, b, step))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("--allow-loss Product.tags"), "\(message)")
        #expect(try Self.held(path, "tags") == [.int(1), .int(2)])
    }

    /// Beside a closure that never reads the old `name`: `title` renamed onto `name` drops the old names.
    @Test func renameOntoARemovedNameBesideAClosureNeedsPermission() throws {
        let dir = try Fixture.directory()
        let a = [
            P.product([
                Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
                Property("title", .string, default: ""), Property("qty", .int64, default: 0),
            ])
        ]
        let b = [
            P.product([
                Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
                Property("qty", .int64, default: 0),
            ])
        ]
        let path = try P.file(dir, a, [["sku": "A", "name": "bolt", "title": "Bolt M8", "qty": 1]])
        let step = MigrationStep(renames: [PropertyRename(type: "Product", from: "title", to: "name")]) { m in
            try m.enumerateObjects(ofType: "Product") { old, new in new["qty"] = .int((old["qty"].intValue ?? 0) + 1) }
        }
        let m = Migrator(family: P.family(a, b, step))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("Product.name"), "\(message)")
        #expect(try P.column(path, "SELECT name FROM Product") == ["bolt"])
    }

    /// The same through the closure's own `renameProperty` (Realm's form): the old names still need permission.
    @Test func closureRenameOntoARemovedNameNeedsPermission() throws {
        let dir = try Fixture.directory()
        let a = [
            P.product([
                Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
                Property("title", .string, default: ""),
            ])
        ]
        let b = [P.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let path = try P.file(dir, a, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        let step = MigrationStep { m in try m.renameProperty(onType: "Product", from: "title", to: "name") }
        let m = Migrator(family: P.family(a, b, step))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("Product.name"), "\(message)")
        #expect(try P.column(path, "SELECT name FROM Product") == ["bolt"])
    }
}
