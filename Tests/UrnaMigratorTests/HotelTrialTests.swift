import Foundation
import HotelFamily
import Testing
import UrnaMigrator
import UrnaStore

/// Issue 14's seventh app trial, a hotel's own family (`Examples/HotelFamily`): every historical version, migrated
/// in one run and step by step, equals the app's own v5 file (rows, the app's table, view, triggers and search
/// included); `migrateIfNeeded` awaited from a Swift 6 task does the same; the app's triggers keep firing when it
/// writes through `Store` (its search index depends on it).
@Suite struct HotelTrialTests {
    @Test func everyVersionMigratesToTheAppsOwnV5File() throws {
        let dir = try Fixture.directory()
        var fixtures: [Int: (String) throws -> Void] = [:]
        for v in HotelFamily.versions.indices { fixtures[v] = { try HotelFamily.fill(at: $0, version: v) } }
        let problems = try MigrationTestHarness(family: HotelFamily.family, fixtures: fixtures).check(in: dir.path)
        #expect(problems == [])
    }

    /// The app's own objects, as SQLite holds them, and every row of its own tables.
    static func appObjects(_ path: String) throws -> [[String]] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows(
            "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE name IN "
                + "('housekeeping', 'audit', 'guest_names', 'guest_audit', 'feedback_fts', 'feedback_fts_ai', "
                + "'feedback_fts_ad') ORDER BY name"
        ).map { $0.map { "\($0)" } }
            + c.rows("SELECT room || day || done FROM housekeeping").map { $0.map { "\($0)" } }
            + c.rows("SELECT id || ':' || body FROM feedback_fts ORDER BY id").map { $0.map { "\($0)" } }
            + c.rows("SELECT count(*) FROM audit").map { $0.map { "\($0)" } }
    }

    @Test func awaitedFromATaskEachVersionBecomesTheV5File() async throws {
        let dir = try Fixture.directory()
        let fresh = dir.file("fresh.sqlite")
        try HotelFamily.fill(at: fresh, version: 5)
        let expected = try Self.appObjects(fresh)
        #expect(expected.count == 14, "7 objects, 1 housekeeping row, 5 indexed feedbacks, 1 audit count")
        for v in 0..<5 {
            let path = dir.file("v\(v).sqlite")
            try HotelFamily.fill(at: path, version: v)
            let report = try await Task.detached {
                try await Migrator(family: HotelFamily.family).migrateIfNeeded(path: path, backup: .none)
            }.value
            #expect(report?.toVersion == 5)
            #expect(try Self.appObjects(path) == expected, "from v\(v)")
            let again = try await Migrator(family: HotelFamily.family).migrateIfNeeded(path: path, backup: .none)
            #expect(again == nil, "a current file is left alone")
        }
    }

    @Test func theAppsTriggersFireWhenItWritesThroughStore() throws {
        let dir = try Fixture.directory()
        let path = dir.file("hotel.sqlite")
        try HotelFamily.fill(at: path, version: 5)
        let store = try Store(path: path, schema: HotelFamily.v5)
        try store.write {
            try store.create("Guest", value: ["id": "G42", "name": "Nova", "email": "n@x"])
            try store.create("Feedback", value: ["id": "c9", "body": "elevador quebrado", "kind": "complaint"])
        }
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.rows("SELECT what FROM audit").map { "\($0[0])" } == ["guest G42"])
        #expect(try c.integer("SELECT count(*) FROM feedback_fts WHERE feedback_fts MATCH 'elevador'") == 1)
    }

    /// A table kept in place (columns renamed or dropped by ALTER TABLE) is never copied: the report's SQL, of the
    /// dry run and of the run, must list only staging tables the run fills and renames into place (it listed
    /// `CREATE TABLE "_urna_new_Feedback"` for the rename and `"_urna_new_Guest"` for the dropped photo and born).
    @Test func tablesKeptInPlaceListNoStagingTable() throws {
        let dir = try Fixture.directory()
        for origin in [0, 3] {
            let path = dir.file("v\(origin).sqlite")
            try HotelFamily.fill(at: path, version: origin)
            let m = Migrator(family: HotelFamily.family)
            let dry = try m.dryRun(path: path)
            let run = try m.run(try m.plan(path: path), backup: .none)
            for report in [dry, run] {
                for step in report.steps {
                    let sql = step.sql
                    for created in sql.compactMap(Self.stagingTable) {
                        #expect(
                            sql.contains("ALTER TABLE \"_urna_new_\(created)\" RENAME TO \"\(created)\""),
                            "v\(origin): step to v\(step.toVersion) lists a staging table for \(created) it never uses")
                    }
                }
                let toV5 = report.steps.last?.sql ?? []
                #expect(toV5.contains("ALTER TABLE \"Feedback\" RENAME COLUMN \"text\" TO \"body\""), "\(toV5)")
                #expect(!toV5.contains { $0.contains("_urna_new_") }, "\(toV5)")
            }
            #expect(dry.steps.map(\.sql) == run.steps.map(\.sql), "the dry run shows what the run does")
        }
    }

    /// The type whose staging table a statement creates (`CREATE TABLE "_urna_new_Guest" (...` -> Guest).
    static func stagingTable(_ sql: String) -> String? {
        let prefix = "CREATE TABLE \"_urna_new_"
        guard sql.hasPrefix(prefix) else { return nil }
        return sql.dropFirst(prefix.count).split(separator: "\"").first.map(String.init)
    }
}
