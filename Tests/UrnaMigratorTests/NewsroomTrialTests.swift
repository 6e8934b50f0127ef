import Foundation
import NewsroomFamily
import Testing
import UrnaMigrator
import UrnaStore

/// Issue 14's sixth app trial: the newsroom family, a file filled by the app of every historical version (edge
/// values: empty strings, NULLs, unicode, Int64.min/max, a 3 MB blob) migrated to v6 in one run and step by step,
/// compared value by value with a v6 file written independently of the steps; the app's own FTS5 index, search
/// triggers and unique index kept through every step.
@Suite struct NewsroomTrialTests {
    /// The first story's photo: 256 KB here (the app's own `seed` writes 3 MB, which the CLI trial migrates).
    static let photo = 256 * 1024

    /// The app's own objects (the search index and its triggers, the unique slug index) as the file holds them.
    static func appObjects(_ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows(
            "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE name LIKE 'story\\_%' ESCAPE '\\' "
                + "AND sql IS NOT NULL ORDER BY name"
        ).map { "\($0[0])" }
    }

    /// The search index's rows, and what a search finds.
    static func search(_ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows("SELECT slug, title FROM story_fts ORDER BY slug").map { "\($0[0])=\($0[1])" }
            + c.rows("SELECT slug FROM story_fts WHERE story_fts MATCH 'economia' ORDER BY slug").map {
                "match \($0[0])"
            }
    }

    @Test func everyVersionMigratedInOneRunAndStepByStepEqualsAFreshV6() throws {
        let dir = try Fixture.directory()
        for origin in 0...5 {
            let expected = dir.file("expected-\(origin).sqlite")
            try NewsroomFamily.fill(at: expected, version: 6, origin: origin, photoBytes: Self.photo)
            for stepwise in [false, true] {
                let path = dir.file("v\(origin)-\(stepwise).sqlite")
                try NewsroomFamily.fill(at: path, version: origin, photoBytes: Self.photo)
                let m = Migrator(family: NewsroomFamily.family)
                for to in stepwise ? Array((origin + 1)...6) : [6] {
                    let plan = try m.plan(path: path, to: to)
                    #expect(plan.brokenUserObjects.isEmpty, "v\(origin) → \(to): \(plan.brokenUserObjects)")
                    #expect(try m.run(plan, backup: .none).outcome == .applied)
                }
                let differences = try RowChecker.differences(path, expected)
                #expect(differences.isEmpty, "from v\(origin) (stepwise \(stepwise)): \(differences)")
                #expect(try RowChecker.count(path) == RowChecker.count(expected))
                #expect(try Self.appObjects(path) == Self.appObjects(expected), "from v\(origin)")
                #expect(try Self.search(path) == Self.search(expected), "from v\(origin)")
            }
        }
    }

    @Test func theSearchTriggersStillWorkAfterTheMigration() throws {
        let dir = try Fixture.directory()
        let path = dir.file("v0.sqlite")
        try NewsroomFamily.fill(at: path, version: 0, photoBytes: Self.photo)
        let m = Migrator(family: NewsroomFamily.family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        let store = try Store(path: path, schema: NewsroomFamily.v6)
        try store.write {
            try store.create("Story", value: ["id": UUID(), "slug": "new-one", "headline": "Eleição apurada"])
        }
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT count(*) FROM story_fts WHERE story_fts MATCH 'apurada'") == 1)
    }

    @Test func theSquashedFamilyRefusesFilesOlderThanItsBaseline() throws {
        let dir = try Fixture.directory()
        for origin in 0...2 {
            let path = dir.file("old-\(origin).sqlite")
            try NewsroomFamily.fill(at: path, version: origin, photoBytes: Self.photo)
            let bytes = FileManager.default.contents(atPath: path)
            let m = Migrator(family: NewsroomFamily.squashed)
            #expect(throws: MigrationError.self) { _ = try m.plan(path: path) }
            #expect(FileManager.default.contents(atPath: path) == bytes)
        }
        let path = dir.file("v3.sqlite")
        try NewsroomFamily.fill(at: path, version: 3, photoBytes: Self.photo)
        let m = Migrator(family: NewsroomFamily.squashed)
        _ = try m.run(try m.plan(path: path), backup: .none)
        let expected = dir.file("expected.sqlite")
        try NewsroomFamily.fill(at: expected, version: 6, origin: 3, photoBytes: Self.photo)
        #expect(try RowChecker.differences(path, expected) == [])
    }
}
