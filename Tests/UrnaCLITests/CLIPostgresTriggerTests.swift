import Foundation
import PostgresTestSupport
import Testing

/// `--allow-triggers` on PostgreSQL: triggers the database's owner made on Urna's tables are refused by name
/// before an import or a copy does any work, run when allowed (the summary names them), and set aside and
/// made again by a migration, as the SQLite files' contract says.
@Suite("urna on PostgreSQL: the server's own triggers on Urna's tables", .serialized)
struct CLIPostgresTriggerTests {
    let sample = AnalysisFixtures.sample

    static let audit = """
        CREATE TABLE audit (tbl text, op text);
        CREATE FUNCTION note_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO audit VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END$$;
        """

    @Test("import: a trigger on Party is refused by name before any work; --allow-triggers runs it and says so")
    func importRefusesThenAllows() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "cli_trig")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let candidates = sample.appendingPathComponent("consulta_cand_2018_MG.csv").path
        let goods = sample.appendingPathComponent("bem_candidato_2018_MG.csv").path
        let first = try CLIRunner.run(["import", "--db", url, candidates], in: dir)
        #expect(first.code == 0, "\(first.stderr)")
        _ = try pg.psql(
            Self.audit
                + "CREATE TRIGGER audit_party AFTER INSERT ON \"Party\" FOR EACH ROW EXECUTE FUNCTION note_row();",
            url: url)
        let parties = try pg.psql("SELECT count(*) FROM \"Party\"", url: url)
        let refused = try CLIRunner.run(["import", "--db", url, goods], in: dir)
        #expect(refused.code == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("Party has a trigger of its own on the server (audit_party)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("pass --allow-triggers"), "\(refused.stderr)")
        // Refused before the import ran on the working copy: no summary, nothing stored.
        #expect(!refused.stdout.contains("rows:") && !refused.stderr.contains("stored in"), "\(refused.stdout)")
        #expect(try pg.psql("SELECT count(*) FROM \"Good\"", url: url) == "0\n")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "0\n")
        let allowed = try CLIRunner.run(["import", "--db", url, "--allow-triggers", goods], in: dir)
        #expect(allowed.code == 0, "\(allowed.stderr)")
        #expect(
            allowed.stderr.contains(
                "triggers that ran on the server (--allow-triggers), once for every row put back: "
                    + "Party.audit_party"), "\(allowed.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM \"Good\"", url: url) == "8583\n")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == parties)
    }

    @Test("migrate sets the server's triggers aside and makes them again on the new tables; they do not run")
    func migrateRemakesTriggers() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "cli_trig_mig")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people", "--version", "0"]).code == 0)
        _ = try pg.psql(
            Self.audit
                + """
                INSERT INTO "Person"("firstName", "lastName") VALUES ('Ana', 'Lima');
                CREATE TRIGGER audit_person AFTER INSERT ON "Person" FOR EACH ROW EXECUTE FUNCTION note_row();
                """, url: url)
        let run = try CLIRunner.run(["migrate", "--db", url])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "triggers set aside and made again on the new tables (they did not run): "
                    + "Person.audit_person"), "\(run.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "0\n")
        #expect(try pg.psql("SELECT \"fullName\" FROM \"Person\"", url: url) == "Ana Lima\n")
        #expect(try pg.psql("SELECT count(*) FROM pg_trigger WHERE tgname = 'audit_person'", url: url) == "1\n")
        // And it fires for the owner's own writes afterwards, as before.
        _ = try pg.psql("INSERT INTO \"Person\"(\"fullName\") VALUES ('Bia')", url: url)
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "1\n")
    }

    @Test("copy --replace: refused by name unless --allow-triggers")
    func copyReplace() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "cli_trig_copy")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("people.sqlite").path
        #expect(try CLIRunner.run(["init", "--db", file, "--family", "people"]).code == 0)
        #expect(try CLIRunner.run(["copy", "--from", file, "--to", url]).code == 0)
        _ = try pg.psql(
            Self.audit
                + "CREATE TRIGGER audit_person AFTER TRUNCATE ON \"Person\" FOR EACH STATEMENT EXECUTE FUNCTION note_row();",
            url: url)
        let refused = try CLIRunner.run(["copy", "--from", file, "--to", url, "--replace"])
        #expect(refused.code == 1, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("Person has a trigger of its own on the server (audit_person)"), "\(refused.stderr)"
        )
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "0\n")
        let allowed = try CLIRunner.run(["copy", "--from", file, "--to", url, "--replace", "--allow-triggers"])
        #expect(allowed.code == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains("Person.audit_person"), "\(allowed.stderr)")
        let ops = try pg.psql("SELECT op FROM audit", url: url)
        #expect(ops == "TRUNCATE\n", "\(ops)")
    }
}
