import Foundation
import PostgresTestSupport
import Testing
import UrnaPostgres

@testable import UrnaCommandLine

/// The third PostgreSQL trial, through the command line.
@Suite("urna on PostgreSQL: a third trial", .serialized)
struct CLIPostgresThirdTrialTests {
    @Test("migrate with nothing to do leaves the server's rows untouched (no refill, no triggers, no locks held long)")
    func migrateNothingToDo() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "noop")
        let created = try CLIRunner.run(["init", "--db", url, "--family", "people"])
        #expect(created.code == 0, "\(created.stderr)")
        _ = try pg.psql(
            "INSERT INTO \"Person\"(\"fullName\") SELECT 'Person ' || i FROM generate_series(1, 20) AS i", url: url)
        let before = try pg.psql("SELECT xmin, * FROM \"Person\" ORDER BY _id", url: url)
        let run = try CLIRunner.run(["migrate", "--db", url])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains("nothing to do"), "\(run.stdout)")
        #expect(!run.stderr.contains("stored in"), "\(run.stderr)")
        #expect(try pg.psql("SELECT xmin, * FROM \"Person\" ORDER BY _id", url: url) == before)
    }

    @Test(
        "urna sql under a statement_timeout the role or database sets says which setting stopped it and how to lift it")
    func sqlStatementTimeout() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sql_timeout")
        let name = String(url.split(separator: "/").last ?? "")
        _ = try pg.psql("ALTER DATABASE \"\(name)\" SET statement_timeout = '50ms'", url: url)
        let run = try CLIRunner.run(["sql", "--db", url, "SELECT pg_sleep(2)"])
        #expect(run.code == 1, "\(run.stderr)")
        #expect(run.stderr.contains("statement_timeout (50ms)"), "\(run.stderr)")
        #expect(run.stderr.contains("PGOPTIONS=-cstatement_timeout=0"), "\(run.stderr)")
        // urna's own work under the same setting is not cut off.
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people"]).code == 0)
    }

    @Test("A write whose COMMIT lost the connection is not reported as 'not changed' (the server may have committed)")
    func commitOutcomeUnknown() {
        let lost = PostgresWorkingCopy.CommitOutcomeUnknown(database: "postgresql://u@h/db", message: "server closed")
        // The tool is named: its default is the process-wide command context, which other tests in this process set.
        let unknown = PostgresStaging.commitFailure(
            lost, command: "import", display: "postgresql://u@h/db", path: "/x", tool: "urna")
        #expect(unknown.code == ExitCode.failure)
        #expect(unknown.message.contains("may or may not have been stored"), "\(unknown.message)")
        #expect(!unknown.message.contains("was not changed"), "\(unknown.message)")
        #expect(unknown.message.contains("look with `urna status --db URL`"), "\(unknown.message)")
        // An app's executable names itself, and the library, which has no name, names no program.
        let app = PostgresStaging.commitFailure(
            lost, command: "import", display: "postgresql://u@h/db", path: "/x", tool: "library-app")
        #expect(app.message.contains("look with `library-app status --db URL`"), "\(app.message)")
        #expect(!app.message.contains("urna"), "\(app.message)")
        #expect(!"\(lost)".contains("urna"), "\(lost)")
        let refused = PostgresError("duplicate key", sqlState: "23505", database: "postgresql://u@h/db")
        let other = PostgresStaging.commitFailure(
            refused, command: "import", display: "postgresql://u@h/db", path: "/x")
        #expect(other.message.hasPrefix("postgresql://u@h/db was not changed"), "\(other.message)")
    }
}
