import Foundation
import InventoryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// Issue 14's fifth app trial: the inventory family, from a file at every historical version to v6, compared value
/// by value with a v6 file written independently of the steps; dry runs against real runs.
@Suite struct InventoryTrialTests {
    /// A v0 file migrated to `version` (the file an older app left).
    static func file(at version: Int, _ dir: TemporaryDirectory, products: Int = 12) throws -> String {
        let path = dir.file("v\(version)-\(UUID().uuidString.prefix(6)).sqlite")
        try InventoryFamily.fillV0(at: path, products: products)
        if version > 0 {
            let m = Migrator(family: InventoryFamily.family)
            _ = try m.run(try m.plan(path: path, to: version), backup: .none)
        }
        return path
    }

    @Test func everyHistoricalVersionMigratedEqualsAFreshV6() throws {
        let dir = try Fixture.directory()
        let fresh = dir.file("fresh.sqlite")
        try InventoryFamily.fillV6(at: fresh)
        let expected = try RowChecker.rows(fresh)
        #expect(expected.values.reduce(0) { $0 + $1.count } == 27)  // 3 vendors, 2 warehouses, 12 products, 10 bins
        for version in 0...5 {
            for fuses in [true, false] {
                let path = try Self.file(at: version, dir)
                var options = MigrationOptions()
                options.fusesSteps = fuses
                let m = Migrator(family: InventoryFamily.family, options: options)
                let report = try m.run(try m.plan(path: path), backup: .none)
                #expect(report.toVersion == 6)
                let differences = try RowChecker.differences(path, fresh)
                #expect(differences.isEmpty, "from v\(version) (fused \(fuses)): \(differences)")
                // The store reads it: Vendor.products (the inverse) follows the renamed type and the new keys.
                let store = try Store.openExisting(path: path)
                let vendor = try #require(try store.object(ofType: "Vendor", forPrimaryKey: .int(2)))
                let held: [Int64] = [1, 4, 7, 13].filter { $0 <= 12 }  // i % 3 == 1 and i % 5 != 0
                let expectedKeys = held.map { Value.int($0) }
                guard case .list(let products) = try vendor.value(forKey: "products") else {
                    Issue.record("Vendor.products is not a list")
                    continue
                }
                #expect(Set(products.map(\.key)) == Set(expectedKeys), "from v\(version)")
            }
        }
    }

    @Test func dryRunCountsEqualTheRunAndLeaveTheFileByteIdentical() throws {
        let dir = try Fixture.directory()
        for version in 0...5 {
            let path = try Self.file(at: version, dir)
            let before = Fixture.snapshot(path)
            let m = Migrator(family: InventoryFamily.family)
            let dry = try m.dryRun(path: path, sample: 0)
            #expect(Fixture.checksums(Fixture.snapshot(path)) == Fixture.checksums(before), "v\(version)")
            let real = try m.run(try m.plan(path: path), backup: .none)
            #expect(dry.countsAfter == real.countsAfter, "v\(version)")
            #expect(dry.totalActivity == real.totalActivity, "v\(version)")
            #expect(dry.steps.map(\.clearedLinks) == real.steps.map(\.clearedLinks), "v\(version)")
            #expect(
                dry.steps.map { $0.droppedData.map(\.property) } == real.steps.map { $0.droppedData.map(\.property) })
        }
    }

    /// A closure that throws on the fifth product: nothing of the run stays, and the file holds every value it held.
    @Test func aClosureThatThrowsHalfwayLeavesTheFileAsItWas() throws {
        struct Halfway: Error {}
        let dir = try Fixture.directory()
        let path = try Self.file(at: 4, dir)
        let before = try RowChecker.rows(path)
        let failing = MigrationStep("keys, failing") { m in
            var seen = 0
            try m.enumerateObjects(ofType: "Product") { old, new in
                seen += 1
                if seen == 5 { throw Halfway() }
                new["sku"] = .int(Int64((old["sku"].stringValue ?? "").filter(\.isNumber)) ?? 0)
            }
        }
        var versions = InventoryFamily.family.versions
        versions[5] = SchemaVersion(InventoryFamily.v5, step: failing)
        let family = SchemaFamily(name: "inventory", versions: versions)
        let bytes = FileManager.default.contents(atPath: path)
        var options = MigrationOptions()
        options.recordsFailedRuns = false
        let quiet = Migrator(family: family, options: options)
        #expect(throws: MigrationError.self) { _ = try quiet.run(try quiet.plan(path: path), backup: .none) }
        #expect(FileManager.default.contents(atPath: path) == bytes)
        let m = Migrator(family: family)
        #expect(throws: MigrationError.self) { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(try RowChecker.rows(path) == before)
        #expect(try Migrator(family: InventoryFamily.family).status(path: path).fileVersion == 4)
    }
}
