import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// What an app developer with a shop schema (a type with no key, an embedded address, a removed type beside a
/// closure, a list turned into a link, a plain file's own foreign keys) ran into: wrong refusals and wrong reads.
@Suite struct AppSchemaTrialTests {
    static func schema(_ v: Int, _ types: [ObjectSchema]) throws -> Schema {
        try Schema(family: "shop", version: v, types: types)
    }

    static let product = ObjectSchema(
        "Product", [Property("sku", .string, primaryKey: true), Property("price", .int64, default: 0)])

    /// A v0 shop file: two products, two orders with two items each, three legacy rows.
    static func shopV0(_ dir: TemporaryDirectory) throws -> (path: String, v0: Schema) {
        let v0 = try schema(
            0,
            [
                product,
                ObjectSchema("Order", [Property("id", .int64, primaryKey: true), Property("items", .list("Product"))]),
                ObjectSchema(
                    "Legacy", [Property("id", .int64, primaryKey: true), Property("junk", .string, default: "")]),
            ])
        let path = dir.file("shop.sqlite")
        let store = try Store(path: path, schema: v0)
        try store.write {
            let a = try store.create("Product", value: ["sku": "A", "price": 5])
            let b = try store.create("Product", value: ["sku": "B", "price": 7])
            try store.create("Order", value: ["id": 1, "items": [b, a]] as [String: Any])
            try store.create("Order", value: ["id": 2, "items": [a, b]] as [String: Any])
            for i in 0..<3 { try store.create("Legacy", value: ["id": i, "junk": "junk \(i)"]) }
        }
        return (path, v0)
    }

