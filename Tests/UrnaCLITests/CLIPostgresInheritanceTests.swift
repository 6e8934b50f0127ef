import Foundation
import PostgresTestSupport
import Testing

/// A table of the user's that INHERITS from one of Urna's tables (or is a partition of one) is not Urna's: a
/// refill would empty it (TRUNCATE reaches children) and reads would take its rows, so a write is refused, by
/// name, before any work.
@Suite("urna on PostgreSQL: tables of yours that inherit from Urna's", .serialized)
struct CLIPostgresInheritanceTests {
    @Test("copy --replace into a database where my_people INHERITS Person is refused, my_people kept")
    func inheritingTableKept() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "cli_inh")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.sqlite").path
        #expect(try CLIRunner.run(["init", "--db", file, "--family", "people"]).code == 0)
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people"]).code == 0)
        _ = try pg.psql(
            """
            INSERT INTO "Person"("fullName") VALUES ('Ana');
            CREATE TABLE my_people (note text) INHERITS ("Person");
            INSERT INTO my_people(_id, "fullName", note) VALUES (9001, 'Mine', 'kept by me');
            """, url: url)
        let run = try CLIRunner.run(["copy", "--from", file, "--to", url, "--replace"])
        #expect(run.code != 0, "\(run.stderr)")
        #expect(run.stderr.contains("my_people"), "\(run.stderr)")
        #expect(run.stderr.contains("NO INHERIT"), "\(run.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM ONLY my_people", url: url) == "1\n")
        #expect(try pg.psql("SELECT count(*) FROM ONLY \"Person\"", url: url) == "1\n")
        // Once detached, the copy runs and leaves it alone.
        _ = try pg.psql("ALTER TABLE my_people NO INHERIT \"Person\"", url: url)
        let again = try CLIRunner.run(["copy", "--from", file, "--to", url, "--replace"])
        #expect(again.code == 0, "\(again.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM my_people", url: url) == "1\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Person\"", url: url) == "0\n")
    }
}
