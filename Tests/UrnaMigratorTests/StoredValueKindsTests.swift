import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// The plan's scan for values a version cannot read, for numbers, text and blobs: in a column without an index
/// each value is compared (text and blobs sort after numbers), in a column an index leads the smallest and
/// largest values answer. Each misfit alone must stop the plan, whichever way its column is asked.
@Suite struct StoredValueKindsTests {
    static let v0 = try! Schema(
        family: "gauge", version: 0,
        types: [
            ObjectSchema(
                "Reading",
                [
                    Property("id", .int64, primaryKey: true), Property("level", .double, default: 0),
                    Property("peak", .double, default: 0, indexed: true), Property("raw", .data, optional: true),
                    Property("label", .string, default: "", indexed: true), Property("note", .string, optional: true),
                ])
        ])
    static let v1 = try! Schema(
        family: "gauge", version: 1,
        types: [
            ObjectSchema(
                "Reading",
                [
                    Property("id", .int64, primaryKey: true), Property("level", .double, default: 0),
                    Property("peak", .double, default: 0, indexed: true), Property("raw", .data, optional: true),
                    Property("label", .string, default: "", indexed: true), Property("note", .string, optional: true),
                    Property("unit", .string, default: ""),
                ])
        ])
    static let family = SchemaFamily(
        name: "gauge", versions: [SchemaVersion(v0), SchemaVersion(v1, step: MigrationStep("unit added"))])

    /// A v0 file the store wrote: empty and full blobs, empty text, whole and fractional numbers, NULLs.
    static func file(_ path: String) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            try store.create(
                "Reading",
                value: ["id": 1, "level": 2.5, "peak": -1.0, "raw": Data(), "label": "", "note": "n"])
            try store.create("Reading", value: ["id": 2, "level": 3.0, "peak": 1e300, "label": "zz"])
            try store.create("Reading", value: ["id": 3, "raw": Data([255]), "label": "é"])
        }
    }

    @Test func aFileTheStoreWroteMigrates() throws {
        let dir = try Fixture.directory()
        let path = dir.file("gauge.sqlite")
        try Self.file(path)
        // Hand-written values that still fit: an integer in a REAL column, a numeral in a TEXT column.
        try Connection(path: path).execute(
            "INSERT INTO \"Reading\" (id, level, peak, label) VALUES (4, 7, 8, 12)")
        let report = try Migrator(family: Self.family).migrateIfNeeded(path: path, backup: .none)
        #expect(report?.toVersion == 1)
    }

    /// One misfit per file, in a column asked by comparison (level, raw, note) or by its index (peak, label;
    /// the store indexes no blobs): each must be the one the plan names.
    @Test(arguments: [
        ("UPDATE \"Reading\" SET level = 'abc' WHERE id = 2", "level is 'abc' (text); version 0 stores a number there"),
        ("UPDATE \"Reading\" SET level = x'01' WHERE id = 2", "level is X'01' (blob); version 0 stores a number there"),
        ("UPDATE \"Reading\" SET peak = 'high' WHERE id = 2", "peak is 'high' (text); version 0 stores a number there"),
        ("UPDATE \"Reading\" SET peak = x'' WHERE id = 2", "peak is X'' (blob); version 0 stores a number there"),
        ("UPDATE \"Reading\" SET raw = 'text' WHERE id = 2", "raw is 'text' (text); version 0 stores a blob there"),
        ("UPDATE \"Reading\" SET raw = 5 WHERE id = 2", "raw is 5 (integer); version 0 stores a blob there"),
        ("UPDATE \"Reading\" SET raw = 7.5 WHERE id = 2", "raw is 7.5 (real); version 0 stores a blob there"),
        ("UPDATE \"Reading\" SET label = x'00' WHERE id = 2", "label is X'00' (blob); version 0 stores text there"),
        ("UPDATE \"Reading\" SET note = x'6e' WHERE id = 2", "note is X'6E' (blob); version 0 stores text there"),
    ])
    func eachMisfitAloneStopsThePlan(sql: String, message: String) throws {
        let dir = try Fixture.directory()
        let path = dir.file("gauge.sqlite")
        try Self.file(path)
        // Kept open while the plan runs, as a hand edit's tool might be (the file keeps its -wal throughout).
        let c = try Connection(path: path)
        try c.execute(sql)
        StoredValueCheckTests().expectMisfit(path, family: Self.family, mentions: [message], count: 1)
        withExtendedLifetime(c) {}
    }
}
