import Foundation
import Testing
import UrnaStore

@testable import UrnaMigrator

/// `ForeignKeyProbe` answers what `PRAGMA foreign_key_check` answers (is any link dangling?), on planted faults of
/// every kind it takes itself (indexed and unindexed link columns, text and integer keys, a rowid parent) and of
/// kinds it leaves to the pragma (a COLLATE, mixed affinities, a two-column key, a parent without a unique key).
@Suite struct ForeignKeyProbeTests {
    static let tables = [
        #"CREATE TABLE "Author" ("id" TEXT NOT NULL PRIMARY KEY, "name" TEXT)"#,
        #"CREATE TABLE "Book" ("id" INTEGER PRIMARY KEY, "author" TEXT REFERENCES "Author"("id") DEFERRABLE INITIALLY DEFERRED)"#,
        #"CREATE INDEX "Book_author_idx" ON "Book"("author")"#,
        #"CREATE TABLE "Review" ("id" INTEGER PRIMARY KEY, "book" INTEGER REFERENCES "Book"("id") DEFERRABLE INITIALLY DEFERRED)"#,
        #"CREATE INDEX "Review_book_idx" ON "Review"("book")"#,
        #"CREATE TABLE "Book_tags" ("owner" INTEGER NOT NULL REFERENCES "Book"("id") DEFERRABLE INITIALLY DEFERRED, "position" INTEGER NOT NULL, "target" TEXT NOT NULL REFERENCES "Tag"("name") DEFERRABLE INITIALLY DEFERRED, PRIMARY KEY ("owner", "position")) WITHOUT ROWID"#,
        #"CREATE INDEX "Book_tags_target_idx" ON "Book_tags"("target")"#,
        #"CREATE TABLE "Tag" ("name" TEXT NOT NULL PRIMARY KEY)"#,
        // No index on the link: checked by the pragma.
        #"CREATE TABLE "Quote" ("id" INTEGER PRIMARY KEY, "book" INTEGER REFERENCES "Book"("id"))"#,
    ]

