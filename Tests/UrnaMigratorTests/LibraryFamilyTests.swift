import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// An app's own family, v0 → v4: a rename, a change of key type with the links following, a lossy change done
/// by a closure, a type split; the app's own tables (FTS5 with its shadow tables, a plain cache) survive.
@Suite struct LibraryFamilyTests {
    @Test func v0ToV4RewritesLinksSplitsAuthorsAndKeepsUserTables() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        try Connection(path: path).execute(
            """
            CREATE VIRTUAL TABLE book_search USING fts5(title);
            INSERT INTO book_search SELECT title FROM Book;
            CREATE TABLE app_cache (k TEXT PRIMARY KEY, v TEXT);
            INSERT INTO app_cache VALUES ('last-open', 'Book 1-0');
            """)
        let userTablesBefore = try Fixture.dump(path).filter {
            $0.key.hasPrefix("book_search") || $0.key == "app_cache"
        }
        #expect(
            userTablesBefore.count >= 5, "the FTS5 table, its shadow tables and the cache: \(userTablesBefore.keys)")

        let m = Migrator(family: LibraryFamily.family)
        let preview = try m.dryRun(path: path)
        #expect(preview.outcome == .previewed)
        #expect(try Store.openExisting(path: path).schema.version == 0, "the dry run leaves the file at v0")
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.steps.map(\.toVersion) == [1, 2, 3, 4])

        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, name FROM Author ORDER BY id").map { "\($0[0])=\($0[1])" } == [
                "A1=Ana Souza", "A2=José Lima", "A3=Maria da Conceição",
            ])
        #expect(
            try c.rows("SELECT id, author, price FROM Book ORDER BY id").map { "\($0[0]):\($0[1]):\($0[2])" } == [
                "10:A1:110", "11:A1:120", "20:A2:210", "21:A2:220", "30:A3:310", "31:A3:320",
            ], "links follow the new keys; prices are cents rounded by the closure")
        #expect(
            try c.rows("SELECT id, born FROM Biography ORDER BY id").map { "\($0[0]):\($0[1])" } == [
                "A1:1901", "A2:1902",
            ])
        #expect(try c.integer("SELECT count(*) FROM Book_tags") == 6)
        #expect(
            try c.rows("SELECT target FROM Shelf_books ORDER BY position").map { "\($0[0])" } == [
                "10", "11", "20", "21",
            ])
        #expect(try c.integer("SELECT count(*) FROM book_search WHERE book_search MATCH 'book'") == 6)
        let userTablesAfter = try Fixture.dump(path).filter { $0.key.hasPrefix("book_search") || $0.key == "app_cache" }
        #expect(userTablesAfter == userTablesBefore)
        #expect(try m.status(path: path).drift == [], "the app's own tables are not drift")
    }
}
