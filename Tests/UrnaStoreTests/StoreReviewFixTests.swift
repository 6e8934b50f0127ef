import Foundation
import Testing
import UrnaStore

/// Defects a store review found: each test was seen failing before its fix.
@Suite(
    "Store review: family views SQLite stores differently, triggers under a view's name, raw rollbacks, REALs in integers"
)
struct StoreReviewFixTests {
    final class Counter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var n = 0
        @Persisted var small: Int8 = 0
        @Persisted var medium: Int32 = 0
    }

    static func viewSchema(_ sql: String) throws -> Schema {
        let base = try TrialSix.schema()
        return try Schema(
            family: base.family, version: 1, types: base.types,
            views: [SchemaView("notes_v", "the notes", columns: [.init("ID", "the note's id")], sql: sql)])
    }

    @Test(
        "A family view whose code SQL ends in ';' (or ';' and a newline, or '; -- comment') opens again: SQLite stores the view without them, and every later open refused the file"
    )
    func viewWithFinalSemicolonReopens() throws {
        for sql in [
            #"SELECT "id" AS ID FROM "Note";"#, "SELECT \"id\" AS ID FROM \"Note\";\n",
            "SELECT \"id\" AS ID FROM \"Note\"; -- the ids", "SELECT \"id\" AS ID\nFROM \"Note\" -- the ids\n;  ",
        ] {
            let (dir, path) = try TrialSix.temporaryPath()
            defer { try? FileManager.default.removeItem(at: dir) }
            let schema = try Self.viewSchema(sql)
            do {
                let store = try Store(path: path, schema: schema)
                try store.write { try store.create(TrialSix.Note.self, value: [7, "a"]) }
            }
            let again = try Store(path: path, schema: schema)
            #expect(try Store.replacedViews(of: schema, in: again.connection).isEmpty, "\(sql)")
            #expect(try again.connection.integer("SELECT ID FROM notes_v") == 7)
        }
    }

    @Test("A family view really replaced in the file is still refused, whatever the code's SQL ends with")
    func replacedViewStillRefused() throws {
        for sql in [#"SELECT "id" AS ID FROM "Note";"#, #"SELECT "id" AS ID FROM "Note""#] {
            let (dir, path) = try TrialSix.temporaryPath()
            defer { try? FileManager.default.removeItem(at: dir) }
            let schema = try Self.viewSchema(sql)
            _ = try Store(path: path, schema: schema)
            let c = try Connection(path: path)
            try c.execute("DROP VIEW notes_v; CREATE VIEW notes_v AS SELECT 99 AS ID;")
            #expect(try Store.replacedViews(of: schema, in: c) == ["notes_v"])
            #expect(throws: StoreError.self) { _ = try Store(path: path, schema: schema) }
        }
    }

    @Test(
        "A trigger named like a family view does not make the file refused (the advice 'DROP VIEW' deleted the real view); a table under that name still does"
    )
    func triggerUnderViewName() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let schema = try Self.viewSchema(#"SELECT "id" AS ID FROM "Note""#)
        _ = try Store(path: path, schema: schema)
        let c = try Connection(path: path)
        try c.execute("CREATE TRIGGER NOTES_V AFTER INSERT ON Note BEGIN SELECT 1; END")
        #expect(try Store.replacedViews(of: schema, in: c).isEmpty)
        let store = try Store(path: path, schema: schema)
        try store.write { try store.create(TrialSix.Note.self, value: [3, "x"]) }
        #expect(try store.connection.integer("SELECT ID FROM notes_v") == 3)
        try c.execute("DROP VIEW notes_v; CREATE TABLE notes_v (ID INTEGER)")
        #expect(try Store.replacedViews(of: schema, in: c) == ["notes_v"])
    }

    @Test(
        "With raw transactions allowed, a value read inside BEGIN ... ROLLBACK is not kept after the rollback (the cached object answered the rolled-back text, results the rolled-back count)"
    )
    func rawRollbackInvalidatesCaches() throws {
        let (dir, path) = try TrialSix.temporaryPath()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: path, schema: try TrialSix.schema())
        try store.write { try store.create(TrialSix.Note.self, value: [1, "before"]) }
        store.connection.allowRawTransactionsFromOneThread()
        let note = try #require(try store.object(ofType: TrialSix.Note.self, forPrimaryKey: 1))
        let results = try store.objects(TrialSix.Note.self).filter("text == %@", "phantom")
        #expect(note.text == "before")
        #expect(try results.count == 0)
        try store.connection.execute("BEGIN")
        try store.connection.run("UPDATE Note SET text = 'phantom' WHERE id = 1")
        #expect(note.text == "phantom")
        #expect(try results.count == 1)
        let heard = DispatchSemaphore(value: 0)
        let token = store.observe { change in
            if change.possiblyChanged.contains("Note") { heard.signal() }
        }
        try store.connection.execute("ROLLBACK")
        #expect(note.text == "before")
        #expect(try results.count == 0)
        #expect(heard.wait(timeout: .now() + 5) == .success)
        token.invalidate()
        #expect(try TrialSix.committedIDs(path) == [1])
    }

    @Test(
        "A REAL stored in an integer column reads through a typed Int property as SQLite's CAST(x AS INTEGER) (truncated toward zero, saturated), not 0; narrower integers clamp"
    )
    func realInIntegerColumnTyped() throws {
        let store = try Store.inMemory(
            schema: try Schema(family: "realints", version: 1, models: [Counter.self]))
        let values: [Double] = [1.5, -2.75, 1e300, -1e300, 9.223372036854775807e18, 300.9, -40000.5]
        try store.write {
            for id in values.indices { try store.create(Counter.self, value: [id, 7, 1, 1]) }
        }
        for (id, v) in values.enumerated() {
            try store.connection.run(
                "UPDATE Counter SET n = ?1, small = ?1, medium = ?1 WHERE id = ?2", [.real(v), .integer(Int64(id))])
        }
        let read = try store.objects(Counter.self).sorted(byKeyPath: "id").map { ($0.n, $0.small, $0.medium) }
        let sqlite = try values.map { try store.connection.integer("SELECT CAST(?1 AS INTEGER)", [.real($0)]) }
        #expect(read.map { Int64($0.0) } == sqlite)
        #expect(read.map(\.0) == [1, -2, Int.max, Int.min, Int.max, 300, -40000])
        #expect(read.map(\.1) == [1, -2, Int8.max, Int8.min, Int8.max, Int8.max, Int8.min])
        #expect(read.map(\.2) == [1, -2, Int32.max, Int32.min, Int32.max, 300, -40000])
    }
}
