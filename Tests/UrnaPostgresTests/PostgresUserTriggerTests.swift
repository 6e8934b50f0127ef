import Foundation
import PostgresTestSupport
import Testing
import UrnaStore

@testable import UrnaPostgres

/// Ordinary triggers a database's owner made on Urna's tables, and keys into them from tables of their own:
/// refused by name before a refill unless allowed (`--allow-triggers`, as for SQLite files), set aside and made
/// again when the tables are created anew, never dropped silently.
@Suite("PostgreSQL: the server's own triggers on Urna's tables, and keys into them", .serialized)
struct PostgresUserTriggerTests {
    /// An audit trigger, a trigger that changes the rows it is given, and a constraint trigger, on the kinds tables.
    static let triggers = """
        CREATE TABLE audit (tbl text, op text);
        CREATE FUNCTION note_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO audit VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END$$;
        CREATE FUNCTION shout() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.line := upper(NEW.line); RETURN NEW; END$$;
        CREATE TRIGGER audit_tag AFTER INSERT OR UPDATE OR DELETE ON "Tag" FOR EACH ROW EXECUTE FUNCTION note_row();
        CREATE TRIGGER shout_log BEFORE INSERT ON "Log" FOR EACH ROW EXECUTE FUNCTION shout();
        CREATE CONSTRAINT TRIGGER checked_thing AFTER INSERT ON "Thing" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION note_row();
        """

