import Foundation
import PostgresTestSupport
import Testing
import UrnaStore

@testable import UrnaPostgres

/// Servers and databases set up unlike the test cluster: settings a role or database forces on every session,
/// a hostile search path, a read-only default, a server that ends idle transactions.
@Suite("PostgreSQL with unusual per-database settings and a hostile search path", .serialized)
struct PostgresUnusualServerTests {
    static func databaseName(_ url: String) -> String { String(url.split(separator: "/").last ?? "") }

    /// Pushes the every-type file, pulls it back, and checks every value came back the same.
    static func roundTrip(_ url: String) throws {
        let dir = try PostgresTransferTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("kinds.sqlite").path
        try PostgresTransferTests.makeFile(original)
        let source = try Connection(path: original)
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        try PostgresTransfer.push(from: source, to: conn, replacing: nil)
        try conn.execute("COMMIT")
        let back = dir.appendingPathComponent("back.sqlite").path
        try PostgresTransfer.beginSnapshot(conn)
        try PostgresTransfer.pull(from: conn, to: back)
        try conn.execute("ROLLBACK")
        let copy = try Connection(path: back)
        for table in ["Tag", "Log", "Thing_tags"] {
            #expect(
                try PostgresTransferTests.rows(copy, table) == PostgresTransferTests.rows(source, table), "\(table)")
        }
        let a = try PostgresTransferTests.rows(source, "Thing")
        let b = try PostgresTransferTests.rows(copy, "Thing")
        #expect(a.count == 2 && b.count == 2)
        for (ra, rb) in zip(a, b) {
            for (i, (va, vb)) in zip(ra, rb).enumerated() where i != 12 { #expect(va == vb, "column \(i)") }
        }
    }

    /// Reads the database into a working copy and counts its Things.
    static func pullsBack(_ url: String, things: Int) throws {
        let dir = try PostgresTransferTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let conn = try PostgresConnection(url)
        let back = dir.appendingPathComponent("back.sqlite").path
        try PostgresTransfer.beginSnapshot(conn)
        try PostgresTransfer.pull(from: conn, to: back)
        try conn.execute("ROLLBACK")
        #expect(try PostgresTransferTests.rows(try Connection(path: back), "Thing").count == things)
    }

