import Foundation
import PostgresTestSupport
import Testing

@Suite("--db postgresql:// in a schema other than public, chosen by the URL or PGOPTIONS", .serialized)
struct CLIPostgresSchemaTests {
    @Test("urna works in the first schema of the search path: Urna tables of the same names further on are not its")
    func firstSchemaOfThePath() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "schemas")
        let inPublic = try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"])
        #expect(inPublic.code == 0, "\(inPublic.stderr)")
        _ = try pg.psql(
            """
            INSERT INTO "Person"("firstName", "lastName", age) VALUES ('Ana', 'Souza', 40), ('José', 'Lima', 35);
            CREATE SCHEMA tse;
            """, url: url)
        let inTSE = url + "?options=-csearch_path%3Dtse,public"
        // An empty first schema in front of Urna's tables is refused: a second set would be made there silently.
        let refused = try CLIRunner.run(["init", "--db", inTSE, "--family", "people", "--version", "0"])
        #expect(refused.code != 0 && refused.stderr.contains("Urna's tables are in schema \"public\""))
        // Before, urna found public's _urna_schema through the path but looked for columns in tse, and an
        // import there failed with an SQLite syntax error; init said the database already held Urna data.
        let initialised = try CLIRunner.run([
            "init", "--db", url + "?options=-csearch_path%3Dtse", "--family", "people", "--version", "0",
        ])
        #expect(initialised.code == 0, "\(initialised.stdout) \(initialised.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM tse.\"_urna_schema\"", url: url) == "1\n")
        #expect(try CLIRunner.run(["query", "--db", inTSE, "Person", "--count"]).stdout == "0\n")
        #expect(try CLIRunner.run(["query", "--db", url, "Person", "--count"]).stdout == "2\n")
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let byEnvironment = try CLIRunner.runProcess(
            env, ["PGOPTIONS=-csearch_path=tse", CLIRunner.binary.path, "query", "--db", url, "Person", "--count"])
        #expect(byEnvironment.stdout == "0\n", "\(byEnvironment.stderr)")
        // urna sql is the user's own SQL: it resolves names through their search path, public included.
        let sql = try CLIRunner.run([
            "sql", "--db", inTSE,
            "SELECT (SELECT count(*) FROM \"Person\") AS here, count(*) AS there FROM public.\"Person\"",
            "--csv",
        ])
        #expect(sql.stdout == "here,there\n0,2\n", "\(sql.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM public.\"Person\"", url: url) == "2\n", "public left as it was")
    }

    @Test("A database whose transactions are read-only: writers are refused up front, sql --write says why")
    func readOnlyDatabase() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "readonly")
        let name = String(url.split(separator: "/").last ?? "")
        _ = try pg.psql("ALTER DATABASE \"\(name)\" SET default_transaction_read_only = on", url: url)
        let initialised = try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"])
        #expect(initialised.code == 1)
        #expect(
            initialised.stderr.contains("is read-only for this session (default_transaction_read_only is on"),
            "\(initialised.stderr)")
        let sql = try CLIRunner.run(["sql", "--db", url, "--write", "CREATE TABLE t (x int)"])
        #expect(sql.code == 1, "\(sql.stderr)")
        #expect(
            sql.stderr.contains("is read-only for this session") && !sql.stderr.contains("add --write"), "\(sql.stderr)"
        )
        #expect(try pg.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", url: url) == "0\n")
    }

    @Test(
        "The role's own schema created in front of public's Urna tables: readers and writers are refused, naming both schemas and the fix"
    )
    func ownSchemaInFrontOfUrnaTables() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "userschema")
        let initialised = try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"])
        #expect(initialised.code == 0, "\(initialised.stderr)")
        let role = try pg.psql("SELECT current_user", url: url).trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try pg.psql(
            """
            INSERT INTO "Person"("firstName", "lastName", age) VALUES ('Ana', 'Souza', 40), ('José', 'Lima', 35);
            CREATE SCHEMA AUTHORIZATION CURRENT_USER;
            """, url: url)
        // The default path is "$user", public: the new schema comes first and holds nothing of Urna's.
        let query = try CLIRunner.run(["query", "--db", url, "Person", "--count"])
        #expect(query.code != 0 && query.stdout.isEmpty, "\(query.stdout)")
        for part in [
            "Urna's tables are in schema \"public\"", "is \"\(role)\", which holds none",
            "?options=-csearch_path%3Dpublic", "PGOPTIONS=-csearch_path=public",
        ] {
            #expect(query.stderr.contains(part), "\(part): \(query.stderr)")
        }
        let written = try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"])
        #expect(written.code != 0 && written.stderr.contains("Urna's tables are in schema \"public\""))
        let inRole = "SELECT count(*) FROM pg_tables WHERE schemaname = '\(role)'"
        #expect(try pg.psql(inRole, url: url) == "0\n", "no second set of Urna tables")
        let named = try CLIRunner.run(["query", "--db", url + "?options=-csearch_path%3Dpublic", "Person", "--count"])
        #expect(named.stdout == "2\n", "\(named.stderr)")
        // Urna tables in two schemas behind the first: both are named, and the fix asks for one.
        let tse = try CLIRunner.run([
            "init", "--db", url + "?options=-csearch_path%3Dtse", "--family", "people", "--version", "0",
        ])
        #expect(tse.code != 0, "schema tse does not exist yet")
        _ = try pg.psql("CREATE SCHEMA tse", url: url)
        let inTSE = try CLIRunner.run([
            "init", "--db", url + "?options=-csearch_path%3Dtse", "--family", "people", "--version", "0",
        ])
        #expect(inTSE.code == 0, "\(inTSE.stderr)")
        let both = try CLIRunner.run([
            "query", "--db", url + "?options=-csearch_path%3D\(role),tse,public", "Person", "--count",
        ])
        #expect(both.code != 0)
        #expect(
            both.stderr.contains("Urna's tables are in 2 schemas of the path (\"tse\", \"public\")")
                && both.stderr.contains("-csearch_path%3DNAME"), "\(both.stderr)")
        #expect(try pg.psql(inRole, url: url) == "0\n")
    }

    @Test("urna sql on a table with a row-level security policy shows the rows the policy allows, as psql would")
    func sqlUnderRowSecurity() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sqlrls")
        // A superuser bypasses every policy: an ordinary role reads the table.
        let role = "reader_\(getpid())_\(UInt32.random(in: 0...UInt32.max))"
        _ = try pg.psql(
            """
            CREATE ROLE \(role) LOGIN;
            CREATE TABLE notes (body text, shown boolean);
            INSERT INTO notes VALUES ('open', true), ('hidden', false);
            ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
            CREATE POLICY only_shown ON notes FOR SELECT USING (shown);
            GRANT SELECT ON notes TO \(role);
            """, url: url)
        let asRole = url.replacingOccurrences(of: "postgresql://urna@", with: "postgresql://\(role)@")
        let sql = try CLIRunner.run(["sql", "--db", asRole, "SELECT body FROM notes ORDER BY body", "--csv"])
        #expect(sql.code == 0, "\(sql.stderr)")
        #expect(sql.stdout == "body\nopen\n", "\(sql.stderr)")
    }
}
