import Foundation
import LibraryFamily
import Testing
import UrnaStore

@testable import UrnaMigrator

/// Consecutive steps of a run are fused (`RunFusion`): a type one step would copy with SQL and the next step
/// rebuilds is written once, and the result is the one of running the steps apart.
@Suite struct FusedStepsTests {
    /// Statements of a report that put a rebuilt table of `type` in place (one per rebuild).
    static func rebuilds(_ report: MigrationReport, _ type: String) -> Int {
        report.steps.flatMap(\.sql).filter {
            $0
                == "ALTER TABLE \(Identifier.quoted(StepAnalysis.stagingName(type))) RENAME TO \(Identifier.quoted(type))"
        }.count
    }

    static func run(_ family: SchemaFamily, _ path: String, fused: Bool) throws -> MigrationReport {
        var options = MigrationOptions()
        options.fusesSteps = fused
        let m = Migrator(family: family, options: options)
        return try m.run(try m.plan(path: path), backup: .none)
    }

    @Test func theLibraryChainRebuildsBookOnceAndEqualsTheStepwiseRunAndAFreshFile() throws {
        let dir = try Fixture.directory()
        let fusedPath = dir.file("fused.sqlite")
        let apartPath = dir.file("apart.sqlite")
        try LibraryFamily.fillV0(at: fusedPath, authors: 7)
        try LibraryFamily.fillV0(at: apartPath, authors: 7)
        let fused = try Self.run(LibraryFamily.family, fusedPath, fused: true)
        let apart = try Self.run(LibraryFamily.family, apartPath, fused: false)
        #expect(Self.rebuilds(apart, "Book") == 2, "without fusion v1 → v2 and v2 → v3 both rebuild Book")
        #expect(Self.rebuilds(fused, "Book") == 1)
        #expect(fused.steps.map(\.fusedIntoNextStep) == [[], ["Book"], [], []])
        #expect(try MigrationTestHarness.rows(fusedPath) == MigrationTestHarness.rows(apartPath))
        #expect(fused.steps.count == 4 && fused.steps.allSatisfy { !$0.sql.isEmpty })
        // One ledger row per step, as before.
        func ledger(_ path: String) throws -> [String] {
            let c = try Connection(path: path, readOnly: true, create: false)
            return try c.rows("SELECT from_version, to_version FROM _urna_history ORDER BY rowid").map {
                "\($0[0])→\($0[1])"
            }
        }
        #expect(try ledger(fusedPath).suffix(4) == ["0→1", "1→2", "2→3", "3→4"])
        #expect(try ledger(fusedPath) == ledger(apartPath))
        // A dry run shows the carried books as v2 has them (links rewritten), and leaves the file as it was.
        let previewPath = dir.file("preview.sqlite")
        try LibraryFamily.fillV0(at: previewPath)
        let before = try Data(contentsOf: URL(fileURLWithPath: previewPath))
        let preview = try Migrator(family: LibraryFamily.family).dryRun(path: previewPath)
        #expect(preview.outcome == .previewed && preview.steps[1].fusedIntoNextStep == ["Book"])
        let books = try #require(preview.steps[1].samples.first { $0.type == "Book" })
        #expect(books.after.first?.fields.first { $0.name == "author" }?.value.contains("A1") == true, "\(books.after)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: previewPath)) == before)
        // Every path (one run, now fused, and step by step) agrees with a fresh v4 file.
        let harness = MigrationTestHarness(
            family: LibraryFamily.family, fixtures: [0: { try LibraryFamily.fillV0(at: $0, authors: 5) }])
        #expect(try harness.check(in: dir.path) == [])
    }

