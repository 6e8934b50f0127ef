import Foundation
import Testing

/// `urna sql --write` rolls back a statement that changes the family's tables; it let through one that changed
/// what urna records about the file: an edited `_urna_schema` descriptor (every command then refused the file,
/// exit 65), a rewritten history, or `PRAGMA application_id` (urna then took the file for another application's
/// and refused it for good). Each exited 0.
@Suite struct SQLWriteRecordsTests {
    @Test("sql --write that edits _urna_schema, _urna_history, application_id or user_version: exit 65, rolled back")
    func recordsAreProtected() throws {
        let dir = try Hostile.folder()
        let old = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        #expect(try Hostile.urna(["migrate", "--db", old, "--no-backup"], in: dir).code == 0)
        let path = dir.appendingPathComponent(old).path
        let schema = try Hostile.sql(path, "SELECT descriptor FROM _urna_schema")
        let history = try Hostile.sql(path, "SELECT count(*) FROM _urna_history")
        #expect(history != ["0"])
        for (statement, what) in [
            ("UPDATE _urna_schema SET descriptor = '{}'", "the recorded schema (_urna_schema) changed"),
            ("DELETE FROM _urna_history", "the migration history (_urna_history) changed"),
            ("PRAGMA application_id = 1234", "the file's application_id changed"),
            ("PRAGMA user_version = 99", "the file's user_version changed"),
        ] {
            let r = try Hostile.urna(["sql", "--db", old, "--write", statement], in: dir)
            #expect(r.code == 65, "\(statement): \(r.stderr)")
            #expect(r.stderr.contains(what) && r.stderr.contains("it was rolled back"), "\(statement): \(r.stderr)")
            #expect(try Hostile.urna(["status", "--db", old], in: dir).code == 0, "\(statement)")
        }
        #expect(try Hostile.sql(path, "SELECT descriptor FROM _urna_schema") == schema)
        #expect(try Hostile.sql(path, "SELECT count(*) FROM _urna_history") == history)
        #expect(try Hostile.sql(path, "PRAGMA application_id") == ["0"])
        // The importer's own records (made by an import) and an empty history can no longer go unseen.
        let cand = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "cand.txt")
        #expect(try Hostile.urna(["import", "--db", "fresh.sqlite", "--quiet", cand], in: dir).code == 0)
        let fresh = dir.appendingPathComponent("fresh.sqlite").path
        try Hostile.sql(fresh, "CREATE TABLE IF NOT EXISTS _urna_field_generations(x)")
        let tables = try Hostile.sql(fresh, "SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_urna%' ESCAPE '\\'")
        for statement in ["DROP TABLE _urna_field_generations", "DROP TABLE _urna_history"] {
            let r = try Hostile.urna(["sql", "--db", "fresh.sqlite", "--write", statement], in: dir)
            #expect(r.code == 65, "\(statement): \(r.stderr)")
            #expect(r.stderr.contains("urna's own tables (_urna_*"), "\(statement): \(r.stderr)")
        }
        #expect(
            try Hostile.sql(fresh, "SELECT count(*) FROM sqlite_master WHERE name LIKE '\\_urna%' ESCAPE '\\'")
                == tables)
        // A table of one's own is still fine, and is committed.
        let mine = try Hostile.urna(["sql", "--db", old, "--write", "CREATE TABLE notes(x)"], in: dir)
        #expect(mine.code == 0, "\(mine.stderr)")
        #expect(try Hostile.sql(path, "SELECT count(*) FROM sqlite_master WHERE name = 'notes'") == ["1"])
    }

    @Test("sql --write that sets off a trigger the file holds: exit 65, rolled back; --allow-triggers lets it run")
    func plantedTriggersDoNotRunUnasked() throws {
        let dir = try Hostile.folder()
        let old = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        #expect(try Hostile.urna(["migrate", "--db", old, "--no-backup"], in: dir).code == 0)
        let path = dir.appendingPathComponent(old).path
        let goods = try Hostile.sql(path, "SELECT count(*) FROM Good")
        #expect(goods != ["0"])
        try Hostile.sql(
            path,
            "CREATE TABLE mine(x); CREATE TRIGGER wipe AFTER UPDATE ON Party BEGIN DELETE FROM Candidate_goods; "
                + "DELETE FROM Good; END; CREATE TRIGGER wipe2 AFTER INSERT ON mine BEGIN DELETE FROM Good; END")
        // Before: exit 0, "1 row changed", and every good was gone.
        for (statement, trigger) in [
            ("UPDATE Party SET name = name", "wipe"), ("INSERT INTO mine VALUES (1)", "wipe2"),
        ] {
            let r = try Hostile.urna(["sql", "--db", old, "--write", statement], in: dir)
            #expect(r.code == 65, "\(statement): \(r.stderr)")
            #expect(r.stderr.contains("set off a trigger the file holds (\"\(trigger)\")"), "\(r.stderr)")
            #expect(r.stderr.contains("--allow-triggers"), "\(r.stderr)")
            #expect(try Hostile.sql(path, "SELECT count(*) FROM Good") == goods)
        }
        #expect(try Hostile.sql(path, "SELECT count(*) FROM mine") == ["0"])
        // A trigger's name is quoted as SQL quotes names: the advice is never SQL of the file's making.
        try Hostile.sql(
            path,
            #"CREATE TABLE mine2(x); CREATE TRIGGER "t""; DELETE FROM Good; --" AFTER INSERT ON mine2 BEGIN SELECT 1; END"#
        )
        let quoted = try Hostile.urna(["sql", "--db", old, "--write", "INSERT INTO mine2 VALUES (1)"], in: dir)
        #expect(quoted.code == 65, "\(quoted.stderr)")
        #expect(quoted.stderr.contains(#"(DROP TRIGGER "t""; DELETE FROM Good; --")"#), "\(quoted.stderr)")
        // A statement no trigger answers is committed as before.
        let plain = try Hostile.urna(["sql", "--db", old, "--write", "UPDATE Good SET value = value"], in: dir)
        #expect(plain.code == 0, "\(plain.stderr)")
        // Asked by name, the trigger runs, and the summary says it did.
        let allowed = try Hostile.urna(
            ["sql", "--db", old, "--write", "--allow-triggers", "INSERT INTO mine VALUES (1)"], in: dir)
        #expect(allowed.code == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("1 row changed (and what the triggers wipe2 changed)"), "\(allowed.stderr)")
        #expect(try Hostile.sql(path, "SELECT count(*) FROM Good") == ["0"])
    }
}
