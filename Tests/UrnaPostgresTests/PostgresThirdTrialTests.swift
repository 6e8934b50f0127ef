import Foundation
import PostgresTestSupport
import Testing
import UrnaStore

@testable import UrnaPostgres

/// The third trial's servers: event triggers that would run during urna's DDL, a statement timeout or
/// synchronous_commit = off set on the database or role, and text PostgreSQL cannot hold.
@Suite(
    "PostgreSQL, a third trial: event triggers, timeouts and synchronous_commit set by the server's owner, NUL in text",
    .serialized)
struct PostgresThirdTrialTests {
    static let noteDDL = """
        CREATE TABLE ddl_seen (tag text);
        CREATE FUNCTION note_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO ddl_seen VALUES (tg_tag); END$$;
        """

    @Test("An enabled event trigger that fires on urna's DDL stops a writer before any work, naming it")
    func eventTriggerRefused() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "evt")
        _ = try pg.psql(
            Self.noteDDL + "CREATE EVENT TRIGGER watch_ddl ON ddl_command_end EXECUTE FUNCTION note_ddl();", url: url)
        #expect {
            _ = try PostgresWorkingCopy(url: url, writing: true)
        } throws: { error in
            "\(error)".contains("event trigger watch_ddl") && "\(error)".contains("nothing was changed")
                && "\(error)".contains("URNA_PG_ALLOW_EVENT_TRIGGERS=watch_ddl")
                // The library has no program name: an app's executable shows this too.
                && "\(error)".contains("this program's own CREATE, ALTER and DROP") && !"\(error)".contains("urna's")
        }
        // The library's own push (urna copy, an app) is refused the same way, before any DDL.
        let kinds = try KindsFile()
        let file = kinds.path
        #expect(throws: PostgresTransferError.self) { try KindsFile.push(file, to: url, replacing: nil) }
        #expect(try pg.psql("SELECT count(*) FROM ddl_seen", url: url) == "0\n")
        #expect(try pg.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'Log'", url: url) == "0\n")
        // Readers run no DDL: they still work.
        let reader = try PostgresWorkingCopy(url: url, writing: false)
        #expect(reader.recorded == nil)
    }

    @Test("A disabled event trigger, or one for commands urna never runs, does not stop a writer")
    func harmlessEventTriggers() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "evt_ok")
        _ = try pg.psql(
            Self.noteDDL
                + """
                CREATE EVENT TRIGGER off_one ON ddl_command_start EXECUTE FUNCTION note_ddl();
                ALTER EVENT TRIGGER off_one DISABLE;
                CREATE EVENT TRIGGER functions_only ON ddl_command_end WHEN TAG IN ('CREATE FUNCTION') EXECUTE FUNCTION note_ddl();
                """, url: url)
        let kinds = try KindsFile()
        let file = kinds.path
        try KindsFile.push(file, to: url, replacing: nil)
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
        #expect(try pg.psql("SELECT count(*) FROM ddl_seen", url: url) == "0\n")
    }

    @Test("An ENABLE REPLICA event trigger does not stop a writer in an ordinary session; ENABLE ALWAYS does")
    func replicationRoleOfEventTriggers() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "evt_replica")
        _ = try pg.psql(
            Self.noteDDL
                + """
                CREATE EVENT TRIGGER on_replicas ON ddl_command_end EXECUTE FUNCTION note_ddl();
                ALTER EVENT TRIGGER on_replicas ENABLE REPLICA;
                """, url: url)
        let kinds = try KindsFile()
        let file = kinds.path
        try KindsFile.push(file, to: url, replacing: nil)
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
        #expect(try pg.psql("SELECT count(*) FROM ddl_seen", url: url) == "0\n", "it did not fire, as said")
        // A session in replica mode (set by its role or URL) would run it: refused there, and a plain ENABLE
        // trigger, which does not fire in such a session, is not.
        _ = try pg.psql("CREATE EVENT TRIGGER on_origin ON ddl_command_start EXECUTE FUNCTION note_ddl();", url: url)
        let replica = try PostgresConnection(url)
        try replica.execute("SET session_replication_role = replica")
        #expect {
            try PostgresTransfer.refuseEventTriggers(in: replica, allowing: [])
        } throws: { error in
            "\(error)".contains("on_replicas (on ddl_command_end)") && !"\(error)".contains("on_origin")
        }
        _ = try pg.psql("DROP EVENT TRIGGER on_origin; ALTER EVENT TRIGGER on_replicas ENABLE ALWAYS;", url: url)
        #expect {
            _ = try PostgresWorkingCopy(url: url, writing: true)
        } throws: { error in
            "\(error)".contains("event trigger on_replicas (on ddl_command_end)")
        }
        #expect(try pg.psql("SELECT count(*) FROM ddl_seen", url: url) == "0\n")
    }

    @Test("An event trigger named in URNA_PG_ALLOW_EVENT_TRIGGERS runs, as its owner asked")
    func allowedEventTrigger() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "evt_allowed")
        _ = try pg.psql(
            Self.noteDDL + "CREATE EVENT TRIGGER \"Watch It\" ON ddl_command_end EXECUTE FUNCTION note_ddl();",
            url: url)
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        // A name the shell would split is shown quoted, ready to paste.
        #expect {
            try PostgresTransfer.refuseEventTriggers(in: conn, allowing: [])
        } throws: { error in
            "\(error)".contains("\"Watch It\" (on ddl_command_end)")
                && "\(error)".contains("URNA_PG_ALLOW_EVENT_TRIGGERS='Watch It'")
        }
        try PostgresTransfer.refuseEventTriggers(in: conn, allowing: ["Watch It"])
        try conn.execute("ROLLBACK")
        #expect(PostgresTransfer.allowedEventTriggers(from: " a ,Watch It,, b") == ["a", "Watch It", "b"])
    }

    @Test(
        "A statement_timeout set on the database or role cuts off none of urna's own work; lock_timeout still applies")
    func statementTimeoutPinned() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "stmt_timeout")
        let name = PostgresUnusualServerTests.databaseName(url)
        _ = try pg.psql("ALTER DATABASE \"\(name)\" SET statement_timeout = '5ms'", url: url)
        let kinds = try KindsFile(logs: 60_000)
        let file = kinds.path
        try KindsFile.push(file, to: url, replacing: nil)
        try KindsFile.push(file, to: url, replacing: PostgresTransferTests.schema)
        #expect(try pg.psql("SET statement_timeout = 0; SELECT count(*) FROM \"Log\"", url: url) == "60005\n")
        try PostgresUnusualServerTests.pullsBack(url, things: 2)
        let conn = try PostgresConnection(url)
        #expect(try conn.scalar("SHOW statement_timeout") == "0")
        // The user's own SQL (urna sql) runs under the user's settings again, as in psql.
        try conn.restoreUserSettings()
        #expect(try conn.scalar("SHOW statement_timeout") == "5ms")
        // lock_timeout is urna's own, whatever the database sets.
        _ = try pg.psql("SET statement_timeout = 0; ALTER DATABASE \"\(name)\" SET lock_timeout = '5ms'", url: url)
        let writer = try PostgresWorkingCopy(url: url, writing: true, lockTimeoutMilliseconds: 300)
        #expect(try writer.connection.scalar("SHOW lock_timeout") == "300ms")
        #expect {
            _ = try PostgresWorkingCopy(url: url, writing: true, lockTimeoutMilliseconds: 300)
        } throws: { error in
            error is PostgresWorkingCopy.LockTimeout && "\(error)".contains("waited 0.3 s")
        }
        try writer.rollback()
    }

    @Test("A NUL character in a text value stops a push naming the table, column and value; nothing is cut or changed")
    func nulInText() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "nul")
        let kinds = try KindsFile()
        let file = kinds.path
        try KindsFile.push(file, to: url, replacing: nil)
        try Connection(path: file).execute("UPDATE Log SET line = 'before' || char(0) || 'after' WHERE line = 'line 3'")
        #expect {
            try KindsFile.push(file, to: url, replacing: PostgresTransferTests.schema)
        } throws: { error in
            let text = "\(error)"
            return text.contains("Log.line") && text.contains("before\\0after") && text.contains("NUL")
                && text.contains("this program never cuts a value short") && !text.contains("urna never")
                && text.contains("nothing was copied")
        }
        #expect(try pg.psql("SELECT count(*) FROM \"Log\" WHERE line = 'line 3'", url: url) == "1\n")
    }

    @Test("synchronous_commit = off on the database does not make urna's \"stored\" a promise a crash can break")
    func synchronousCommitOff() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "async")
        let name = PostgresUnusualServerTests.databaseName(url)
        _ = try pg.psql("ALTER DATABASE \"\(name)\" SET synchronous_commit = off", url: url)
        let writer = try PostgresWorkingCopy(url: url, writing: true)
        #expect(try writer.connection.scalar("SHOW synchronous_commit") == "local")
        try writer.rollback()
        // A stronger setting (waiting for standbys) is kept as it is.
        _ = try pg.psql("ALTER DATABASE \"\(name)\" SET synchronous_commit = remote_apply", url: url)
        let strict = try PostgresWorkingCopy(url: url, writing: true)
        #expect(try strict.connection.scalar("SHOW synchronous_commit") == "remote_apply")
        try strict.rollback()
    }

    @Test("A connection lost while COMMIT is on its way is said to leave the outcome unknown, never 'not changed'")
    func connectionLostAtCommit() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "lost")
        let kinds = try KindsFile()
        let file = kinds.path
        let copy = try PostgresWorkingCopy(url: url, writing: true)
        try PostgresTransfer.push(from: try Connection(path: file), to: copy.connection, replacing: nil)
        // The server goes away between the last row and the COMMIT's answer (here: just before COMMIT is sent;
        // urna cannot tell the two apart).
        let pid = try #require(try copy.connection.scalar("SELECT pg_backend_pid()"))
        let other = try PostgresConnection(url)
        #expect(try other.scalar("SELECT pg_terminate_backend(\(pid), 5000)") == "t")
        #expect {
            try copy.sendCommit()
        } throws: { error in
            error is PostgresWorkingCopy.CommitOutcomeUnknown
                && "\(error)".contains("may or may not have been stored") && !"\(error)".contains("not changed")
        }
    }
}