    @Test func thePlanSaysWhichCopiesAreFusedAndWhy() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plan.sqlite")
        try LibraryFamily.fillV0(at: path)
        let plan = try Migrator(family: LibraryFamily.family).plan(path: path)
        #expect(plan.steps[1].sql.contains { $0.hasPrefix("-- Book: fused with v2 → v3") }, "\(plan.steps[1].sql)")
        var options = MigrationOptions()
        options.fusesSteps = false
        let apart = try Migrator(family: LibraryFamily.family, options: options).plan(path: path)
        #expect(!apart.steps.flatMap(\.sql).contains { $0.contains("fused") })
        // SQL of the app's between the two steps would see the table in its older form: not fused, and said.
        var versions = LibraryFamily.family.versions
        var withSQL = LibraryFamily.steps[2]
        withSQL.sqlBefore = ["UPDATE Tag SET name = name"]
        versions[3] = SchemaVersion(LibraryFamily.v3, step: withSQL)
        let family = SchemaFamily(name: "library", versions: versions)
        let refused = try Migrator(family: family).plan(path: path)
        #expect(
            refused.steps[1].sql.contains {
                $0 == "-- Book: rebuilt here and again in v2 → v3, not fused: SQL runs between the two steps"
            }, "\(refused.steps[1].sql)")
        let report = try Self.run(family, path, fused: true)
        #expect(Self.rebuilds(report, "Book") == 2)
        #expect(report.steps.allSatisfy { $0.fusedIntoNextStep.isEmpty })
    }

    // MARK: - A closure that looks carried rows up by their links and deletes

    static func schema(_ version: Int) -> Schema {
        var author: [Property] = [Property("id", version == 0 ? .int64 : .string, primaryKey: true)]
        author.append(Property("name", .string, default: ""))
        if version >= 1 { author.append(Property("books", .linkingObjects(type: "Book", property: "author"))) }
        if version >= 2 { author.append(Property("bookCount", .int64, default: 0)) }
        var book: [Property] = [
            Property("id", .int64, primaryKey: true), Property("title", .string, default: ""),
            Property("author", .link("Author")),
        ]
        if version >= 2 { book.append(Property("pages", .int64, default: 0)) }
        return try! Schema(
            family: "shelfwork", version: version, types: [ObjectSchema("Author", author), ObjectSchema("Book", book)])
    }

    /// v1 re-keys authors (Book's links rewritten by SQL, carried into v2's rebuild); v2 counts each author's books
    /// through the inverse link (a lookup by a column the carried rows compute) and deletes author A3 (a deletion
    /// in the step that reads carried rows: their links are checked by hand, then cleared).
    static let family = SchemaFamily(
        name: "shelfwork",
        versions: [
            SchemaVersion(schema(0)),
            SchemaVersion(
                schema(1),
                step: MigrationStep("authors keyed by \"A<id>\"") { m in
                    try m.enumerateObjects(ofType: "Author") { old, new in
                        new["id"] = .string("A\(old["id"].intValue ?? 0)")
                    }
                }),
            SchemaVersion(
                schema(2),
                step: MigrationStep("authors count their books; A3 goes") { m in
                    try m.enumerateObjects(ofType: "Author") { old, new in
                        guard case .list(let books) = old["books"] else { return }
                        new["bookCount"] = .int(Int64(books.count))
                        if old["id"] == .string("A3") { try m.delete(new) }
                    }
                }),
        ])

    static func fill(_ path: String, dangling: Bool = false) throws {
        let store = try Store(path: path, schema: schema(0))
        try store.write {
            var authors: [DynamicObject] = []
            for i in 1...4 {
                authors.append(try store.create("Author", value: ["id": i, "name": "A \(i)"] as [String: Any]))
            }
            for b in 0..<10 {
                try store.create(
                    "Book", value: ["id": b, "title": "B \(b)", "author": authors[b % 3]] as [String: Any])
            }
        }
        if dangling {
            let c = try Connection(path: path, create: false)
            try c.execute("PRAGMA foreign_keys = OFF")
            try c.execute("INSERT INTO Book(id, title, author) VALUES (99, 'lost', 42)")
        }
    }

    @Test func carriedRowsAnswerInverseLookupsAndDeletionsAsTheStepwiseRunDoes() throws {
        let dir = try Fixture.directory()
        let fusedPath = dir.file("fused.sqlite")
        let apartPath = dir.file("apart.sqlite")
        try Self.fill(fusedPath)
        try Self.fill(apartPath)
        let fused = try Self.run(Self.family, fusedPath, fused: true)
        let apart = try Self.run(Self.family, apartPath, fused: false)
        #expect(fused.steps.map(\.fusedIntoNextStep) == [["Book"], []])
        #expect(Self.rebuilds(fused, "Book") == 1 && Self.rebuilds(apart, "Book") == 2)
        #expect(fused.steps[1].sql.contains { $0.hasPrefix("-- Book: its carried rows written to a temporary table") })
        #expect(try MigrationTestHarness.rows(fusedPath) == MigrationTestHarness.rows(apartPath))
        let c = try Connection(path: fusedPath, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, bookCount FROM Author ORDER BY id").map { "\($0[0]):\($0[1])" } == [
                "A1:4", "A2:3", "A4:0",
            ])
        #expect(
            try c.integer("SELECT count(*) FROM Book WHERE author IS NULL") == 3, "A3's three books lost their link")
        #expect(try c.integer("SELECT count(*) FROM Book WHERE pages = 0") == 10)
    }

    @Test func aDanglingLinkInCarriedRowsFailsTheRunAsItDoesStepwise() throws {
        let dir = try Fixture.directory()
        for fused in [true, false] {
            let path = dir.file("dangling-\(fused).sqlite")
            try Self.fill(path, dangling: true)
            do {
                _ = try Self.run(Self.family, path, fused: fused)
                Issue.record("a book pointing at no author migrated (fused: \(fused))")
            } catch let MigrationError.validationFailed(_, failures, _) {
                #expect(
                    failures.contains {
                        $0.check == "foreign-key" && $0.type == "Book" && $0.message.contains("object 99 points at a")
                    }, "fused: \(fused): \(failures)")
            }
            let c = try Connection(path: path, readOnly: true, create: false)
            #expect(try c.integer("SELECT version FROM _urna_schema") == 0, "rolled back")
            #expect(try c.integer("SELECT author FROM Book WHERE id = 99") == 42)
        }
    }

    // MARK: - A copy carried through two steps

    static func chainSchema(_ version: Int) -> Schema {
        let author = ObjectSchema(
            "Author",
            [Property("id", version == 0 ? .int64 : .string, primaryKey: true), Property("name", .string, default: "")])
        var book: [Property] = [
            Property("id", .int64, primaryKey: true), Property("title", .string, default: ""),
            Property("author", .link("Author")),
        ]
        if version >= 2 { book.append(Property("pages", .int64, default: 7)) }
        if version >= 3 { book.append(Property("isbn", .string, default: "none")) }
        return try! Schema(family: "chain", version: version, types: [author, ObjectSchema("Book", book)])
    }

    /// Books are copied by SQL in all three steps: written once, in the last, through two nested SELECTs.
    @Test func aCopyCarriedThroughTwoStepsIsWrittenOnceWithTheSameRows() throws {
        let family = SchemaFamily(
            name: "chain",
            versions: [
                SchemaVersion(Self.chainSchema(0)),
                SchemaVersion(
                    Self.chainSchema(1),
                    step: MigrationStep("authors keyed by \"A<id>\"") { m in
                        try m.enumerateObjects(ofType: "Author") { old, new in
                            new["id"] = .string("A\(old["id"].intValue ?? 0)")
                        }
                    }),
                SchemaVersion(Self.chainSchema(2), step: MigrationStep("pages")),
                SchemaVersion(Self.chainSchema(3), step: MigrationStep("isbn")),
            ])
        let dir = try Fixture.directory()
        var reports: [MigrationReport] = []
        for fused in [true, false] {
            let path = dir.file("chain-\(fused).sqlite")
            let store = try Store(path: path, schema: Self.chainSchema(0))
            try store.write {
                let a = try store.create("Author", value: ["id": 1, "name": "Ana"] as [String: Any])
                let b = try store.create("Author", value: ["id": 2, "name": "José"] as [String: Any])
                for i in 0..<6 {
                    try store.create(
                        "Book", value: ["id": i, "title": "B\(i)", "author": i % 2 == 0 ? a : b] as [String: Any])
                }
            }
            reports.append(try Self.run(family, path, fused: fused))
        }
        #expect(reports[0].steps.map(\.fusedIntoNextStep) == [["Book"], ["Book"], []])
        #expect(Self.rebuilds(reports[0], "Book") == 1 && Self.rebuilds(reports[1], "Book") == 3)
        let rows = try MigrationTestHarness.rows(dir.file("chain-true.sqlite"))
        #expect(rows == (try MigrationTestHarness.rows(dir.file("chain-false.sqlite"))))
        #expect(rows["Book"]?.first == "0|B0|A1|7|none", "\(rows)")
    }
}
