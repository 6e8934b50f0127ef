import Foundation
import LibraryFamily
import Testing
import UrnaStore

@testable import UrnaMigrator

/// The run's last check compares indexes with their tables for the tables the run wrote: the authorizer must
/// see every kind of write (rows, DDL, triggers, a step's own SQL) and nothing that only reads.
@Suite struct WrittenTablesTests {
    @Test func everyKindOfWriteIsSeenAndReadsAreNot() throws {
        let dir = try Fixture.directory()
        let c = try Connection(path: dir.file("w.sqlite"))
        try c.execute(
            """
            CREATE TABLE a(x); CREATE TABLE b(x); CREATE TABLE c(x); CREATE TABLE d(x); CREATE TABLE e(x);
            CREATE TABLE f(x); CREATE TABLE log(x); CREATE TABLE read_only(x); CREATE TABLE _urna_new_g(x);
            CREATE TRIGGER f_logs AFTER INSERT ON f BEGIN INSERT INTO log VALUES (new.x); END;
            """)
        let written = WrittenTables()
        written.install(on: c)
        defer { WrittenTables.uninstall(from: c) }
        try c.execute("INSERT INTO a VALUES (1)")
        try c.execute("UPDATE b SET x = 2")
        try c.execute("DELETE FROM c")
        try c.execute("CREATE INDEX d_x ON d(x)")
        try c.execute("ALTER TABLE e ADD COLUMN y")
        try c.execute("INSERT INTO f VALUES (3)")
        try c.execute("INSERT INTO _urna_new_g VALUES (4)")
        try c.execute("ALTER TABLE _urna_new_g RENAME TO g")
        _ = try c.rows("SELECT * FROM read_only JOIN a")
        #expect(try written.existingTables(in: c) == ["a", "b", "c", "d", "e", "f", "g", "log"])
    }

    /// The example's cents closure stops the run, naming the book, for a price 64-bit cents cannot hold (it
    /// trapped on 1e17: a legal Double), and the file is left as it was.
    @Test func aPriceTooBigForCentsStopsTheLibraryChainWithItsBookNamed() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library-big-price.sqlite")
        try LibraryFamily.fillV0(at: path)
        do {
            let c = try Connection(path: path, create: false)
            try c.execute("UPDATE Book SET price = 1e17 WHERE id = (SELECT min(id) FROM Book)")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let m = Migrator(family: LibraryFamily.family)
        do {
            _ = try m.run(try m.plan(path: path), backup: .none)
            Issue.record("the run succeeded with a price of 1e17")
        } catch let e as MigrationError {
            #expect("\(e)".contains("too big for exact cents"), "\(e)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == before.count)
        let c = try Connection(path: path, create: false)
        #expect(try c.integer("SELECT version FROM _urna_schema") == 0)
    }

    @Test func theLibraryChainChecksTheTablesItRebuiltAndPasses() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let m = Migrator(family: LibraryFamily.family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        let check = try #require(report.checks.first { $0.name == "integrity_check" })
        #expect(check.passed)
        #expect(
            check.detail == "indexes compared with the tables written: Author, Biography, Book",
            "Tag, Shelf and the list tables were not written: \(check.detail)")
    }
}