    static func database(extra: [String] = []) throws -> Connection {
        let c = try Connection(path: ":memory:", create: true)
        try c.execute("PRAGMA foreign_keys = OFF")
        for sql in tables + extra { try c.execute(sql) }
        for a in 0..<20 { try c.run(#"INSERT INTO "Author" VALUES (?, ?)"#, [.text("A\(a)"), .text("name \(a)")]) }
        for t in 0..<5 { try c.run(#"INSERT INTO "Tag" VALUES (?)"#, [.text("tag\(t)")]) }
        for b in 0..<200 {
            try c.run(
                #"INSERT INTO "Book" VALUES (?, ?)"#, [.integer(Int64(b)), b % 7 == 0 ? .null : .text("A\(b % 20)")])
            try c.run(#"INSERT INTO "Book_tags" VALUES (?, 0, ?)"#, [.integer(Int64(b)), .text("tag\(b % 5)")])
            try c.run(#"INSERT INTO "Review" VALUES (?, ?)"#, [.integer(Int64(b)), .integer(Int64(199 - b))])
            try c.run(#"INSERT INTO "Quote" VALUES (?, ?)"#, [.integer(Int64(b)), .integer(Int64(b / 2))])
        }
        return c
    }

    static func pragmaFindsOne(_ c: Connection) throws -> Bool { !(try c.rows("PRAGMA foreign_key_check")).isEmpty }

    @Test func aCleanFileHasNoDanglingLink() throws {
        let c = try Self.database()
        #expect(try !Self.pragmaFindsOne(c))
        #expect(try !ForeignKeyProbe.anyDangling(in: c))
    }

    @Test func theProbeTakesTheLinksOfTheLibraryShapeItself() throws {
        let c = try Self.database()
        let author = try #require(try ForeignKeyProbe.foreignKeys(of: "Book", in: c).first)
        let sql = try #require(
            try ForeignKeyProbe.probeSQL(
                author, child: "Book", sqlOf: ["Book": Self.tables[1], "Author": Self.tables[0]], in: c))
        #expect(sql.contains("DISTINCT"), "a link column with its own index is read as its distinct values: \(sql)")
        let review = try #require(try ForeignKeyProbe.foreignKeys(of: "Review", in: c).first)
        #expect(
            try ForeignKeyProbe.probeSQL(
                review, child: "Review", sqlOf: ["Review": Self.tables[3], "Book": Self.tables[1]], in: c) != nil)
        let owner = try #require(try ForeignKeyProbe.foreignKeys(of: "Book_tags", in: c).first { $0.from == ["owner"] })
        let listOwner = try ForeignKeyProbe.probeSQL(
            owner, child: "Book_tags", sqlOf: ["Book_tags": Self.tables[5], "Book": Self.tables[1]], in: c)
        #expect(listOwner == nil, "a link column without an index of its own is left to the pragma")
    }

    /// Each planted fault is found by the pragma and by the probe alike (and undoing it makes both clean again).
    @Test(arguments: [
        // Taken by the probe: text keys (Book.author, Book_tags.target), a rowid parent (Review.book). Left to the
        // pragma: a list's owner (Book_tags.owner), an unindexed link (Quote.book).
        #"UPDATE "Book" SET "author" = 'A99' WHERE "id" = 13"#,
        #"UPDATE "Book" SET "author" = 'a1' WHERE "id" = 13"#,
        #"UPDATE "Book" SET "author" = 'A1 ' WHERE "id" = 13"#,
        #"UPDATE "Review" SET "book" = 500 WHERE "id" = 3"#,
        #"UPDATE "Review" SET "book" = 'x' WHERE "id" = 3"#,
        #"UPDATE "Review" SET "book" = 1.5 WHERE "id" = 3"#,
        #"DELETE FROM "Book" WHERE "id" = 196"#,
        #"UPDATE "Quote" SET "book" = 1000 WHERE "id" = 5"#,
        #"UPDATE "Book_tags" SET "owner" = 1000 WHERE "owner" = 5"#,
        #"DELETE FROM "Author" WHERE "id" = 'A5'"#,
        #"DELETE FROM "Tag" WHERE "name" = 'tag4'"#,
        #"UPDATE "Book_tags" SET "target" = 'TAG1' WHERE "owner" = 8"#,
    ])
    func aPlantedDanglingLinkIsFound(_ fault: String) throws {
        let c = try Self.database()
        try c.execute(fault)
        #expect(try Self.pragmaFindsOne(c), "the pragma finds it")
        #expect(try ForeignKeyProbe.anyDangling(in: c), "the probe finds it: \(fault)")
    }

    /// Links the probe leaves to the pragma are still checked, and nothing dangling is reported where none is.
    @Test(arguments: [
        // A COLLATE NOCASE parent: 'a1' finds 'A1' there (no fault); 'zz' does not.
        (
            #"CREATE TABLE "Pen" ("name" TEXT COLLATE NOCASE PRIMARY KEY)"#,
            #"CREATE TABLE "Note" ("pen" TEXT REFERENCES "Pen"("name"))"#, "'a1'", "'zz'"
        ),
        // Mixed affinities: an INTEGER parent, a TEXT link ('1' finds 1).
        (
            #"CREATE TABLE "Pen" ("name" INTEGER PRIMARY KEY)"#,
            #"CREATE TABLE "Note" ("pen" TEXT REFERENCES "Pen"("name"))"#, "'1'", "'77'"
        ),
        // Untyped columns (BLOB affinity).
        (
            #"CREATE TABLE "Pen" ("name" PRIMARY KEY)"#, #"CREATE TABLE "Note" ("pen" REFERENCES "Pen"("name"))"#, "1",
            "2.5"
        ),
    ])
    func linksLeftToThePragmaAreStillChecked(_ cases: (String, String, String, String)) throws {
        let (parent, child, good, bad) = cases
        let c = try Self.database(extra: [parent, child])
        try c.execute(#"INSERT INTO "Pen" VALUES ("# + (parent.contains("INTEGER") ? "1" : "'A1'") + ")")
        if parent.contains(#""name" PRIMARY KEY"#) { try c.execute(#"UPDATE "Pen" SET "name" = 1"#) }
        try c.execute(#"INSERT INTO "Note" VALUES (\#(good))"#)
        #expect(try Self.pragmaFindsOne(c) == ForeignKeyProbe.anyDangling(in: c))
        try c.execute(#"INSERT INTO "Note" VALUES (\#(bad))"#)
        #expect(try Self.pragmaFindsOne(c), "the pragma finds \(bad)")
        #expect(try ForeignKeyProbe.anyDangling(in: c), "and so does the probe")
    }

    @Test func aTwoColumnKeyIsLeftToThePragma() throws {
        let c = try Self.database(extra: [
            #"CREATE TABLE "Slot" ("a" INTEGER, "b" INTEGER, PRIMARY KEY ("a", "b"))"#,
            #"CREATE TABLE "Use" ("a" INTEGER, "b" INTEGER, FOREIGN KEY ("a", "b") REFERENCES "Slot"("a", "b"))"#,
        ])
        try c.execute(#"INSERT INTO "Slot" VALUES (1, 2)"#)
        try c.execute(#"INSERT INTO "Use" VALUES (1, 2)"#)
        #expect(try !ForeignKeyProbe.anyDangling(in: c))
        try c.execute(#"INSERT INTO "Use" VALUES (2, 1)"#)
        #expect(try ForeignKeyProbe.anyDangling(in: c))
    }

    /// A type may be named `SQLiteNote` (only the literal `sqlite_` prefix is SQLite's): an unescaped
    /// `LIKE 'sqlite_%'` (where `_` is any character, and case is ignored) skipped its links.
    @Test func aTableNamedLikeSQLitesOwnIsStillProbed() throws {
        let c = try Self.database(extra: [
            #"CREATE TABLE "SQLiteNote" ("id" INTEGER PRIMARY KEY, "author" TEXT REFERENCES "Author"("id"))"#,
            #"CREATE INDEX "SQLiteNote_author_idx" ON "SQLiteNote"("author")"#,
        ])
        try c.execute(#"INSERT INTO "SQLiteNote" VALUES (1, 'A1')"#)
        #expect(try !ForeignKeyProbe.anyDangling(in: c))
        try c.execute(#"INSERT INTO "SQLiteNote" VALUES (2, 'A99')"#)
        #expect(try Self.pragmaFindsOne(c))
        #expect(try ForeignKeyProbe.anyDangling(in: c), "the probe skipped SQLiteNote")
    }

    /// A parent whose only unique index compares with NOCASE: the pragma refuses the key ("foreign key
    /// mismatch"), so the probe must not answer for it either.
    @Test func aUniqueIndexWithAnotherCollationIsLeftToThePragma() throws {
        let c = try Self.database(extra: [
            #"CREATE TABLE "Pen" ("k" TEXT)"#, #"CREATE UNIQUE INDEX "Pen_k" ON "Pen"("k" COLLATE NOCASE)"#,
            #"CREATE TABLE "Note" ("k" TEXT REFERENCES "Pen"("k"))"#, #"CREATE INDEX "Note_k" ON "Note"("k")"#,
        ])
        try c.execute(#"INSERT INTO "Pen" VALUES ('A')"#)
        try c.execute(#"INSERT INTO "Note" VALUES ('A')"#)
        #expect(throws: SQLiteError.self) { try c.rows("PRAGMA foreign_key_check") }
        #expect(throws: SQLiteError.self) { try ForeignKeyProbe.anyDangling(in: c) }
    }

    @Test func aParentWithoutAUniqueKeyStillStopsTheCheck() throws {
        let c = try Self.database(extra: [
            #"CREATE TABLE "Loose" ("k" TEXT)"#, #"CREATE TABLE "Tie" ("k" TEXT REFERENCES "Loose"("k"))"#,
        ])
        try c.execute(#"INSERT INTO "Tie" VALUES ('x')"#)
        // The pragma refuses such a key ("foreign key mismatch"); so does the check through the probe.
        #expect(throws: SQLiteError.self) { try c.rows("PRAGMA foreign_key_check") }
        #expect(throws: SQLiteError.self) { try ForeignKeyProbe.anyDangling(in: c) }
    }
}
