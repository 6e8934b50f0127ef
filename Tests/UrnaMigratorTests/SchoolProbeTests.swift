import Foundation
import SchoolFamily
import Testing
import UrnaStore

@testable import UrnaMigrator

/// Probes of the school family's v4 beyond its own history: the key moving to another property.
@Suite struct SchoolProbeTests {
    /// v5: Course keyed by a new Int `id` (set by the closure), `code` kept as an indexed property.
    static func keyMoved() throws -> SchemaFamily {
        var types = SchoolFamily.versions[4].types
        let i = try #require(types.firstIndex { $0.name == "Course" })
        let props = types[i].properties.map { p -> Property in
            var q = p
            if q.name == "code" {
                q.primaryKey = false
                q.indexed = true
            }
            return q
        }
        types[i] = ObjectSchema("Course", [Property("id", .int64, primaryKey: true)] + props)
        let v5 = try Schema(family: "school", version: 5, types: types)
        let step = MigrationStep("courses keyed by number") { m in
            var n: Int64 = 0
            try m.enumerateObjects(ofType: "Course") { _, new in
                n += 1
                new["id"] = .int(n * 10)
            }
        }
        return SchemaFamily(name: "school", versions: SchoolFamily.family.versions + [SchemaVersion(v5, step: step)])
    }

    @Test func aKeyMovedToANewPropertyTakesEveryLinkAlong() throws {
        let dir = try Fixture.directory()
        let path = dir.file("s.sqlite")
        try SchoolFamily.fill(at: path, version: 4)
        let family = try Self.keyMoved()
        _ = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, code FROM Course ORDER BY id").map { "\($0[0]) \($0[1])" } == [
                "10 MATH1", "20 HIST2", "30 ART3", "40 LAT0",
            ])
        #expect(
            try c.rows("SELECT course FROM Grade ORDER BY id").map { "\($0[0])" }
                == ["10", "20", "30", "10", "20", "NULL", "10"])
        #expect(
            try c.rows("SELECT owner || '>' || target FROM Course_prerequisites ORDER BY owner, position").map {
                "\($0[0])"
            } == ["20>10", "30>10", "30>20", "40>20", "40>20"])
        #expect(try c.integer("SELECT count(*) FROM Enrollment WHERE typeof(course) = 'integer'") == 7)
        #expect(try c.rows("PRAGMA foreign_key_check").isEmpty)
    }
}

/// An app's search over a family table kept as SQLite documents it, an FTS5 table with `content='Course'`: the
/// index holds the rowids of Course's rows. A run that rebuilds Course numbered its rows afresh (a deleted course
/// left a gap), so the search silently found nothing, or another course.
@Suite struct ExternalContentSearchTests {
    static func courses(matching word: String, _ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows(
            "SELECT c.code FROM course_search s JOIN Course c ON c.rowid = s.rowid WHERE course_search MATCH ? "
                + "ORDER BY c.code", [.text(word)]
        ).map { "\($0[0])" }
    }

    @Test func anExternalContentIndexStillFindsItsRowsAfterTheRun() throws {
        let dir = try Fixture.directory()
        for dry in [false, true] {
            let path = dir.file("s-\(dry).sqlite")
            try SchoolFamily.fill(at: path, version: 0)
            let c = try Connection(path: path)
            for sql in [
                "PRAGMA foreign_keys = ON", "INSERT INTO Course(code, title) VALUES ('AAA', 'Astronomy basics')",
                "DELETE FROM Course WHERE code = 'LAT0'",
                "CREATE VIRTUAL TABLE course_search USING fts5(title, content='Course')",
                "INSERT INTO course_search(course_search) VALUES ('rebuild')",
            ] { try c.execute(sql) }
            #expect(try Self.courses(matching: "astronomy", path) == ["AAA"])
            let m = Migrator(family: SchoolFamily.family)
            if dry {
                let report = try m.dryRun(path: path)
                #expect(report.failures.isEmpty, "\(report.failures)")
                continue
            }
            _ = try m.run(try m.plan(path: path), backup: .none)
            #expect(try Self.courses(matching: "astronomy", path) == ["AAA"])
            #expect(try Self.courses(matching: "rome", path) == ["HIST2"])
            try Connection(path: path).execute("INSERT INTO course_search(course_search) VALUES ('integrity-check')")
        }
    }

