import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Issue 14's fifth app trial (an inventory app): one change per probe, v0 -> v1, each checked row by row.
@Suite struct InventoryProbeTests {
    static func schema(_ v: Int, _ types: [ObjectSchema]) -> Schema {
        try! Schema(family: "inventory", version: v, types: types)
    }

    static func family(_ a: [ObjectSchema], _ b: [ObjectSchema], _ step: MigrationStep = MigrationStep())
        -> SchemaFamily
    {
        SchemaFamily(
            name: "inventory", versions: [SchemaVersion(schema(0, a)), SchemaVersion(schema(1, b), step: step)])
    }

    static func product(_ props: [Property]) -> ObjectSchema { ObjectSchema("Product", props) }

    /// A v0 file with the given Product values.
    static func file(_ dir: TemporaryDirectory, _ types: [ObjectSchema], _ rows: [[String: Value]]) throws -> String {
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: schema(0, types))
        try store.write { for r in rows { try store.create("Product", value: r) } }
        return path
    }

    static func outcome(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "ok"
        } catch { return "\(error)" }
    }

    /// Bin 1's products in list order: each one's key and its value of `property`; nil, with an issue recorded, when
    /// the bin lost its list.
    static func binProducts(
        in store: Store, _ property: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> (keys: [Value], values: [Value?])? {
        guard case .list(let held) = try store.object(ofType: "Bin", forPrimaryKey: .int(1))?.value(forKey: "products")
        else {
            Issue.record("Bin 1 lost its products", sourceLocation: sourceLocation)
            return nil
        }
        let values = try held.map {
            try store.object(ofType: "Product", forPrimaryKey: $0.key)?.value(forKey: property)
        }
        return (held.map(\.key), values)
    }

    static func column(_ path: String, _ sql: String) throws -> [String] {
        try Connection(path: path, readOnly: true, create: false).rows(sql).map { "\($0[0])" }
    }

    @Test func textToIntWithValuesThatDoNotConvertIsRefused() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, primaryKey: true), Property("qty", .string, optional: true)])]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("qty", .int64, optional: true)])]
        let path = try Self.file(
            dir, a, [["sku": "A", "qty": "12"], ["sku": "B", "qty": "12a"], ["sku": "C", "qty": nil]])
        let before = try RowChecker.rows(path)
        let m = Migrator(family: Self.family(a, b))
        let message = Self.outcome { _ = try m.plan(path: path) }
        #expect(message.contains("Product.qty") && message.contains("lossyConversion"), "\(message)")
        #expect(try RowChecker.rows(path) == before)
    }

    @Test func keyConversionThatMakesTwoKeysOneIsRefusedNamingThem() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let b = [Self.product([Property("sku", .int64, primaryKey: true), Property("name", .string, default: "")])]
        let path = try Self.file(dir, a, [["sku": "0012", "name": "bolt"], ["sku": "12", "name": "nut"]])
        let before = try RowChecker.rows(path)
        let m = Migrator(
            family: Self.family(a, b, MigrationStep(allowances: [.lossyConversion(type: "Product", property: "sku")])))
        let message = Self.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        let names = try Self.column(path, "SELECT name FROM Product")
        #expect(message != "ok", "both products kept? \(names)")
        #expect(message.contains("12"), "\(message)")
        #expect(try RowChecker.rows(path) == before)
    }

    @Test func linkBecomesListOfTheSameNameWithoutClosure() throws {
        let dir = try Fixture.directory()
        let supplier = ObjectSchema("Supplier", [Property("id", .int64, primaryKey: true)])
        let a = [
            supplier,
            Self.product([Property("sku", .string, primaryKey: true), Property("supplier", .link("Supplier"))]),
        ]
        let b = [
            supplier,
            Self.product([Property("sku", .string, primaryKey: true), Property("supplier", .list("Supplier"))]),
        ]
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: Self.schema(0, a))
        try store.write {
            let s = try store.create("Supplier", value: ["id": 1])
            try store.create("Product", value: ["sku": "A", "supplier": s] as [String: Any])
        }
        let m = Migrator(family: Self.family(a, b))
        let message = Self.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        if message == "ok" {
            #expect(try Self.column(path, "SELECT count(*) FROM Product_supplier") == ["1"], "the link was dropped")
        } else {
            #expect(message.contains("Product.supplier"), "\(message)")
        }
    }

    @Test func listBecomesLinkOfTheSameNameWithoutClosure() throws {
        let dir = try Fixture.directory()
        let supplier = ObjectSchema("Supplier", [Property("id", .int64, primaryKey: true)])
        let a = [
            supplier,
            Self.product([Property("sku", .string, primaryKey: true), Property("supplier", .list("Supplier"))]),
        ]
        let b = [
            supplier,
            Self.product([Property("sku", .string, primaryKey: true), Property("supplier", .link("Supplier"))]),
        ]
        let path = dir.file("inventory.sqlite")
        let store = try Store(path: path, schema: Self.schema(0, a))
        try store.write {
            let s1 = try store.create("Supplier", value: ["id": 1])
            let s2 = try store.create("Supplier", value: ["id": 2])
            try store.create("Product", value: ["sku": "A", "supplier": [s1, s2]] as [String: Any])
        }
        let m = Migrator(family: Self.family(a, b))
        let message = Self.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("Product.supplier"), "\(message)")
    }

    @Test func misspeltOldPropertyReadInAClosureStopsTheRun() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("title", .string, default: "")])]
        let path = try Self.file(dir, a, [["sku": "A", "name": "bolt"]])
        let m = Migrator(
            family: Self.family(
                a, b,
                MigrationStep { m in
                    try m.enumerateObjects(ofType: "Product") { old, new in new["title"] = old["nmae"] }
                }))
        let message = Self.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("nmae") && message.contains("name"), "\(message)")
        #expect(try Self.column(path, "SELECT name FROM Product") == ["bolt"])
    }

    @Test func caseOnlyTypeNameInAClosureStopsTheRun() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("title", .string, default: "")])]
        let path = try Self.file(dir, a, [["sku": "A", "name": "bolt"]])
        let m = Migrator(
            family: Self.family(
                a, b,
                MigrationStep { m in
                    try m.enumerateObjects(ofType: "product") { old, new in new["title"] = old["name"] }
                }))
        let message = Self.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("Product"), "\(message)")
        #expect(try Self.column(path, "SELECT name FROM Product") == ["bolt"])
    }

    @Test func twoVersionsWithOneNumberAreRefusedByTheLibrary() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let path = try Self.file(dir, a, [["sku": "A", "name": "bolt"]])
        let s1 = Self.schema(1, a)
        let family = SchemaFamily(
            name: "inventory",
            versions: [SchemaVersion(Self.schema(0, a)), SchemaVersion(s1), SchemaVersion(s1)])
        let message = Self.outcome { _ = try Migrator(family: family).plan(path: path) }
        #expect(message != "ok")
    }

    @Test func linkToATypeThatDoesNotExistIsRefusedNamingIt() throws {
        let message = Self.outcome {
            _ = try Schema(
                family: "inventory", version: 1,
                types: [
                    Self.product([Property("sku", .string, primaryKey: true), Property("supplier", .link("Suplier"))])
                ])
        }
        #expect(message.contains("Product.supplier") && message.contains("Suplier"), "\(message)")
    }

    @Test func keyAddedOverDuplicatesIsRefusedNamingThem() throws {
        let dir = try Fixture.directory()
        let a = [Self.product([Property("sku", .string, default: ""), Property("name", .string, default: "")])]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("name", .string, default: "")])]
        let path = try Self.file(dir, a, [["sku": "A", "name": "bolt"], ["sku": "A", "name": "nut"]])
        let before = try RowChecker.rows(path)
        let m = Migrator(family: Self.family(a, b))
        let message = Self.outcome { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(message.contains("A"), "\(message)")
        #expect(try RowChecker.rows(path) == before)
    }

    @Test func dateBecomesTextAndBack() throws {
        let dir = try Fixture.directory()
        let a = [
            Self.product([Property("sku", .string, primaryKey: true), Property("added", .string, optional: true)])
        ]
        let b = [Self.product([Property("sku", .string, primaryKey: true), Property("added", .date, optional: true)])]
        let path = try Self.file(dir, a, [["sku": "A", "added": "2024-01-05"], ["sku": "B", "added": "yesterday"]])
        let before = try RowChecker.rows(path)
        let m = Migrator(family: Self.family(a, b))
        let message = Self.outcome { _ = try m.plan(path: path) }
        #expect(message.contains("Product.added"), "\(message)")
        #expect(try RowChecker.rows(path) == before)
    }
}
