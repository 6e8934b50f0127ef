import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// A removed type merged into another by lookups (each Customer looks its Profile up by e-mail): the Profiles no
/// Customer looked up were dropped unasked, because any lookup counted as reading the whole type (found by the
/// shop app's trial: an orphan Profile and its bio vanished with exit 0).
@Suite struct LookedUpRemovedTypeTests {
    static let customerV0 = ObjectSchema(
        "Customer", [Property("id", .int64, primaryKey: true), Property("email", .string, default: "")])
    static let profile = ObjectSchema(
        "Profile", [Property("email", .string, primaryKey: true), Property("bio", .string, default: "")])

    static func family(allowances: [MigrationAllowance] = []) throws -> SchemaFamily {
        let v0 = try Schema(family: "shop", version: 0, types: [customerV0, profile])
        let v1 = try Schema(
            family: "shop", version: 1,
            types: [
                ObjectSchema(
                    "Customer",
                    [
                        Property("id", .int64, primaryKey: true), Property("email", .string, default: ""),
                        Property("bio", .string, default: ""),
                    ])
            ])
        let step = MigrationStep("profiles merged into customers", allowances: allowances) { m in
            try m.enumerateObjects(ofType: "Customer") { old, new in
                guard case .string(let email) = old["email"],
                    let p = try m.oldObject(ofType: "Profile", forPrimaryKey: .string(email))
                else { return }
                new["bio"] = p["bio"]
                _ = p["email"]  // read on every object looked up, as the shop app's closure did
            }
        }
        return SchemaFamily(name: "shop", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)])
    }

    /// Two customers with profiles, and `orphans` profiles no customer names.
    static func file(_ dir: TemporaryDirectory, orphans: Int) throws -> String {
        let path = dir.file("shop.sqlite")
        let store = try Store(path: path, schema: try Schema(family: "shop", version: 0, types: [customerV0, profile]))
        try store.write {
            for (i, e) in ["ana@x.org", "jose@x.org"].enumerated() {
                try store.create("Customer", value: ["id": i, "email": e])
                try store.create("Profile", value: ["email": e, "bio": "bio of \(e)"])
            }
            for i in 0..<orphans { try store.create("Profile", value: ["email": "orphan\(i)@x.org", "bio": "lost?"]) }
        }
        return path
    }

    @Test func profilesNoLookupReachedNeedTheTypesAllowance() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, orphans: 1)
        let m = Migrator(family: try Self.family())
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome == .failed)
        let text = dry.failures.map(\.message).joined(separator: "\n")
        #expect(text.contains("1 of its 3 object(s) would be dropped unseen"), "\(text)")
        #expect(text.contains("--allow-loss Profile"), "\(text)")
        #expect(throws: (any Error).self) { _ = try m.run(try m.plan(path: path), backup: .none) }
        let kept = try Connection(path: path, readOnly: true, create: false)
        #expect(try kept.integer("SELECT count(*) FROM Profile") == 3)
        #expect(try kept.integer("PRAGMA user_version") == 0)

        // Asked for by name, the orphan goes and the merged bios stay.
        let allowed = Migrator(family: try Self.family(allowances: [.discardType(type: "Profile")]))
        let report = try allowed.run(try allowed.plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT bio FROM Customer ORDER BY id").map { "\($0[0])" } == [
                "bio of ana@x.org", "bio of jose@x.org",
            ])
    }

    @Test func aMergeThatLooksEveryObjectUpNeedsNoAllowance() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, orphans: 0)
        let m = Migrator(family: try Self.family())
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
    }
}