    @Test(
        "DateStyle, TimeZone, IntervalStyle, extra_float_digits, standard_conforming_strings and bytea_output set on the database change nothing urna reads or writes"
    )
    func databaseSettings() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "settings")
        let name = Self.databaseName(url)
        for setting in [
            "DateStyle = 'SQL, DMY'", "TimeZone = 'America/Sao_Paulo'", "IntervalStyle = 'sql_standard'",
            "extra_float_digits = -15", "standard_conforming_strings = off", "bytea_output = 'escape'",
        ] {
            _ = try pg.psql("ALTER DATABASE \"\(name)\" SET \(setting)", url: url)
        }
        #expect(try pg.psql("SHOW bytea_output", url: url) == "escape\n")
        try Self.roundTrip(url)
    }

    @Test(
        "Built-in functions and operators shadowed in a schema on the path (public.lower, public.=, ...) never run; same-named tables in another schema are not Urna's"
    )
    func hostileSearchPath() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "hostile")
        let name = Self.databaseName(url)
        // Each planted function raises: if urna's SQL ever called one, the copy would fail with its message.
        var planted: [String] = []
        for (function, arguments, returns) in [
            ("lower", "text", "text"), ("to_regclass", "text", "regclass"), ("round", "numeric", "numeric"),
            ("pg_advisory_xact_lock", "integer", "void"), ("isfinite", "timestamptz", "boolean"),
            ("translate", "text, text, text", "text"), ("to_char", "timestamp, text", "text"),
            ("date_trunc", "text, timestamptz", "timestamptz"), ("current_schema", "", "name"),
            ("attacker_eq", "text, text", "boolean"), ("attacker_times", "numeric, integer", "numeric"),
            ("attacker_ge", "timestamptz, timestamptz", "boolean"), ("attacker_path", "jsonb, text", "jsonb"),
            ("attacker_path_text", "jsonb, text", "text"), ("attacker_ne", "numeric, integer", "boolean"),
            ("attacker_over", "numeric, integer", "numeric"),
        ] {
            planted.append(
                "CREATE FUNCTION public.\(function)(\(arguments)) RETURNS \(returns) LANGUAGE plpgsql AS "
                    + "$$BEGIN RAISE EXCEPTION 'attacker function %(\(arguments)) ran', '\(function)'; END$$")
        }
        planted += [
            "CREATE OPERATOR public.= (LEFTARG = text, RIGHTARG = text, FUNCTION = public.attacker_eq)",
            "CREATE OPERATOR public.* (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = public.attacker_times)",
            "CREATE OPERATOR public.>= (LEFTARG = timestamptz, RIGHTARG = timestamptz, FUNCTION = public.attacker_ge)",
            "CREATE OPERATOR public.#> (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.attacker_path)",
            "CREATE OPERATOR public.#>> (LEFTARG = jsonb, RIGHTARG = text, FUNCTION = public.attacker_path_text)",
            "CREATE OPERATOR public.<> (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = public.attacker_ne)",
            "CREATE OPERATOR public./ (LEFTARG = numeric, RIGHTARG = integer, FUNCTION = public.attacker_over)",
            "CREATE SCHEMA decoy",
            "ALTER DATABASE \"\(name)\" SET search_path = public, decoy, pg_catalog",
        ]
        for sql in planted { _ = try pg.psql(sql, url: url) }
        try Self.roundTrip(url)
        // A schema later on the path with tables named like Urna's, one a fake descriptor. (Made before public
        // held Urna data, it would stop urna at connect: see CLIPostgresSchemaTests.)
        _ = try pg.psql(
            """
            CREATE TABLE decoy."_urna_schema" (id integer, descriptor text);
            INSERT INTO decoy."_urna_schema" VALUES (1, 'not a descriptor');
            CREATE TABLE decoy."Thing" (id integer);
            """, url: url)
        try Self.pullsBack(url, things: 2)
        #expect(try pg.psql("SELECT count(*) FROM public.\"Thing\"", url: url) == "2\n")
        #expect(try pg.psql("SELECT descriptor FROM decoy.\"_urna_schema\"", url: url) == "not a descriptor\n")
        // A query on the server: folding, money and dates compared there.
        let query = try PostgresQuery(url: url)
        let predicate = try QueryPredicate.parse(
            "text CONTAINS[cd] 'ÇÃO' AND money < 1.00 OR when > '1960-01-01T00:00:00Z'")
        #expect(try query.count(of: "Thing", where: predicate) == 1)
        let embedded = try QueryPredicate.parse("place.city ==[c] 'belo horizonte' AND place.zip > 10")
        #expect(try query.count(of: "Thing", where: embedded) == 1)
    }

    @Test("A database that makes transactions read-only refuses a writer before any work, naming the setting")
    func readOnlyDefault() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "readonly")
        _ = try pg.psql("ALTER DATABASE \"\(Self.databaseName(url))\" SET default_transaction_read_only = on", url: url)
        #expect {
            _ = try PostgresWorkingCopy(url: url, writing: true)
        } throws: { error in
            "\(error)".contains("read-only") && "\(error)".contains("default_transaction_read_only")
                && "\(error)".contains("nothing was changed")
        }
        // Readers still read.
        #expect(try PostgresWorkingCopy(url: url, writing: false).recorded == nil)
    }

    @Test("A server that ends idle transactions does not end a writer's while it works on the working copy")
    func idleTransactionTimeout() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "idle")
        _ = try pg.psql(
            "ALTER DATABASE \"\(Self.databaseName(url))\" SET idle_in_transaction_session_timeout = '200ms'", url: url)
        let dir = try PostgresTransferTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("kinds.sqlite").path
        try PostgresTransferTests.makeFile(file)
        let copy = try PostgresWorkingCopy(url: url, writing: true)
        Thread.sleep(forTimeInterval: 0.6)  // the working copy's work, with the server transaction idle
        try copy.commit(from: try Connection(path: file))
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
    }

    @Test("A role that may not create tables in the schema is refused before any work, with the grant that fixes it")
    func noCreateRight() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "nocreate")
        let role = "reader_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try pg.psql("CREATE ROLE \(role) LOGIN", url: url)
        let asRole = url.replacingOccurrences(of: "postgresql://urna@", with: "postgresql://\(role)@")
        #expect {
            _ = try PostgresWorkingCopy(url: asRole, writing: true)
        } throws: { error in
            "\(error)".contains("\(role) may not create tables in schema public")
                && "\(error)".contains("GRANT CREATE ON SCHEMA \"public\" TO \"\(role)\"")
        }
        _ = try pg.psql("GRANT CREATE ON SCHEMA public TO \(role)", url: url)
        try PostgresWorkingCopy(url: asRole, writing: true).rollback()
    }

    @Test("A lock timeout under a second is said as such, not as 0 s")
    func lockTimeoutSeconds() {
        let timeout = PostgresWorkingCopy.LockTimeout(database: "db", milliseconds: 500, message: "m")
        #expect(timeout.description.contains("(waited 0.5 s: m)"), "\(timeout)")
        #expect(PostgresWorkingCopy.LockTimeout.seconds(30_000) == "30")
    }

    @Test("A trigger someone made on one of Urna's tables stops a refill before it runs, and nothing changes")
    func serverTriggerOnUrnaTable() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "trigger")
        let kinds = try KindsFile()
        let file = kinds.path
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(
            """
            CREATE TABLE ran (at timestamptz);
            CREATE FUNCTION note_it() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO ran VALUES (now()); RETURN NULL; END$$;
            CREATE TRIGGER audit AFTER INSERT ON "Log" FOR EACH STATEMENT EXECUTE FUNCTION note_it();
            """, url: url)
        let again = try PostgresConnection(url)
        try again.execute("BEGIN")
        #expect {
            try PostgresTransfer.push(
                from: try Connection(path: file), to: again, replacing: PostgresTransferTests.schema)
        } throws: { error in
            "\(error)".contains("Log has a trigger of its own on the server (audit)")
                && "\(error)".contains("nothing was changed")
        }
        try again.execute("ROLLBACK")
        #expect(try pg.psql("SELECT count(*) FROM ran", url: url) == "0\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
    }

    @Test("A row-level security policy that hides rows stops a working copy instead of losing the hidden rows")
    func rowSecurityHidesNothing() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "rls")
        // A superuser bypasses every policy: the tables belong to an ordinary role that is made to obey them.
        let role = "owner_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try pg.psql("CREATE ROLE \(role) LOGIN; GRANT CREATE ON SCHEMA public TO \(role)", url: url)
        let asRole = url.replacingOccurrences(of: "postgresql://urna@", with: "postgresql://\(role)@")
        let dir = try PostgresTransferTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("kinds.sqlite").path
        try PostgresTransferTests.makeFile(file)
        try PostgresWorkingCopy(url: asRole, writing: true).commit(from: try Connection(path: file))
        _ = try pg.psql(
            """
            ALTER TABLE "Log" ENABLE ROW LEVEL SECURITY; ALTER TABLE "Log" FORCE ROW LEVEL SECURITY;
            CREATE POLICY hide_three ON "Log" USING (line <> 'line 3');
            """, url: url)
        let copy = try PostgresWorkingCopy(url: asRole, writing: true)
        #expect {
            try copy.materialize()
        } throws: { error in
            "\(error)".contains("row-level security")
        }
        try copy.rollback()
        _ = try pg.psql("ALTER TABLE \"Log\" NO FORCE ROW LEVEL SECURITY", url: url)
        #expect(try pg.psql("SELECT count(*) FROM \"Log\"", url: url) == "5\n")
    }

    @Test("A search path naming no existing schema is a clear error, not a failure deep in the copy")
    func noSchema() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "noschema")
        _ = try pg.psql("ALTER DATABASE \"\(Self.databaseName(url))\" SET search_path = nowhere", url: url)
        #expect {
            _ = try PostgresConnection(url)
        } throws: { error in
            "\(error)".contains("no schema to work in") && "\(error)".contains("nowhere")
        }
    }
}
