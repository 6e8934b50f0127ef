import Foundation
import Testing
import UrnaStore

@testable import UrnaMigrator

/// Minimal shapes found by `FusionDifferentialTests`, kept as plain tests.
@Suite struct FusionFindingsTests {
    static func schema(_ version: Int) -> Schema {
        var item: [Property] = [Property("id", .int64, primaryKey: true), Property("s", .string, optional: true)]
        if version >= 1 { item.append(Property("a", .int64, default: 1)) }
        if version >= 2 { item.append(Property("b", .string, default: "b")) }
        return try! Schema(family: "twoadds", version: version, types: [ObjectSchema("Item", item)])
    }

    static let family = SchemaFamily(
        name: "twoadds",
        versions: [
            SchemaVersion(schema(0)), SchemaVersion(schema(1), step: MigrationStep("a")),
            SchemaVersion(schema(2), step: MigrationStep("b")),
        ])

    static func ledger(_ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows("SELECT from_version, to_version, objects_touched FROM _urna_history ORDER BY id").map {
            "\($0[0])→\($0[1]): \($0[2])"
        }
    }

    /// A step whose copy was carried into the next step's rebuild wrote no row itself, but it did change every
    /// object: its ledger row (what `urna status` lists) says so in both modes, not 0 objects when fused.
    @Test func aCarriedStepCountsItsObjectsInTheLedgerAsTheStepwiseRunDoes() throws {
        let dir = try Fixture.directory()
        var ledgers: [[String]] = []
        var touched: [[Int]] = []
        for fused in [true, false] {
            let path = dir.file("items-\(fused).sqlite")
            let store = try Store(path: path, schema: Self.schema(0))
            try store.write {
                for i in 0..<5 { try store.create("Item", value: ["id": i, "s": "v\(i)"] as [String: Any]) }
            }
            var options = MigrationOptions()
            options.fusesSteps = fused
            let m = Migrator(family: Self.family, options: options)
            let report = try m.run(try m.plan(path: path), backup: .none)
            #expect(report.steps.map(\.fusedIntoNextStep) == (fused ? [["Item"], []] : [[], []]))
            ledgers.append(try Self.ledger(path))
            touched.append(report.steps.map(\.objectsTouched))
        }
        #expect(ledgers[0] == ledgers[1])
        #expect(ledgers[1].suffix(2) == ["0→1: 5", "1→2: 5"])
        #expect(touched[0] == touched[1])
    }
}
