import Foundation
import LibraryFamily
import Testing
import UrnaMigrator
import UrnaStore

/// A run creates the secondary indexes of the tables its steps rebuild once, in its last step (a later step that
/// rebuilds the table again would throw the earlier ones away), and at once when a closure needs one for a lookup.
@Suite struct DeferredIndexTests {
    static func indexes(_ path: String) throws -> [String] {
        let c = try Connection(path: path, readOnly: true, create: false)
        return try c.rows(
            "SELECT name || ' ' || sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
        ).map { "\($0[0])" }
    }

    @Test func aChainEndsWithTheIndexesOfAFreshFileAndBuildsEachOnce() throws {
        let dir = try Fixture.directory()
        let path = dir.file("library.sqlite")
        try LibraryFamily.fillV0(at: path)
        let m = Migrator(family: LibraryFamily.family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        let fresh = dir.file("fresh.sqlite")
        _ = try Store(path: fresh, schema: LibraryFamily.v4)
        #expect(try Self.indexes(path) == (try Self.indexes(fresh)))
        let builds = report.steps.flatMap(\.sql).filter { $0.hasPrefix("CREATE INDEX \"Book_author_idx\"") }
        #expect(builds.count == 1, "Book is rebuilt in v2 and v3; its index is built once: \(builds)")
        #expect(report.steps.last?.sql.contains { $0.hasPrefix("CREATE INDEX \"Book_author_idx\"") } == true)
    }

    static func schema(_ version: Int, year: Bool, count: Bool) -> Schema {
        var author: [Property] = [
            Property("id", .int64, primaryKey: true), Property("books", .linkingObjects(type: "Book", property: "author")),
        ]
        if count { author.append(Property("bookCount", .int64, default: 0)) }
        var book: [Property] = [Property("id", .int64, primaryKey: true), Property("author", .link("Author"))]
        if year { book.append(Property("year", .int64, default: 0)) }
        return try! Schema(
            family: "inverse", version: version, types: [ObjectSchema("Author", author), ObjectSchema("Book", book)])
    }

    @Test func aClosureAskingForAnInverseGetsTheIndexAtOnceAndTheRightAnswer() throws {
        let dir = try Fixture.directory()
        let path = dir.file("inverse.sqlite")
        let store = try Store(path: path, schema: Self.schema(0, year: false, count: false))
        try store.write {
            let a = try store.create("Author", value: ["id": 1])
            let b = try store.create("Author", value: ["id": 2])
            for (id, author) in [(10, a), (11, a), (12, a), (20, b)] {
                try store.create("Book", value: ["id": id, "author": author])
            }
        }
        let family = SchemaFamily(
            name: "inverse",
            versions: [
                SchemaVersion(Self.schema(0, year: false, count: false)),
                SchemaVersion(
                    Self.schema(1, year: true, count: false),
                    step: MigrationStep("a year on every book") { m in
                        try m.enumerateObjects(ofType: "Book") { old, new in new["year"] = .int(2000) }
                    }),
                SchemaVersion(
                    Self.schema(2, year: true, count: true),
                    step: MigrationStep("authors count their books") { m in
                        try m.enumerateObjects(ofType: "Author") { old, new in
                            guard case .list(let books) = old["books"] else { return }
                            new["bookCount"] = .int(Int64(books.count))
                        }
                    }),
            ])
        let m = Migrator(family: family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
        let second = try #require(report.steps.last)
        let closureIndex = second.sql.firstIndex { $0.hasPrefix("CREATE INDEX \"Book_author_idx\"") }
        #expect(closureIndex != nil, "the v1 → v2 closure's lookup created the index v0 → v1 left: \(second.sql)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.rows("SELECT id, bookCount FROM Author ORDER BY id").map { "\($0[0]):\($0[1])" } == ["1:3", "2:1"])
        let fresh = dir.file("fresh.sqlite")
        _ = try Store(path: fresh, schema: Self.schema(2, year: true, count: true))
        #expect(try Self.indexes(path) == (try Self.indexes(fresh)))
    }
}