    /// An index over a column the run renames cannot be rebuilt: the run fails naming it, and the file is as it was.
    @Test func anIndexOverARenamedColumnFailsTheRunNamingIt() throws {
        let dir = try Fixture.directory()
        let path = dir.file("s.sqlite")
        try SchoolFamily.fill(at: path, version: 0)
        try Connection(path: path).execute(
            "CREATE VIRTUAL TABLE teacher_search USING fts5(title, teacher, content='Course')")
        let m = Migrator(family: SchoolFamily.family)
        let broken = try m.plan(path: path).brokenUserObjects
        #expect(
            broken.contains { $0.hasPrefix("search index teacher_search uses Course.teacher, which") }, "\(broken)")
        // The roster view reads `fullname`, which v1 renames by case only: SQLite still finds it (it did).
        #expect(!broken.contains { $0.contains("roster") }, "\(broken)")
        #expect {
            _ = try m.run(try m.plan(path: path), backup: .none)
        } throws: { error in
            "\(error)".contains("your search index teacher_search over Course could not be rebuilt")
        }
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT version FROM _urna_schema") == 0)
        #expect(try c.integer("SELECT count(*) FROM Teacher") == 3)
    }

    @Test func theContentTableIsReadFromEveryFTSSpelling() {
        let cases: [(String, String?)] = [
            ("CREATE VIRTUAL TABLE s USING fts5(title, content='Course')", "Course"),
            ("CREATE VIRTUAL TABLE s USING FTS4(title, content=\"Odd \"\"Name\"\"\")", "Odd \"Name\""),
            ("CREATE VIRTUAL TABLE s USING fts5(title, content = [Course], content_rowid = 'rowid')", "Course"),
            ("CREATE VIRTUAL TABLE s USING fts5(title, content='')", nil),
            ("CREATE VIRTUAL TABLE s USING fts5(title, 'content=Course')", nil),
            ("CREATE VIRTUAL TABLE s USING rtree(id, a, b)", nil),
            // The table's own name may hold parentheses, spaces or the word USING; the module may be quoted.
            ("CREATE VIRTUAL TABLE \"course search (v2)\" USING fts5(title, content='Course')", "Course"),
            ("CREATE VIRTUAL TABLE [x using fts5(a)] USING fts4(title, content='Course')", "Course"),
            ("CREATE VIRTUAL TABLE \"a\"\"(b\" USING \"fts5\" (title, content='Course')", "Course"),
            ("CREATE VIRTUAL TABLE \"s\" USING rtree(id, a, b) -- fts5(content='Course')", nil),
        ]
        for (sql, table) in cases { #expect(MigrationRunner.externalContentTable(sql) == table, "\(sql)") }
    }

    /// A reviewer's case: an index whose own name holds a parenthesis was not recognised (the first `(` of the
    /// statement, inside the name, was taken for the module's), so it was left stale and found nothing.
    @Test func anIndexWhoseNameHoldsAParenthesisIsRebuilt() throws {
        let dir = try Fixture.directory()
        let path = dir.file("paren.sqlite")
        try SchoolFamily.fill(at: path, version: 0)
        let name = "course search (v2)"
        let c = try Connection(path: path)
        for sql in [
            "PRAGMA foreign_keys = ON",  // the deleted course's list rows go with it
            "INSERT INTO Course(code, title) VALUES ('AAA', 'Astronomy basics')",
            "DELETE FROM Course WHERE code = 'LAT0'",
            "CREATE VIRTUAL TABLE \(Identifier.quoted(name)) USING fts5(title, content='Course')",
            "INSERT INTO \(Identifier.quoted(name))(\(Identifier.quoted(name))) VALUES ('rebuild')",
        ] { try c.execute(sql) }
        func found(_ word: String) throws -> [String] {
            let r = try Connection(path: path, readOnly: true, create: false)
            return try r.rows(
                "SELECT c.code FROM \(Identifier.quoted(name)) s JOIN Course c ON c.rowid = s.rowid "
                    + "WHERE \(Identifier.quoted(name)) MATCH ? ORDER BY c.code", [.text(word)]
            ).map { "\($0[0])" }
        }
        #expect(try found("astronomy") == ["AAA"])
        let m = Migrator(family: SchoolFamily.family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.checks.contains { $0.name == "search indexes" && $0.detail.contains(name) })
        #expect(try found("astronomy") == ["AAA"])
    }
}
