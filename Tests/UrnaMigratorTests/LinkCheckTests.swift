import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Links a closure leaves pointing at nothing fail the run, whichever step left them: a run checks links once,
/// after its last step (one `foreign_key_check` instead of one per step), and a step that deletes objects checks
/// the links earlier steps left before clearing the references to the deleted ones.
@Suite struct LinkCheckTests {
    static func schema(_ version: Int, noteOnBook: Bool) -> Schema {
        var book: [Property] = [Property("id", .int64, primaryKey: true), Property("author", .link("Author"))]
        if noteOnBook { book.append(Property("note", .string, optional: true)) }
        return try! Schema(
            family: "shelf", version: version,
            types: [
                ObjectSchema(
                    "Author", [Property("id", .int64, primaryKey: true), Property("name", .string, default: "")]),
                ObjectSchema("Book", book),
            ])
    }

    /// v0 → v1: a closure points book 10 at author 99, who does not exist; v1 → v2 then runs `second`.
    static func family(second: MigrationStep) -> SchemaFamily {
        SchemaFamily(
            name: "shelf",
            versions: [
                SchemaVersion(schema(0, noteOnBook: false)),
                SchemaVersion(
                    schema(1, noteOnBook: true),
                    step: MigrationStep("a note on every book") { m in
                        try m.enumerateObjects(ofType: "Book") { old, new in
                            new["note"] = .string("checked")
                            if old["id"] == .int(10) { new["author"] = .int(99) }
                        }
                    }),
                SchemaVersion(schema(2, noteOnBook: false), step: second),
            ])
    }

    static func file(_ path: String) throws {
        let store = try Store(path: path, schema: schema(0, noteOnBook: false))
        try store.write {
            let authors = try (1...2).map { a in
                try store.create("Author", value: ["id": a, "name": "A\(a)"])
            }
            for (b, a) in [(10, 0), (11, 0), (20, 1)] {
                try store.create("Book", value: ["id": b, "author": authors[a]])
            }
        }
    }

    @Test func aDanglingLinkFromAnEarlierStepFailsTheRunAtItsEnd() throws {
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        try Self.file(path)
        let family = Self.family(second: MigrationStep("notes dropped", allowances: [.discard(type: "Book", property: "note")]))
        let m = Migrator(family: family)
        let report = try m.dryRun(path: path)
        #expect(report.outcome == .failed)
        let failure = try #require(report.failures.first { $0.check == "foreign-key" })
        #expect(failure.message.contains("object 10 points at a Author that does not exist"), "\(failure.message)")
        #expect(failure.message.contains("any of the 2 steps from v0"), "\(failure.message)")
        #expect(throws: MigrationError.self) { try m.run(try m.plan(path: path), backup: .none) }
        #expect(try Store.openExisting(path: path).schema.version == 0, "the failed run left the file at v0")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT author FROM Book WHERE id = 10") == 1)
    }

    @Test func aStepThatDeletesChecksTheLinksEarlierStepsLeftBeforeClearingReferences() throws {
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        try Self.file(path)
        // Deleting author 2 clears the links to it; book 10's link to the missing 99 must not be cleared with them.
        let deleting = MigrationStep("author 2 leaves", allowances: [.discard(type: "Book", property: "note")]) { m in
            try m.enumerateObjects(ofType: "Author") { old, new in
                if old["id"] == .int(2) { try m.delete(new) }
            }
        }
        let report = try Migrator(family: Self.family(second: deleting)).dryRun(path: path)
        #expect(report.outcome == .failed)
        let failure = try #require(report.failures.first { $0.check == "foreign-key" })
        #expect(failure.message.contains("object 10 points at a Author that does not exist"), "\(failure.message)")
        #expect(failure.message.contains("left by an earlier step of this run"), "\(failure.message)")
    }

    @Test func aOneStepRunStillChecksItsLinks() throws {
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        try Self.file(path)
        let family = Self.family(second: MigrationStep("unused"))
        let report = try Migrator(family: family).dryRun(path: path, to: 1)
        #expect(report.outcome == .failed)
        let failure = try #require(report.failures.first { $0.check == "foreign-key" })
        #expect(failure.message.hasSuffix("points at a Author that does not exist"), "\(failure.message)")
    }

    @Test func cleanLinksPassAfterTheLastStep() throws {
        let dir = try Fixture.directory()
        let path = dir.file("shelf.sqlite")
        try Self.file(path)
        let family = SchemaFamily(
            name: "shelf",
            versions: [
                SchemaVersion(Self.schema(0, noteOnBook: false)),
                SchemaVersion(
                    Self.schema(1, noteOnBook: true),
                    step: MigrationStep("a note") { m in
                        try m.enumerateObjects(ofType: "Book") { _, new in new["note"] = .string("ok") }
                    }),
                SchemaVersion(
                    Self.schema(2, noteOnBook: false),
                    step: MigrationStep("author 2 leaves", allowances: [.discard(type: "Book", property: "note")]) { m in
                        try m.enumerateObjects(ofType: "Author") { old, new in
                            if old["id"] == .int(2) { try m.delete(new) }
                        }
                    }),
            ])
        let report = try Migrator(family: family).run(try Migrator(family: family).plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, author FROM Book ORDER BY id").map { "\($0[0]):\($0[1])" } == [
                "10:1", "11:1", "20:NULL",
            ], "the deleted author's book lost its link, the others kept theirs")
    }
}
