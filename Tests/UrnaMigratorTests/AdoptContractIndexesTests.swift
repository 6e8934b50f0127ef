import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// A plain file made from a version's storage contract with its indexes, one table differing (its own spelling or
/// a missing DEFAULT): adopting rebuilds that table, and the contract's indexes, on it and on the tables left as
/// they are, must come out once, the file's own index on it made again (a review found `library-app adopt` failing
/// "index Book_tags_target_idx already exists": the contract's index names were compared in another case).
@Suite struct AdoptContractIndexesTests {
    /// How the file's CREATE TABLE differs from the contract's, and an index of the file's own, if any.
    struct Variant: CustomStringConvertible, Sendable {
        let description: String
        let contract: String
        let file: String
        var ownIndex: String? = nil
    }

    static let variants = [
        Variant(description: "Book.title spelled text", contract: #""title" TEXT"#, file: #""title" text"#),
        Variant(description: "Author.born spelled integer", contract: #""born" INTEGER"#, file: #""born" integer"#),
        Variant(
            description: "Book.title without its DEFAULT", contract: #""title" TEXT NOT NULL DEFAULT ''"#,
            file: #""title" TEXT NOT NULL"#),
        Variant(
            description: "Book.title spelled text, with an index of the file's own", contract: #""title" TEXT"#,
            file: #""title" text"#, ownIndex: "CREATE INDEX by_title ON Book(title)"),
    ]

    static let rows = """
        INSERT INTO "Author" VALUES (1, 'Machado', 1839), (2, 'Clarice', NULL);
        INSERT INTO "Tag" VALUES ('novel'), ('short');
        INSERT INTO "Book" VALUES (10, 'Dom Casmurro', 1, 12.5), (11, 'A hora da estrela', 2, 9.0), (12, '', NULL, 0);
        INSERT INTO "Book_tags" VALUES (10, 0, 'novel'), (11, 0, 'novel'), (11, 1, 'short');
        INSERT INTO "Shelf" VALUES ('front');
        INSERT INTO "Shelf_books" VALUES ('front', 0, 10), ('front', 1, 12);
        """

    /// Every table of the contract, every row, as text (the column order is the contract's in both files).
    static func dump(_ path: String) throws -> [String: [[String]]] {
        let c = try Connection(path: path, readOnly: true, create: false)
        var out: [String: [[String]]] = [:]
        for name in ["Author", "Tag", "Book", "Book_tags", "Shelf", "Shelf_books"] {
            let order = name == "Tag" || name == "Shelf" ? "1" : "1, 2"
            out[name] = try c.rows("SELECT * FROM \"\(name)\" ORDER BY \(order)").map { $0.map { "\($0)" } }
        }
        return out
    }

    @Test(arguments: variants)
    func aRebuiltTableKeepsTheContractsIndexesAndTheFilesOwn(_ variant: Variant) throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        let contract = StorageLayout.createSQL(for: LibraryFamily.v1)
        let indexes = contract.filter { $0.hasPrefix("CREATE INDEX") }
        #expect(indexes.contains { $0.contains("Book_tags_target_idx") })
        #expect(indexes.contains { $0.contains("Book_author_idx") })
        var changed = 0
        let statements = contract.map { sql in
            guard sql.hasPrefix("CREATE TABLE"), sql.contains(variant.contract) else { return sql }
            changed += 1
            return sql.replacingOccurrences(of: variant.contract, with: variant.file)
        }
        try #require(changed == 1, "\(contract)")
        let setup = try Connection(path: path)
        for sql in statements + (variant.ownIndex.map { [$0] } ?? []) { try setup.execute(sql) }
        try setup.execute(Self.rows)
        let before = try Self.dump(path)

        let m = Migrator(family: LibraryFamily.family)
        let report = try m.adopt(path: path, version: 1)
        #expect(report.rebuilt.count == 1, "\(report.changes)")
        #expect(try Self.dump(path) == before)
        let c = try Connection(path: path, readOnly: true, create: false)
        let made = try c.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").map {
            ("\($0[0])", "\($0[1])")
        }
        for sql in indexes {
            #expect(made.filter { $0.1 == sql }.count == 1, "\(sql) in \(made)")
        }
        if let own = variant.ownIndex {
            #expect(made.contains { $0 == ("by_title", own) }, "\(made)")
        }
        #expect(try m.status(path: path).drift == [])

        let run = try m.run(try m.plan(path: path), backup: .none)
        #expect(run.toVersion == LibraryFamily.family.latestVersion)
        let after = try Connection(path: path, readOnly: true, create: false)
        #expect(try after.integer("SELECT count(*) FROM Book") == 3)
        #expect(try after.integer("SELECT count(*) FROM Book_tags") == 3)
        #expect(try after.rows("SELECT title FROM Book WHERE id = 10").first?.first == .text("Dom Casmurro"))
    }
}

/// An index of the file's own whose name is a contract index's in another case, with another definition (a UNIQUE
/// over two columns): a review found `adopt` dropping it without a word once the names were compared ignoring case
/// (only the contract's `Book_author_idx(author)` was left, and the report said the index was "missing").
@Suite struct AdoptOwnIndexNamedLikeTheContractsTests {
    @Test func refusedNamingBothDefinitions() throws {
        let dir = try Fixture.directory()
        let path = dir.file("plain.sqlite")
        let own = "CREATE UNIQUE INDEX book_author_idx ON Book(author, title)"
        let statements = StorageLayout.createSQL(for: LibraryFamily.v1).compactMap { sql -> String? in
            if sql.hasPrefix("CREATE INDEX") && sql.contains("Book_author_idx") { return nil }
            guard sql.hasPrefix("CREATE TABLE"), sql.contains(#""title" TEXT"#) else { return sql }
            return sql.replacingOccurrences(of: #""title" TEXT"#, with: #""title" text"#)
        }
        let setup = try Connection(path: path)
        for sql in statements + [own] { try setup.execute(sql) }
        try setup.execute(AdoptContractIndexesTests.rows)
        let before = try AdoptContractIndexesTests.dump(path)

        let m = Migrator(family: LibraryFamily.family)
        #expect {
            _ = try m.adopt(path: path, version: 1)
        } throws: { error in
            "\(error)".contains("book_author_idx") && "\(error)".contains("rename or drop it")
        }
        let c = try Connection(path: path, readOnly: true, create: false)
        let indexes = try c.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Book'")
        #expect(indexes.contains { $0[0] == .text("book_author_idx") && $0[1] == .text(own) }, "\(indexes)")
        #expect(try AdoptContractIndexesTests.dump(path) == before)
    }
}
