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

    /// v1 adds a property (a copy), v2 only renames one (declared, or by its closure): v2 renames the columns in
    /// place, so v1's copy is not carried into it (that made v2 write every row, and its ledger count differ from the stepwise run's).
    @Test(arguments: [false, true]) func aCopyIsNotCarriedIntoARenameOnlyStep(byClosure: Bool) throws {
        var renameStep = MigrationStep("s → t", renames: [PropertyRename(type: "Item", from: "s", to: "t")])
        if byClosure {
            renameStep = MigrationStep("s → t") { m in try m.renameProperty(onType: "Item", from: "s", to: "t") }
        }
        let v2Item = ObjectSchema(
            "Item",
            [
                Property("id", .int64, primaryKey: true), Property("t", .string, optional: true),
                Property("a", .int64, default: 1),
            ])
        let family = SchemaFamily(
            name: "twoadds",
            versions: [
                SchemaVersion(Self.schema(0)), SchemaVersion(Self.schema(1), step: MigrationStep("a")),
                SchemaVersion(
                    try Schema(family: "twoadds", version: 2, types: [v2Item]),
                    step: renameStep),
            ])
        let dir = try Fixture.directory()
        var ledgers: [[String]] = []
        for fused in [true, false] {
            let path = dir.file("rename-\(fused).sqlite")
            let store = try Store(path: path, schema: Self.schema(0))
            try store.write {
                for i in 0..<4 { try store.create("Item", value: ["id": i, "s": "v\(i)"] as [String: Any]) }
            }
            var options = MigrationOptions()
            options.fusesSteps = fused
            let m = Migrator(family: family, options: options)
            let plan = try m.plan(path: path)
            if fused {
                #expect(
                    plan.steps[0].sql.contains {
                        $0.hasPrefix("-- Item: rebuilt here and again in v1 → v2, not fused: v1 → v2 ")
                            && $0.contains(
                                byClosure
                                    ? "may only rename its columns (its closure can)"
                                    : "only renames its columns (in place)")
                    }, "\(plan.steps[0].sql)")
            }
            let report = try m.run(plan, backup: .none)
            #expect(report.steps.allSatisfy { $0.fusedIntoNextStep.isEmpty })
            ledgers.append(try Self.ledger(path))
            let c = try Connection(path: path, readOnly: true, create: false)
            #expect(try c.rows("SELECT id, t, a FROM Item ORDER BY id").map { "\($0)" }.first == "[0, v0, 1]")
        }
        #expect(ledgers[0] == ledgers[1])
        #expect(ledgers[1].suffix(2) == ["0→1: 4", "1→2: 0"])
    }

    /// A cancel asked for in the last step's closure rolls the run back in both modes. It committed when no
    /// statement long enough for SQLite's progress handler followed it: fused runs do more work in their last
    /// step, so the same family was cancelled fused and committed stepwise (or the other way).
    @Test func aCancelInTheLastStepsClosureRollsBackInBothModes() throws {
        let dir = try Fixture.directory()
        for fused in [true, false] {
            let cancel = MigrationCancellation()
            let family = SchemaFamily(
                name: "twoadds",
                versions: [
                    SchemaVersion(Self.schema(0)), SchemaVersion(Self.schema(1), step: MigrationStep("a")),
                    SchemaVersion(Self.schema(2), step: MigrationStep("b") { _ in cancel.cancel() }),
                ])
            let path = dir.file("cancel-\(fused).sqlite")
            let store = try Store(path: path, schema: Self.schema(0))
            try store.write { try store.create("Item", value: ["id": 1, "s": "x"] as [String: Any]) }
            var options = MigrationOptions()
            options.fusesSteps = fused
            options.cancellation = cancel
            let m = Migrator(family: family, options: options)
            #expect(throws: MigrationError.self) { _ = try m.run(try m.plan(path: path), backup: .none) }
            let c = try Connection(path: path, readOnly: true, create: false)
            #expect(try c.integer("SELECT version FROM _urna_schema") == 0, "fused: \(fused)")
        }
    }

    static func keyed(_ v: Int) -> Schema {
        let p = [
            Property("id", .int64, primaryKey: true),
            Property("n", v < 2 ? .int64 : .string, default: v < 2 ? 0 : "0"), Property("x", .double, optional: true),
        ]
        return try! Schema(family: "minkey", version: v, types: [ObjectSchema("Item", p)])
    }

    /// An object keyed Int64.min copied through Swift in a step other than the run's first (no read-ahead, so its
    /// key is read lazily): the key wasn't read when the skipped-insert sentinel was chosen, so its written row
    /// was taken for a skipped one ("[unique] Item: object NULL cannot be written"), fused or not.
    @Test(arguments: [true, false]) func anInt64MinKeyCopiedThroughSwiftInALaterStepIsWritten(fused: Bool) throws {
        let dir = try Fixture.directory()
        let path = dir.file("minkey.sqlite")
        let store = try Store(path: path, schema: Self.keyed(0))
        try store.write {
            for id in [Int64.min, 1, Int64.max] {
                try store.create("Item", value: ["id": id, "n": 5, "x": 1.5] as [String: Any])
            }
        }
        let family = SchemaFamily(
            name: "minkey",
            versions: [
                SchemaVersion(Self.keyed(0)), SchemaVersion(Self.keyed(1), step: MigrationStep("nothing")),
                SchemaVersion(
                    Self.keyed(2),
                    step: MigrationStep("n as text", allowances: [.lossyConversion(type: "Item", property: "n")])),
            ])
        var options = MigrationOptions()
        options.fusesSteps = fused
        let m = Migrator(family: family, options: options)
        _ = try m.run(try m.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, n FROM Item ORDER BY id").map { "\($0)" } == [
                "[\(Int64.min), 5]", "[1, 5]", "[\(Int64.max), 5]",
            ])
    }

    static func unkeyed(_ v: Int) -> Schema {
        let p = [Property(v == 0 ? "name" : "label", .string, default: ""), Property("w", .double, optional: true)]
        return try! Schema(family: "unkeyed", version: v, types: [ObjectSchema("Tag", p)])
    }

    /// A closure creating an object of a type without a primary key in a step that copies the old objects: the
    /// created object took `_id` 1 and the copy of the old rows (which keep theirs) failed with "UNIQUE
    /// constraint failed: _urna_new_Tag._id", fused or not.
    @Test func anObjectCreatedBesideCopiedUnkeyedObjectsGetsAFreshID() throws {
        let dir = try Fixture.directory()
        let path = dir.file("unkeyed.sqlite")
        let store = try Store(path: path, schema: Self.unkeyed(0))
        try store.write { for i in 0..<3 { try store.create("Tag", value: ["name": "t\(i)"] as [String: Any]) } }
        let family = SchemaFamily(
            name: "unkeyed",
            versions: [
                SchemaVersion(Self.unkeyed(0)),
                SchemaVersion(
                    Self.unkeyed(1),
                    step: MigrationStep("label", renames: [PropertyRename(type: "Tag", from: "name", to: "label")]) {
                        m in
                        try m.create("Tag", value: ["label": .string("new")])
                        try m.create("Tag", value: ["label": .string("newer")])
                    }),
            ])
        let m = Migrator(family: family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT _id, label FROM Tag ORDER BY _id").map { "\($0)" } == [
                "[1, t0]", "[2, t1]", "[3, t2]", "[4, new]", "[5, newer]",
            ])
    }
}
