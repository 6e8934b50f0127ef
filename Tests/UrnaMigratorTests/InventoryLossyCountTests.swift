import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Inventory trial: an allowed lossy conversion says, in the dry run and the run, how many values it lost.
@Suite struct InventoryLossyCountTests {
    typealias P = InventoryProbeTests

    @Test func allowedTextToIntCountsTheValuesThatDidNotConvert() throws {
        let dir = try Fixture.directory()
        let a = [P.product([Property("sku", .string, primaryKey: true), Property("qty", .string, optional: true)])]
        let b = [P.product([Property("sku", .string, primaryKey: true), Property("qty", .int64, optional: true)])]
        let path = try P.file(
            dir, a,
            [
                ["sku": "A", "qty": "12"], ["sku": "B", "qty": "12a"], ["sku": "C", "qty": nil],
                ["sku": "D", "qty": "x"],
            ])
        let m = Migrator(
            family: P.family(a, b, MigrationStep(allowances: [.lossyConversion(type: "Product", property: "qty")])))
        let dry = try m.dryRun(path: path, sample: 0)
        #expect(dry.renderText().contains("Product: 4 enumerated, 4 rows written, 2 lossy qty value(s)"))
        let real = try m.run(try m.plan(path: path), backup: .none)
        #expect(real.renderText().contains("Product: 4 enumerated, 4 rows written, 2 lossy qty value(s)"))
        #expect(
            try P.column(path, "SELECT coalesce(qty, 'nil') FROM Product ORDER BY sku") == ["12", "nil", "nil", "nil"])
    }
}
