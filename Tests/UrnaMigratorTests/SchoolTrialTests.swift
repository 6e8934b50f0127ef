import Foundation
import SchoolFamily
import Testing
import UrnaMigrator
import UrnaStore

/// Issue 14's eighth app trial, a school's own family (`Examples/SchoolFamily`): every historical version, migrated
/// in one run and step by step, equals the app's own v4 file (its table, view, triggers and search included); the
/// squashed family does the same from its baseline; the backup of a run restores the file as it was.
@Suite struct SchoolTrialTests {
    static func fixtures(from first: Int = 0) -> [Int: (String) throws -> Void] {
        var fixtures: [Int: (String) throws -> Void] = [:]
        for v in first..<SchoolFamily.versions.count { fixtures[v] = { try SchoolFamily.fill(at: $0, version: v) } }
        return fixtures
    }

    @Test func everyVersionMigratesToTheAppsOwnV4File() throws {
        let dir = try Fixture.directory()
        #expect(SchoolFamily.family.problems() == [])
        let problems = try MigrationTestHarness(family: SchoolFamily.family, fixtures: Self.fixtures()).check(
            in: dir.path)
        #expect(problems == [])
        let squashed = try MigrationTestHarness(family: SchoolFamily.squashed, fixtures: Self.fixtures(from: 2))
            .check(in: dir.path)
        #expect(squashed == [])
    }

    /// The app's own objects, as SQLite holds them, and every row of its own tables.
    static func appObjects(_ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows(
            "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE name IN "
                + "('attendance', 'grade_log', 'roster', 'grade_logged', 'course_fts', 'course_fts_ai') ORDER BY name"
        ).map { "\($0[0])" }
            + c.rows("SELECT student || day || present FROM attendance").map { "\($0[0])" }
            + c.rows("SELECT code || ':' || title FROM course_fts ORDER BY code").map { "\($0[0])" }
            + c.rows("SELECT count(*) FROM grade_log").map { "\($0[0])" }
            + c.rows("SELECT id || ' ' || fullname FROM roster ORDER BY id").map { "\($0[0])" }
    }

    @Test func theAppsObjectsSurviveEveryPath() throws {
        let dir = try Fixture.directory()
        let fresh = dir.file("fresh.sqlite")
        try SchoolFamily.fill(at: fresh, version: 4)
        let expected = try Self.appObjects(fresh)
        #expect(expected.count == 6 + 1 + 4 + 1 + 4, "6 objects, 1 attendance row, 4 courses, 1 count, 4 on the roster")
        for v in 0..<4 {
            let path = dir.file("v\(v).sqlite")
            try SchoolFamily.fill(at: path, version: v)
            let report = try Migrator(family: SchoolFamily.family).migrateIfNeeded(path: path, backup: .none)
            #expect(report?.toVersion == 4)
            #expect(try Self.appObjects(path) == expected, "from v\(v)")
        }
    }

    @Test func theBackupRestoresTheFileAsItWas() throws {
        let dir = try Fixture.directory()
        let path = dir.file("school.sqlite")
        try SchoolFamily.fill(at: path, version: 0)
        let before = try Self.appObjects(path)
        let c0 = try Connection(path: path, readOnly: true, create: false)
        let teachers = try c0.rows("SELECT id, name, salary, active, hired, signature FROM Teacher ORDER BY id")
            .map { "\($0)" }
        _ = try Migrator(family: SchoolFamily.family).migrateIfNeeded(path: path)
        let restored = try MigrationBackup.restore(path: path)
        #expect(restored.family == "school" && restored.version == 0, "\(restored)")
        #expect(try Migrator(family: SchoolFamily.family).plan(path: path).steps.count == 4)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, name, salary, active, hired, signature FROM Teacher ORDER BY id")
                .map { "\($0)" } == teachers)
        #expect(try Self.appObjects(path) == before)
    }
}
