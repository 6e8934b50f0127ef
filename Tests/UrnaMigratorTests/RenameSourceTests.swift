import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// A name a rename takes away is not the source of a new property of that name, and a step's renames happen at once
/// (found by the reviewer of the fifth app trial's changes; each test was seen failing before its fix).
@Suite struct RenameSourceTests {
    typealias P = InventoryProbeTests
    typealias L = InventoryListRenameTests

    static let ab = [
        ObjectSchema(
            "Product",
            [
                Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
                Property("title", .string, default: ""),
            ])
    ]

    /// With Realm's single migration block the renames of all versions are composed: a swap read one rename after
    /// the other cancelled itself, and the values stayed in the wrong columns (the run said ok).
    @Test func aSwapUnderAMigrationBlockSwapsTheValues() throws {
        let dir = try Fixture.directory()
        let path = try P.file(dir, Self.ab, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        let step = MigrationStep(renames: [
            PropertyRename(type: "Product", from: "name", to: "title"),
            PropertyRename(type: "Product", from: "title", to: "name"),
        ])
        let family = SchemaFamily(
            name: "inventory",
            versions: [SchemaVersion(P.schema(0, Self.ab)), SchemaVersion(P.schema(1, Self.ab), step: step)],
            migrationBlock: { _, _ in })
        let m = Migrator(family: family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try P.column(path, "SELECT name || '/' || title FROM Product") == ["Bolt M8/bolt"])
        // `urna diff` shows the swap (it showed no rename at all).
        let renamed = try family.diff(from: 0, to: 1).typeChanges.flatMap { $0.renamed.map { "\($0.from)>\($0.to)" } }
        #expect(renamed.sorted() == ["name>title", "title>name"])
    }

    /// `name` renamed to `title` while a new `name` is added: the new one starts at its default (it took the old
    /// names too, so both columns held them).
    @Test func aNewPropertyUnderANameRenamedAwayIsNew() throws {
        let dir = try Fixture.directory()
        let a = [ObjectSchema("Product", [Property("sku", .string, primaryKey: true), Property("name", .string)])]
        let path = try P.file(dir, a, [["sku": "A", "name": "bolt"]])
        let step = MigrationStep(renames: [PropertyRename(type: "Product", from: "name", to: "title")])
        let m = Migrator(family: P.family(a, Self.ab, step))
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try P.column(path, "SELECT title || '/' || name FROM Product") == ["bolt/"])
    }

    /// The same for a list: the new `tags` took the old list table, which the renamed `labels` then dropped (the
    /// run failed with "no such table: main.Product_tags").
    @Test func aNewListUnderAListNameRenamedAwayIsNew() throws {
        let dir = try Fixture.directory()
        let a = [L.tag, L.product(["tags", "labels"])]
        let path = try L.file(dir, a)
        let b = [L.tag, L.product(["labels", "tags"])]
        // v0 has tags [1, 2] and labels [3]; labels goes (allowed), tags is renamed to labels, a new tags is empty.
        let step = MigrationStep(
            renames: [PropertyRename(type: "Product", from: "tags", to: "labels")],
            allowances: [.discard(type: "Product", property: "labels")])
        let m = Migrator(family: P.family(a, b, step))
        let message = P.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message == "ok")
        #expect(try L.held(path, "labels") == [.int(1), .int(2)])
        #expect(try L.held(path, "tags") == [])
    }
}
