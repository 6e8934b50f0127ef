import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// Every loss needs permission: a step without a closure that would drop data is refused at plan time,
/// naming the property and the allowance that permits it; the file keeps its data.
@Suite struct LossPermissionTests {
    /// A v4 library file with three authors.
    static func v4File(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let m = Migrator(family: LibraryFamily.family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        return path
    }

    static func names(_ path: String, column: String = "name") throws -> [String] {
        try Connection(path: path, readOnly: true, create: false).rows(
            "SELECT \(Identifier.quoted(column)) FROM Author ORDER BY id"
        ).map { "\($0[0])" }
    }

    static func refusal(_ body: () throws -> Void) -> MigrationError? {
        do {
            try body()
            return nil
        } catch let e as MigrationError {
            return e
        } catch {
            return nil
        }
    }

    @Test func typoWithoutRenameIsRefusedNamingPropertyAndAllowance() throws {
        let dir = try Fixture.directory()
        let path = try Self.v4File(dir)
        let family = LibraryFamily.with(.typo)
        let e = try #require(Self.refusal { _ = try Migrator(family: family).plan(path: path) })
        guard case .refused(_, let reasons) = e else {
            Issue.record("not a refusal: \(e)")
            return
        }
        #expect(e.exitCode == 65)
        #expect(reasons.map(\.property) == ["name"])
        let text = e.description
        for needle in ["Author.name", "Author.nam is added", "--allow-loss Author.name", ".discard(type: \"Author\""] {
            #expect(text.contains(needle), "'\(needle)' not in: \(text)")
        }
        #expect(try Self.names(path) == ["Ana Souza", "José Lima", "Maria da Conceição"])
        // The dry run refuses the same way, and allowing the loss lets it run (the values are then gone).
        #expect(Self.refusal { _ = try Migrator(family: family).dryRun(path: path) } != nil)
        let allowed = Migrator(
            family: family, options: MigrationOptions(allowances: MigrationAllowance.loss(of: "Author.name")))
        let report = try allowed.run(try allowed.plan(path: path), backup: .none)
        #expect(report.steps.last?.droppedData.map(\.property) == ["name"])
        #expect(try Self.names(path, column: "nam") == ["", "", ""])
    }

    @Test func caseOnlyChangeIsRecognisedAndNeedsItsRename() throws {
        let dir = try Fixture.directory()
        let path = try Self.v4File(dir)
        let e = try #require(
            Self.refusal { _ = try Migrator(family: LibraryFamily.with(.caseChange)).plan(path: path) })
        #expect(e.description.contains("Author.Name differs from it only in case"), "\(e)")
        #expect(
            e.description.contains("PropertyRename(type: \"Author\", from: \"name\", to: \"Name\")"), "\(e)")
        #expect(try Self.names(path) == ["Ana Souza", "José Lima", "Maria da Conceição"])
        // Declared, the rename keeps every name.
        let renamed = LibraryFamily.with(
            .caseChange, renames: [PropertyRename(type: "Author", from: "name", to: "Name")])
        let m = Migrator(family: renamed)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try Self.names(path, column: "Name") == ["Ana Souza", "José Lima", "Maria da Conceição"])
        #expect(try Store.openExisting(path: path).schema[type: "Author"]?[property: "Name"] != nil)
    }

    @Test func requiredPropertyWithoutDefaultIsRefused() throws {
        let dir = try Fixture.directory()
        let path = try Self.v4File(dir)
        let family = LibraryFamily.with(.requiredWithoutDefault)
        let e = try #require(Self.refusal { _ = try Migrator(family: family).plan(path: path) })
        guard case .refused(_, let reasons) = e else {
            Issue.record("not a refusal: \(e)")
            return
        }
        #expect(reasons.map { "\($0.type).\($0.property ?? "")" } == ["Book.isbn"])
        #expect(e.description.contains("required property is added without a default"), "\(e)")
        #expect(e.description.contains("every existing object would get ''"), "the empty default is shown: \(e)")
        #expect(e.description.contains("--allow-loss Book.isbn"), "\(e)")
        // The step's own allowance lets it through: every book gets "".
        let allowed = LibraryFamily.with(
            .requiredWithoutDefault, allowances: [.nullsBecomeDefault(type: "Book", property: "isbn")])
        let m = Migrator(family: allowed)
        _ = try m.run(try m.plan(path: path), backup: .none)
        #expect(try Connection(path: path).integer("SELECT count(*) FROM Book WHERE isbn = ''") == 6)
    }

    @Test func removedTypeWithObjectsIsRefusedButAnEmptyOneIsNot() throws {
        let dir = try Fixture.directory()
        let path = try Self.v4File(dir)
        let family = LibraryFamily.with(.removedType)
        let e = try #require(Self.refusal { _ = try Migrator(family: family).plan(path: path) })
        #expect(e.description.contains("Shelf: the type is removed"), "\(e)")
        #expect(e.description.contains("--allow-loss Shelf"), "\(e)")
        try Connection(path: path).execute("DELETE FROM Shelf_books; DELETE FROM Shelf")
        let plan = try Migrator(family: family).plan(path: path)
        #expect(plan.toVersion == 5, "nothing to lose: no permission needed")
    }

    /// The plan lists the user's views and indexes a rename or removal breaks; a step's SQL recreates them.
    @Test func brokenUserObjectsAreListedAndSQLStepsRecreateThem() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        try Connection(path: path).execute(
            """
            CREATE VIEW author_names AS SELECT "fullName" FROM "Author";
            CREATE INDEX author_full_name ON "Author"("fullName");
            CREATE INDEX book_title ON "Book"("title");
            """)
        let plan = try Migrator(family: LibraryFamily.family).plan(path: path, to: 1)
        #expect(plan.brokenUserObjects.count == 2, "\(plan.brokenUserObjects)")
        #expect(plan.brokenUserObjects.contains { $0.hasPrefix("view author_names uses Author.fullName") })
        #expect(plan.brokenUserObjects.contains { $0.hasPrefix("index author_full_name uses Author.fullName") })
        #expect(plan.renderText().contains("Your own objects that would break:"))

        var steps = LibraryFamily.steps
        steps[0].sqlBefore = ["DROP VIEW author_names", "DROP INDEX author_full_name"]
        steps[0].sqlAfter = [
            "CREATE VIEW author_names AS SELECT \"name\" FROM \"Author\"",
            "CREATE INDEX author_name ON \"Author\"(\"name\")",
        ]
        let fixed = SchemaFamily(
            name: "library",
            versions: [SchemaVersion(LibraryFamily.v0), SchemaVersion(LibraryFamily.v1, step: steps[0])])
        let m = Migrator(family: fixed)
        let p = try m.plan(path: path)
        _ = try m.run(p, backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT * FROM author_names ORDER BY 1").map { "\($0[0])" } == [
                "Ana Souza", "José Lima", "Maria da Conceição",
            ])
        #expect(try c.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('author_name', 'book_title')") == 2)
    }

    /// A v5 with a typo in Author.name whose step has a closure for another type (Book): the closure never reads
    /// Author, so it cannot have carried the names; the run must refuse (rolled back, names intact) instead of
    /// dropping the three names with exit 0.
    static func typoBesideClosure(renames: [PropertyRename] = [], allowances: [MigrationAllowance] = [])
        -> SchemaFamily
    {
        let typo = LibraryFamily.with(.typo)
        let step = MigrationStep("v5: titles upper-cased", renames: renames, allowances: allowances) { m in
            try m.enumerateObjects(ofType: "Book") { old, new in
                new["title"] = .string((old["title"].stringValue ?? "").uppercased())
            }
        }
        return SchemaFamily(
            name: "library", versions: LibraryFamily.family.versions + [SchemaVersion(typo.latest, step: step)])
    }

    @Test func typoInATypeTheClosureNeverReadsIsNotDroppedSilently() throws {
        let dir = try Fixture.directory()
        let path = try Self.v4File(dir)
        let family = Self.typoBesideClosure()
        let m = Migrator(family: family)
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome == .failed, "the dry run must not predict success")
        #expect(dry.failures.contains { $0.type == "Author" && $0.property == "name" }, "\(dry.failures)")
        let text = dry.failures.map(\.message).joined(separator: "\n")
        #expect(text.contains("--allow-loss Author.name"), "\(text)")
        #expect(throws: (any Error).self, "the run must fail") { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(try Connection(path: path).integer("PRAGMA user_version") == 4, "rolled back (only the ledger row)")
        #expect(try Self.names(path) == ["Ana Souza", "José Lima", "Maria da Conceição"])
        // Allowed, the loss goes through (as for a step without a closure).
        let allowed = Migrator(family: Self.typoBesideClosure(allowances: [.discard(type: "Author", property: "name")]))
        let r = try allowed.run(try allowed.plan(path: path), backup: .none)
        #expect(r.outcome == .applied)
        #expect(try Self.names(path, column: "nam") == ["", "", ""])
    }

    /// A closure that enumerates the type but never reads a property the step removes (a misspelt rename beside
    /// a closure that bumps ages) is not trusted with that property: the run fails naming it, as the dry run does.
    @Test func aPropertyTheClosureNeverReadsIsNotDroppedSilently() throws {
        let dir = try Fixture.directory()
        let path = try Self.v4File(dir)
        let v5 = try Schema(
            family: "library", version: 5,
            types: LibraryFamily.family.latest.types.map { t in
                guard t.name == "Author" else { return t }
                return ObjectSchema(
                    t.name, t.properties.map { p in p.name == "name" ? Property("nmae", .string, default: "") : p })
            })
        func family(_ allowances: [MigrationAllowance]) -> SchemaFamily {
            SchemaFamily(
                name: "library",
                versions: LibraryFamily.family.versions + [
                    SchemaVersion(
                        v5,
                        step: MigrationStep("touch", allowances: allowances) { m in
                            try m.enumerateObjects(ofType: "Author") { old, new in
                                _ = old["id"]
                                new["nmae"] = .string("")
                            }
                        })
                ])
        }
        let m = Migrator(family: family([]))
        let dry = try m.dryRun(path: path)
        #expect(dry.outcome == .failed, "the dry run must not predict success")
        let text = dry.failures.map(\.message).joined(separator: "\n")
        #expect(text.contains("never reads Author.name on any object") && text.contains("--allow-loss Author.name"), "\(text)")
        #expect(throws: MigrationError.self) { _ = try m.run(try m.plan(path: path), backup: .none) }
        #expect(try Self.names(path) == ["Ana Souza", "José Lima", "Maria da Conceição"])
        let allowed = Migrator(family: family([.discard(type: "Author", property: "name")]))
        #expect(try allowed.run(try allowed.plan(path: path), backup: .none).outcome == .applied)
    }
}