    static func count(_ sql: String, _ url: String, _ pg: PostgresTestCluster) throws -> String {
        try pg.psql(sql, url: url).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("A refill is refused before any change, naming every trigger that would run and how to let them run")
    func refillRefusedByName() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(Self.triggers, url: url)
        let before = try pg.psql("SELECT xmin, * FROM \"Log\" ORDER BY _id", url: url)
        #expect {
            try kinds.push(to: url, replacing: PostgresTransferTests.schema)
        } throws: { error in
            let text = "\(error)"
            return text.contains("Log has a trigger of its own on the server (shout_log)")
                && text.contains("Tag has a trigger of its own on the server (audit_tag)")
                && text.contains("Thing has a trigger of its own on the server (checked_thing)")
                && text.contains("nothing was changed") && text.contains("pass --allow-triggers")
                && text.contains("for every row")
        }
        #expect(try pg.psql("SELECT xmin, * FROM \"Log\" ORDER BY _id", url: url) == before)
        #expect(try Self.count("SELECT count(*) FROM audit", url, pg) == "0")
        // A working copy says so before any work (the import that would follow is not run in vain).
        let copy = try PostgresWorkingCopy(url: url, writing: true)
        #expect(throws: PostgresTransferError.self) { try copy.refuseBeforeWork(refill: true) }
        try copy.rollback()
        // A migration creates the tables anew: it sets them aside instead, so it is not refused.
        let migrating = try PostgresWorkingCopy(url: url, writing: true)
        try migrating.refuseBeforeWork(refill: false)
        try migrating.rollback()
    }

    @Test("Allowed, the triggers run on the refill (every row put back) and the write says which ran")
    func refillAllowed() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_ok")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(Self.triggers, url: url)
        var ran: [String] = []
        try kinds.push(to: url, replacing: PostgresTransferTests.schema, allowTriggers: true) { r, remade in
            ran = r.map(\.qualifiedName)
            #expect(remade.isEmpty)
        }
        #expect(ran == ["Log.shout_log", "Tag.audit_tag", "Thing.checked_thing"])
        // 3 tags and 2 things put back, each a row the triggers saw; the rows they changed are stored changed.
        #expect(
            try Self.count("SELECT tbl || ':' || count(*) FROM audit GROUP BY tbl ORDER BY tbl", url, pg)
                == "Tag:3\nThing:2")
        #expect(
            try Self.count("SELECT string_agg(line, ',' ORDER BY _id) FROM \"Log\"", url, pg)
                == "LINE 0,LINE 1,LINE 2,LINE 3,LINE 4")
    }

    @Test("An allowed trigger that breaks links stops the write at its key check: nothing is committed")
    func allowedTriggerBreakingLinks() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_links")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(
            """
            CREATE FUNCTION drop_tags() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN DELETE FROM "Tag"; RETURN NULL; END$$;
            CREATE TRIGGER wipe AFTER INSERT ON "Log" FOR EACH STATEMENT EXECUTE FUNCTION drop_tags();
            """, url: url)
        #expect(throws: (any Error).self) {
            try kinds.push(to: url, replacing: PostgresTransferTests.schema, allowTriggers: true)
        }
        #expect(try Self.count("SELECT count(*) FROM \"Tag\"", url, pg) == "3")
        #expect(try Self.count("SELECT count(*) FROM \"Thing_tags\"", url, pg) == "2")
    }

    @Test("Disabled triggers, and ones for replica sessions, do not fire on a refill and do not stop it")
    func quietTriggersPass() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_quiet")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(
            Self.triggers
                + """
                ALTER TABLE "Tag" DISABLE TRIGGER audit_tag;
                ALTER TABLE "Log" ENABLE REPLICA TRIGGER shout_log;
                DROP TRIGGER checked_thing ON "Thing";
                """, url: url)
        try kinds.push(to: url, replacing: PostgresTransferTests.schema)
        #expect(try Self.count("SELECT count(*) FROM audit", url, pg) == "0")
        #expect(try Self.count("SELECT count(*) FROM \"Log\" WHERE line = 'line 0'", url, pg) == "1")
    }

    @Test("A trigger on urna's own tables is refused even when triggers are allowed")
    func metadataTriggerRefused() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_meta")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(
            Self.triggers
                + "CREATE TRIGGER spy AFTER INSERT ON _urna_history FOR EACH ROW EXECUTE FUNCTION note_row();",
            url: url)
        for recreate in [false, true] {
            #expect {
                try kinds.push(
                    to: url, replacing: PostgresTransferTests.schema, recreate: recreate, allowTriggers: true)
            } throws: { error in
                "\(error)".contains("_urna_history has a trigger of its own on the server (spy)")
                    && "\(error)".contains("even with --allow-triggers")
            }
        }
        #expect(try Self.count("SELECT count(*) FROM audit", url, pg) == "0")
    }

    @Test("Tables created anew: the triggers are set aside, made again as they were (enabled state too), never run")
    func recreatedTablesKeepTriggers() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_remade")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(Self.triggers + "ALTER TABLE \"Tag\" ENABLE ALWAYS TRIGGER audit_tag;", url: url)
        let definitions =
            "SELECT c.relname || ' ' || t.tgname || ' ' || t.tgenabled::text || ' ' || pg_get_triggerdef(t.oid) "
            + "FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal ORDER BY 1"
        let before = try pg.psql(definitions, url: url)
        var remadeNames: [String] = []
        try kinds.push(to: url, replacing: PostgresTransferTests.schema, recreate: true) { ran, remade in
            #expect(ran.isEmpty)
            remadeNames = remade.map(\.qualifiedName)
        }
        #expect(remadeNames == ["Log.shout_log", "Tag.audit_tag", "Thing.checked_thing"])
        #expect(try pg.psql(definitions, url: url) == before)
        #expect(try Self.count("SELECT count(*) FROM audit", url, pg) == "0")
        #expect(try Self.count("SELECT count(*) FROM \"Log\" WHERE line = 'line 0'", url, pg) == "1")
    }

    @Test("A trigger that no longer fits the new tables stops the write, naming it; nothing changes")
    func triggerThatCannotBeRemade() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_gone")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(Self.triggers, url: url)
        // A later version without Log: the trigger on it has no table to go back to.
        let smaller = try Schema(
            family: "kinds", version: 4, types: [ObjectSchema("Tag", [Property("name", .string, primaryKey: true)])])
        let next = kinds.file("v4.sqlite")
        let store = try Store(path: next, schema: smaller)
        try store.write { try store.create("Tag", value: ["name": "z"]) }
        #expect {
            try KindsFile.push(next, to: url, replacing: PostgresTransferTests.schema)
        } throws: { error in
            "\(error)".contains("the trigger shout_log on Log cannot be made again")
                && "\(error)".contains("nothing was changed") && "\(error)".contains("CREATE TRIGGER shout_log")
        }
        #expect(try Self.count("SELECT count(*) FROM \"Log\"", url, pg) == "5")
        #expect(try Self.count("SELECT count(*) FROM pg_trigger WHERE tgname = 'shout_log'", url, pg) == "1")
    }

    @Test("A table of the owner's with a key into Urna's stops a write before it starts; a trigger there is harmless")
    func keysAndTriggersOnOwnTables() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "utrig_fk")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        // A trigger on a table of the owner's that reads Urna's: urna never writes there, so it never runs.
        _ = try pg.psql(
            Self.triggers.components(separatedBy: "CREATE TRIGGER")[0]
                + """
                CREATE TABLE notes (tag text, body text);
                CREATE TRIGGER note_tags AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION note_row();
                INSERT INTO notes VALUES ('a', 'first');
                """, url: url)
        try kinds.push(to: url, replacing: PostgresTransferTests.schema)
        try kinds.push(to: url, replacing: PostgresTransferTests.schema, recreate: true)
        #expect(try Self.count("SELECT tbl || ':' || count(*) FROM audit GROUP BY tbl", url, pg) == "notes:1")
        #expect(try Self.count("SELECT count(*) FROM notes", url, pg) == "1")
        // A key into Urna's table: both the refill and the re-creation are refused, naming it and the fix.
        _ = try pg.psql(
            "ALTER TABLE notes ADD CONSTRAINT notes_tag FOREIGN KEY (tag) REFERENCES \"Tag\"(name)", url: url)
        for recreate in [false, true] {
            #expect {
                try kinds.push(to: url, replacing: PostgresTransferTests.schema, recreate: recreate)
            } throws: { error in
                "\(error)".contains(
                    "the table \"notes\", which is not this program's, has a foreign key notes_tag into Tag")
                    && "\(error)".contains("ALTER TABLE \"notes\" DROP CONSTRAINT \"notes_tag\"")
                    && "\(error)".contains("nothing was changed")
            }
        }
        let copy = try PostgresWorkingCopy(url: url, writing: true)
        #expect(throws: PostgresTransferError.self) { try copy.refuseBeforeWork(refill: false) }
        try copy.rollback()
        #expect(try Self.count("SELECT count(*) FROM notes", url, pg) == "1")
        #expect(try Self.count("SELECT count(*) FROM \"Tag\"", url, pg) == "3")
    }
}

