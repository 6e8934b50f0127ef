import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// A migrator and a writer on the same file: what the writer commits between the plan and the run, and
/// what a store opened before the run may still write after it.
@Suite struct ConcurrentMigrationTests {
    static let v0 = try! Schema(
        family: "notes", version: 0,
        types: [
            ObjectSchema(
                "Note", [Property("id", .int64, primaryKey: true), Property("nick", .string, optional: true)])
        ])
    static let v1 = try! Schema(
        family: "notes", version: 1, types: [ObjectSchema("Note", [Property("id", .int64, primaryKey: true)])])
    /// v1 drops `Note.nick` without a closure: allowed only while no note has a nick.
    static let family = SchemaFamily(
        name: "notes", versions: [SchemaVersion(v0), SchemaVersion(v1, step: MigrationStep("drop nick"))])

    @Test func valueWrittenBetweenPlanAndRunIsNotDroppedWithoutPermission() throws {
        let dir = try Fixture.directory()
        let path = dir.file("notes.sqlite")
        let store = try Store(path: path, schema: Self.v0)
        try store.write { try store.create("Note", value: ["id": 1]) }
        let migrator = Migrator(family: Self.family)
        // Planned while every nick is nil: nothing would be lost, so the plan is allowed.
        let plan = try migrator.plan(path: path)
        // A writer (another task or process) commits a nick before the run starts.
        try store.write { try store.create("Note", value: ["id": 2, "nick": "kept"]) }
        var outcome = "applied"
        do {
            _ = try migrator.run(plan, backup: .none)
        } catch let e as MigrationError {
            outcome = "\(e)"
        }
        #expect(outcome.contains("Note.nick") || outcome.contains("nick"), "\(outcome)")
        let nicks = try Connection(path: path, readOnly: true, create: false).rows(
            "SELECT name FROM pragma_table_info('Note') WHERE name = 'nick'")
        #expect(nicks.count == 1, "the run dropped Note.nick, which held a value written after the plan")
    }

    @Test func storeOpenedBeforeAMigrationRefusesToReadAndWriteAfterIt() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let m = Migrator(family: LibraryFamily.family)
        _ = try m.run(try m.plan(path: path, to: 2), backup: .none)
        // The app's store, opened at v2 (Book.price a Double), stays open while the file is upgraded to v3
        // (price in exact cents: 110 for 1.104, which a v2 store would read as 110.0).
        let store = try Store(path: path, schema: LibraryFamily.family.schema(version: 2)!)
        let before = try #require(try store.object(ofType: "Book", forPrimaryKey: 10))
        #expect(try before.value(forKey: "price") == .double(1.104))
        _ = try m.run(try m.plan(path: path, to: 3), backup: .none)
        var read = ""
        do {
            let book = try store.object(ofType: "Book", forPrimaryKey: 10)
            read = "read \(String(describing: try book?.value(forKey: "price")))"
        } catch {
            read = "\(error)"
        }
        #expect(read.contains("library version 3") && read.contains("nothing was read"), "\(read)")
        do {
            _ = try store.objects("Book").filter("price > 100").count
            Issue.record("a query of the v2 store ran on the v3 file")
        } catch StoreError.schemaMismatch {}
        var written = "written"
        do {
            try store.write { try store.create("Book", value: ["id": 99, "title": "Late", "price": 9.99]) }
        } catch {
            written = "\(error)"
        }
        #expect(written.contains("nothing was written"), "a v2 store wrote into the v3 file: \(written)")
        let reopened = try Store(path: path, schema: LibraryFamily.family.schema(version: 3)!)
        #expect(try reopened.object(ofType: "Book", forPrimaryKey: 99) == nil)
    }

    /// People v0 -> v1 whose step backfills in SQL before its closure reads the old objects.
    static func backfillingFamily() -> SchemaFamily {
        let v0 = People.family.schema(version: 0)!
        let v1 = People.family.schema(version: 1)!
        let step = MigrationStep(
            "fullName, with first names backfilled in SQL first", sqlBefore: ["UPDATE Person SET firstName = 'Dr'"]
        ) { migration in
            try migration.enumerateObjects(ofType: "Person") { old, new in
                new["fullName"] = .string("\(old["firstName"].stringValue ?? "") \(old["lastName"].stringValue ?? "")")
            }
        }
        return SchemaFamily(name: "people", versions: [SchemaVersion(v0), SchemaVersion(v1, step: step)])
    }

    @Test(arguments: [true, false])
    func closureOfTheFirstStepSeesWhatItsSQLBeforeChanged(readAhead: Bool) throws {
        let dir = try Fixture.directory()
        let path = dir.file("people.sqlite")
        try Fixture.peopleFile(at: path, version: 0)
        let m = Migrator(family: Self.backfillingFamily(), options: MigrationOptions(readAhead: readAhead))
        _ = try m.run(try m.plan(path: path), backup: .none)
        let names = try Connection(path: path, readOnly: true, create: false).rows(
            "SELECT fullName FROM Person ORDER BY fullName"
        ).map { "\($0[0])" }
        #expect(names.allSatisfy { $0.hasPrefix("Dr ") }, "\(names)")
    }
}
