import Foundation
import PostgresTestSupport
import Testing

/// `urna sql --write` on PostgreSQL and the triggers PostgreSQL's row counts cannot show fired: a statement-level
/// trigger (it fires even when no row matches) and a BEFORE row trigger (it fires even when the row is then
/// skipped, as by ON CONFLICT DO NOTHING). Without --allow-triggers the statement is rolled back, naming them.
@Suite("urna sql --write on PostgreSQL: triggers that fire without a row changing", .serialized)
struct CLIPostgresSQLWriteUnseenTriggerTests {
    @Test("a FOR EACH STATEMENT trigger set off by an UPDATE matching no row is rolled back, naming it")
    func statementTriggerWithNoRows() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sqlw_stmt")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people"]).code == 0)
        _ = try pg.psql(
            """
            CREATE TABLE audit (op text);
            CREATE FUNCTION note_stmt() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO audit VALUES (TG_OP); DELETE FROM "Person"; RETURN NULL; END$$;
            CREATE TRIGGER audit_stmt AFTER UPDATE ON "Person" FOR EACH STATEMENT EXECUTE FUNCTION note_stmt();
            INSERT INTO "Person"("fullName") VALUES ('Ana'), ('Bia');
            """, url: url)
        let refused = try CLIRunner.run(["sql", "--db", url, "--write", "UPDATE \"Person\" SET age = 1 WHERE false"])
        #expect(refused.code == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("Person.audit_stmt"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--allow-triggers"), "\(refused.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM \"Person\"", url: url) == "2\n")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "0\n")
        // Allowed, it runs (and does what it was made to do).
        let allowed = try CLIRunner.run([
            "sql", "--db", url, "--write", "--allow-triggers", "UPDATE \"Person\" SET age = 1 WHERE false",
        ])
        #expect(allowed.code == 0, "\(allowed.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "1\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Person\"", url: url) == "0\n")
    }

    @Test("a BEFORE INSERT row trigger set off by INSERT ... ON CONFLICT DO NOTHING on a taken key is rolled back")
    func beforeRowTriggerOnConflict() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sqlw_conf")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people"]).code == 0)
        _ = try pg.psql(
            """
            CREATE TABLE audit (op text);
            CREATE FUNCTION note_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO audit VALUES (TG_OP); RETURN NEW; END$$;
            INSERT INTO "Person"("fullName") VALUES ('Ana');
            CREATE TRIGGER audit_row BEFORE INSERT ON "Person" FOR EACH ROW EXECUTE FUNCTION note_row();
            """, url: url)
        let id = try pg.psql("SELECT min(_id) FROM \"Person\"", url: url).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let refused = try CLIRunner.run([
            "sql", "--db", url, "--write",
            "INSERT INTO \"Person\"(_id, \"fullName\") VALUES (\(id), 'X') ON CONFLICT DO NOTHING",
        ])
        #expect(refused.code == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("Person.audit_row"), "\(refused.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "0\n")
        // A read-only statement with --write sets nothing off and passes.
        let read = try CLIRunner.run(["sql", "--db", url, "--write", "SELECT count(*) FROM \"Person\""])
        #expect(read.code == 0, "\(read.stderr)")
    }
}