/// transaction_timeout exists from PostgreSQL 17 on: pinned to 0 for urna's own work there, never sent to an
/// older server (which refuses a setting it does not know).
@Suite("PostgreSQL: transaction_timeout by server version", .serialized)
struct PostgresTransactionTimeoutTests {
    @Test("The pin and its reset are sent to PostgreSQL 17 and later only")
    func byVersion() {
        #expect(PostgresConnection.transactionTimeout(serverVersion: 150_018, reset: false) == nil)
        #expect(PostgresConnection.transactionTimeout(serverVersion: 169_999, reset: true) == nil)
        #expect(
            PostgresConnection.transactionTimeout(serverVersion: 170_000, reset: false)
                == "SET transaction_timeout = 0")
        #expect(
            PostgresConnection.transactionTimeout(serverVersion: 180_001, reset: true) == "RESET transaction_timeout")
    }

    @Test(
        "On the test server: before 17 the setting does not exist and urna never sends it; from 17 a database's limit does not cut a write off"
    )
    func onTheTestServer() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "txn_timeout")
        let conn = try PostgresConnection(url)
        if conn.serverVersion < 170_000 {
            // Had the connection sent SET or RESET transaction_timeout, it (or restoreUserSettings) would throw.
            #expect {
                try conn.scalar("SHOW transaction_timeout")
            } throws: { error in
                (error as? PostgresError)?.sqlState == "42704"
            }
            let fresh = try PostgresConnection(url)
            try fresh.execute("BEGIN")
            try fresh.restoreUserSettings()
            try fresh.execute("ROLLBACK")
        } else {
            let name = PostgresUnusualServerTests.databaseName(url)
            _ = try pg.psql("ALTER DATABASE \"\(name)\" SET transaction_timeout = '20ms'", url: url)
            let kinds = try KindsFile(logs: 60_000)
            try kinds.push(to: url, replacing: nil)
            let pinned = try PostgresConnection(url)
            #expect(try pinned.scalar("SHOW transaction_timeout") == "0")
            try pinned.restoreUserSettings()
            #expect(try pinned.scalar("SHOW transaction_timeout") == "20ms")
        }
    }
}
