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
        // Before, urna found public's _urna_schema through the path but looked for columns in tse, and an
        // import there failed with an SQLite syntax error; init said the database already held Urna data.
        let initialised = try CLIRunner.run(["init", "--db", inTSE, "--family", "people", "--version", "0"])
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
}