    /// `.discardType` permits dropping a removed type's objects and so their properties, also in a step whose
    /// closure works on another type (it was refused per property: "Legacy.id ... never reads Legacy").
    @Test func discardTypeCoversTheRemovedTypesPropertiesBesideAClosure() throws {
        let dir = try Fixture.directory()
        let (path, v0) = try Self.shopV0(dir)
        let v1 = try Self.schema(1, v0.types.filter { $0.name != "Legacy" })
        let step = MigrationStep("legacy dropped; prices doubled", allowances: [.discardType(type: "Legacy")]) { m in
            try m.enumerateObjects(ofType: "Product") { old, new in
                new["price"] = .int((old["price"].intValue ?? 0) * 2)
            }
        }
        let m = Migrator(
            family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)]))
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome != .failed, "\(dry.failures.map(\.message))")
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT count(*) FROM sqlite_master WHERE name = 'Legacy'") == 0)
        #expect(try c.integer("SELECT sum(price) FROM Product") == 24)

        // Without the allowance the refusal names the type's allowance, not only one per property.
        let dir2 = try Fixture.directory()
        let (path2, _) = try Self.shopV0(dir2)
        let bare = MigrationStep("prices doubled") { m in
            try m.enumerateObjects(ofType: "Product") { _, _ in }
        }
        let refused = try Migrator(
            family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: bare)])
        ).dryRun(path: path2)
        #expect(refused.outcome == .failed)
        let text = refused.failures.map(\.message).joined(separator: "\n")
        #expect(text.contains("--allow-loss Legacy"), "\(text)")
    }

    /// A closure that reads an old list (a list of items turned into one link) read that list: the removed list
    /// is not refused as "never read" (it was, asking for --allow-loss Order.items).
    @Test func aListTheClosureReadsIsNotRefusedAsNeverRead() throws {
        let dir = try Fixture.directory()
        let (path, v0) = try Self.shopV0(dir)
        let v1 = try Self.schema(
            1,
            [
                Self.product,
                ObjectSchema("Order", [Property("id", .int64, primaryKey: true), Property("first", .link("Product"))]),
                v0[type: "Legacy"]!,
            ])
        let step = MigrationStep("one item per order") { m in
            try m.enumerateObjects(ofType: "Order") { old, new in
                if case .list(let items) = old["items"], let first = items.first { new["first"] = .link(first) }
            }
        }
        let m = Migrator(
            family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)]))
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome != .failed, "\(dry.failures.map(\.message))")
        _ = try m.run(try m.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.rows("SELECT id, first FROM \"Order\" ORDER BY id").map { "\($0[0])\($0[1])" } == ["1B", "2A"])
    }

    static let street = Property("street", .string, default: "")

    static func customers(_ v: Int, address: [Property]) throws -> Schema {
        try schema(
            v,
            [
                ObjectSchema("Address", embedded: true, address),
                ObjectSchema(
                    "Customer",
                    [
                        Property("id", .int64, primaryKey: true),
                        Property("address", .embedded("Address"), optional: true),
                    ]),
                product,
            ])
    }

    static func customerFile(_ dir: TemporaryDirectory, _ v0: Schema) throws -> String {
        let path = dir.file("customers.sqlite")
        let store = try Store(path: path, schema: v0)
        try store.write {
            try store.create("Customer", value: ["id": 1, "address": ["street": "Rua 1"]] as [String: Any])
            try store.create("Customer", value: ["id": 2])
            try store.create("Product", value: ["sku": "A"])
        }
        return path
    }

    /// An embedded type that gains a property with a default loses nothing: no closure needed (it was refused,
    /// "embedded type Address changes shape", naming no allowance), and stored objects read the default.
    @Test func anEmbeddedTypeGainingADefaultedPropertyNeedsNoClosure() throws {
        let dir = try Fixture.directory()
        let v0 = try Self.customers(0, address: [Self.street])
        let v1 = try Self.customers(1, address: [Self.street, Property("zip", .string, default: "00000")])
        let path = try Self.customerFile(dir, v0)
        let m = Migrator(family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1)]))
        let plan = try m.plan(path: path)
        #expect(plan.toVersion == 1)
        _ = try m.run(plan, backup: .none)
        let store = try Store(path: path, schema: v1)
        let c1 = try store.objects("Customer").filter("id == 1").objects()
        #expect(c1.count == 1)
        #expect(c1.first?["address"] == .embedded(["street": .string("Rua 1"), "zip": .string("00000")]))
        let c2 = try store.objects("Customer").filter("id == 2").objects()
        #expect(c2.first?["address"] == .null)
    }

    /// An embedded type that loses a property is refused; beside a closure for another type, the message names the
    /// allowance that permits it.
    @Test func anEmbeddedPropertyRemovedBesideAClosureNamesItsAllowance() throws {
        let dir = try Fixture.directory()
        let v0 = try Self.customers(0, address: [Self.street, Property("zip", .string, default: "")])
        let v1 = try Self.customers(1, address: [Self.street])
        let path = try Self.customerFile(dir, v0)
        let step = MigrationStep("products touched") { m in try m.enumerateObjects(ofType: "Product") { _, _ in } }
        let m = Migrator(
            family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)]))
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome == .failed)
        let text = dry.failures.map(\.message).joined(separator: "\n")
        #expect(text.contains("Address.zip is removed"), "\(text)")
        #expect(text.contains(".lossyConversion(type: \"Customer\", property: \"address\")"), "\(text)")
        #expect(text.contains("--allow-loss Customer.address"), "\(text)")
    }

    /// A plain file whose own foreign key names a parent column SQLite cannot check (`REFERENCES Customer(rowid)`)
    /// is adopted (its tables rebuilt into the contract, links kept) instead of failing with SQLite's raw
    /// "foreign key mismatch".
    @Test func adoptRebuildsATableWhoseOwnForeignKeyNamesANonKeyColumn() throws {
        let dir = try Fixture.directory()
        let v0 = try Self.schema(
            0,
            [
                ObjectSchema("Customer", [Property("name", .string, default: "")]),
                ObjectSchema(
                    "Order", [Property("id", .int64, primaryKey: true), Property("customer", .link("Customer"))]),
            ])
        let path = dir.file("plain.sqlite")
        try Connection(path: path).execute(
            """
            CREATE TABLE Customer (name TEXT);
            INSERT INTO Customer VALUES ('Ana'), ('Zé');
            CREATE TABLE "Order" (id INTEGER PRIMARY KEY, customer INTEGER REFERENCES Customer(rowid));
            INSERT INTO "Order" VALUES (1, 2), (2, 1);
            """)
        let m = Migrator(family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0)]))
        let report = try m.adopt(path: path, version: 0)
        #expect(report.rebuilt == ["Customer": 2, "Order": 2])
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT o.id, c.name FROM \"Order\" o JOIN Customer c ON c._id = o.customer ORDER BY o.id")
                .map { "\($0[0]) \($0[1])" } == ["1 Zé", "2 Ana"])
        #expect(try c.rows("PRAGMA foreign_key_check").isEmpty)
    }

    /// A real run killed mid-way leaves its lock file in the temporary folder; a dry run after it removes it (it
    /// was left until the next real run), but never a lock someone holds.
    @Test func aDryRunRemovesAKilledRunsLockFileButNotAHeldOne() throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        var st = stat()
        #expect(stat(path, &st) == 0)
        let lock = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "urna-migrate-\(st.st_dev)-\(st.st_ino).lock")
        defer { unlink(lock) }
        // A killed run's: its pid written, nobody holding it.
        #expect(FileManager.default.createFile(atPath: lock, contents: Data("999999\n".utf8)))
        let m = Migrator(family: SchemaFamilies.people)
        _ = try m.dryRun(path: path)
        #expect(!FileManager.default.fileExists(atPath: lock), "the killed run's lock file is removed")
        // Held (a run in progress): kept.
        let fd = open(lock, O_CREAT | O_RDWR, 0o600)
        #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        defer { close(fd) }
        _ = try m.dryRun(path: path)
        #expect(FileManager.default.fileExists(atPath: lock), "a held lock is left alone")
    }

    /// A closure that enumerates a type but leaves a converted property to the automatic conversion (text to
    /// date): a value with no exact date fails the run, and the message names the allowance that permits it.
    @Test func anInexactConversionBesideAClosureNamesItsAllowance() throws {
        let dir = try Fixture.directory()
        let path = dir.file("orders.sqlite")
        func order(_ v: Int, at: Property) throws -> Schema {
            try Self.schema(
                v,
                [
                    ObjectSchema(
                        "Order", [Property("id", .int64, primaryKey: true), at, Property("n", .int64, default: 0)])
                ])
        }
        let v0 = try order(0, at: Property("at", .string, default: ""))
        let store = try Store(path: path, schema: v0)
        try store.write {
            try store.create("Order", value: ["id": 1, "at": "2023-11-14T22:13:20.000Z"])
            try store.create("Order", value: ["id": 2, "at": "14/11/2023"])
        }
        let v1 = try order(1, at: Property("at", .date, optional: true))
        let step = MigrationStep("bump") { m in try m.enumerateObjects(ofType: "Order") { _, new in new["n"] = .int(1) }
        }
        let m = Migrator(
            family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)]))
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome == .failed)
        let text = dry.failures.map(\.message).joined(separator: "\n")
        #expect(text.contains("object 2:"), "\(text)")
        #expect(text.contains(".lossyConversion(type: \"Order\", property: \"at\")"), "\(text)")
        #expect(text.contains("--allow-loss Order.at"), "\(text)")
        #expect(
            try Connection(path: path).rows("SELECT at FROM \"Order\" ORDER BY id").map { "\($0[0])" } == [
                "2023-11-14T22:13:20.000Z", "14/11/2023",
            ])
    }

    /// The app's own table with a foreign key to a family type's hidden `_id`, when the type gains a primary key:
    /// the plan lists it and the run's failure names it (it was SQLite's raw "foreign key mismatch"), the file
    /// unchanged; recreated in the step's SQL, the run goes through.
    @Test func aUserTablesForeignKeyToARemovedKeyIsListedAndNamed() throws {
        let dir = try Fixture.directory()
        let path = dir.file("s.sqlite")
        let v0 = try Self.schema(0, [ObjectSchema("Customer", [Property("name", .string, default: "")])])
        let store = try Store(path: path, schema: v0)
        try store.write { for i in 0..<3 { try store.create("Customer", value: ["name": "c\(i)"]) } }
        try Connection(path: path).execute(
            "CREATE TABLE audit(id INTEGER PRIMARY KEY, cust INTEGER REFERENCES Customer(_id)); INSERT INTO audit(cust) VALUES (1), (2);"
        )
        let v1 = try Self.schema(
            1,
            [
                ObjectSchema(
                    "Customer", [Property("id", .int64, primaryKey: true), Property("name", .string, default: "")])
            ])
        func family(_ sqlBefore: [String] = [], _ sqlAfter: [String] = []) -> SchemaFamily {
            let step = MigrationStep("ids", sqlBefore: sqlBefore, sqlAfter: sqlAfter) { m in
                try m.enumerateObjects(ofType: "Customer") { old, new in new["id"] = .int(old["_id"].intValue ?? 0) }
            }
            return SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)])
        }
        let m = Migrator(family: family())
        let plan = try m.plan(path: path)
        #expect(plan.brokenUserObjects.count == 1)
        #expect(plan.brokenUserObjects.first?.hasPrefix("table audit has a foreign key to Customer._id") == true)
        let before = try Fixture.dump(path)
        do {
            _ = try m.run(plan, backup: .none)
            Issue.record("the run must fail")
        } catch {
            let text = "\(error)"
            #expect(text.contains("table audit has a foreign key to Customer._id"), "\(text)")
            #expect(!text.contains("foreign key mismatch"), "\(text)")
        }
        #expect(try Fixture.dump(path) == before, "rolled back")
        let fixed = Migrator(
            family: family(
                ["ALTER TABLE audit RENAME TO audit_old"],
                [
                    "CREATE TABLE audit(id INTEGER PRIMARY KEY, cust INTEGER REFERENCES Customer(id))",
                    "INSERT INTO audit SELECT * FROM audit_old", "DROP TABLE audit_old",
                ]))
        let r = try fixed.run(try fixed.plan(path: path), backup: .none)
        #expect(r.outcome == .applied)
        #expect(
            try Connection(path: path).integer("SELECT count(*) FROM audit a JOIN Customer c ON c.id = a.cust") == 2)
    }

    /// A primary key added to a type without one, with no closure to set it, is refused when the plan is made,
    /// naming the property (the run failed with one "same primary key" line per object after the first).
    @Test func aPrimaryKeyAddedWithNothingToSetItIsRefusedAtPlan() throws {
        let dir = try Fixture.directory()
        let path = dir.file("s.sqlite")
        let v0 = try Self.schema(0, [ObjectSchema("Customer", [Property("name", .string, default: "")])])
        let store = try Store(path: path, schema: v0)
        try store.write { for i in 0..<3 { try store.create("Customer", value: ["name": "c\(i)"]) } }
        let v1 = try Self.schema(
            1,
            [
                ObjectSchema(
                    "Customer", [Property("id", .int64, primaryKey: true), Property("name", .string, default: "")])
            ])
        let m = Migrator(family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1)]))
        do {
            _ = try m.plan(path: path)
            Issue.record("the plan must be refused")
        } catch MigrationError.refused(_, let reasons) {
            #expect(reasons.count == 1)
            #expect(reasons.first?.type == "Customer" && reasons.first?.property == "id", "\(reasons)")
            #expect(reasons.first?.reason.contains("every existing object would get 0") == true, "\(reasons)")
        }
        // One object: its key 0 is unique, so the upgrade goes through.
        let one = dir.file("one.sqlite")
        let s1 = try Store(path: one, schema: v0)
        try s1.write { try s1.create("Customer", value: ["name": "only"]) }
        let r = try m.run(try m.plan(path: one), backup: .none)
        #expect(r.outcome == .applied)
        #expect(
            try Connection(path: one).rows("SELECT id, name FROM Customer").map { "\($0[0]) \($0[1])" } == ["0 only"])
    }

    /// A closure that rewrites the lists of some owners only (reorders every other order's items, text-keyed
    /// products, integer-keyed orders): the rewritten lists take the new order, the others keep theirs (the
    /// rebuild looks restaged owners up by their old key through an index, without the column's affinity).
    @Test func listsRewrittenForSomeOwnersKeepTheOthers() throws {
        let dir = try Fixture.directory()
        let (path, v0) = try Self.shopV0(dir)
        let v1 = try Self.schema(1, v0.types)
        let step = MigrationStep("every other order's items reversed") { m in
            try m.enumerateObjects(ofType: "Order") { old, new in
                guard old["id"].intValue == 1, case .list(let items) = old["items"] else { return }
                new["items"] = .list(items.reversed())
            }
        }
        let m = Migrator(
            family: SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)]))
        _ = try m.run(try m.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT owner, position, target FROM Order_items ORDER BY owner, position").map {
                "\($0[0]).\($0[1])=\($0[2])"
            } == ["1.0=A", "1.1=B", "2.0=A", "2.1=B"])
    }
}
