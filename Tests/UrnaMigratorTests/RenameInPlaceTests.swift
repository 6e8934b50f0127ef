import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// A step whose only change to a type is renamed properties keeps the table (ALTER TABLE ... RENAME COLUMN)
/// instead of copying every row; when the closure writes that type's objects, it is copied as before.
@Suite struct RenameInPlaceTests {
    @Test func aDeclaredRenameKeepsTheTableAndItsRows() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let before = try Connection(path: path, readOnly: true, create: false)
            .rows("SELECT rowid, id, fullName, born FROM Author ORDER BY rowid").map { "\($0)" }
        let m = Migrator(family: LibraryFamily.family)
        let report = try m.run(try m.plan(path: path, to: 1), backup: .none)
        let sql = try #require(report.steps.first?.sql)
        #expect(sql.contains("ALTER TABLE \"Author\" RENAME COLUMN \"fullName\" TO \"name\""), "\(sql)")
        #expect(!sql.contains { $0.hasPrefix("INSERT INTO \"_urna_new_Author\"") }, "no row is copied: \(sql)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.rows("SELECT rowid, id, name, born FROM Author ORDER BY rowid").map { "\($0)" } == before)
        #expect(try c.integer("SELECT count(*) FROM sqlite_schema WHERE name LIKE '_urna_new_%'") == 0)
        // The file is what a fresh v1 file with these rows would be.
        let fresh = dir.file("fresh.sqlite")
        _ = try Store(path: fresh, schema: LibraryFamily.v1)
        let shape = try DatabaseShape.read(c)
        let expected = try DatabaseShape.read(try Connection(path: fresh, readOnly: true, create: false))
        #expect(shape.differences(from: expected, allowExtraTables: true) == [])
        #expect(try m.status(path: path).drift == [])
    }

    @Test func aClosureThatWritesTheRenamedTypeStillCopiesIt() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let renameAndUpper = MigrationStep(
            "name renamed and upper-cased", renames: [PropertyRename(type: "Author", from: "fullName", to: "name")]
        ) { m in
            try m.enumerateObjects(ofType: "Author") { old, new in
                new["name"] = .string((old["fullName"].stringValue ?? "").uppercased())
            }
        }
        let family = SchemaFamily(
            name: "library", versions: [SchemaVersion(LibraryFamily.v0), SchemaVersion(LibraryFamily.v1, step: renameAndUpper)])
        let m = Migrator(family: family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(!(report.steps.first?.sql.contains { $0.contains("RENAME COLUMN") } ?? true))
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.rows("SELECT name FROM Author ORDER BY id").map { "\($0[0])" } == ["ANA SOUZA", "JOSÉ LIMA", "MARIA DA CONCEIÇÃO"])
    }

    @Test func theRenameKeepsAUserIndexAndViewWorking() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        try Connection(path: path).execute(
            "CREATE INDEX author_born ON Author(born); CREATE VIEW old_authors AS SELECT id, born FROM Author WHERE born < 1950")
        let m = Migrator(family: LibraryFamily.family)
        _ = try m.run(try m.plan(path: path, to: 1), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'author_born'") == 1)
        #expect(try c.integer("SELECT count(*) FROM old_authors") == 2, "the view reads the kept rows (born 1901, 1902)")
        #expect(try c.rows("PRAGMA integrity_check").map { "\($0[0])" } == ["ok"])
    }
}
