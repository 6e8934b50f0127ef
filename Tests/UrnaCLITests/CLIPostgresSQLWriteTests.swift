import Foundation
import PostgresTestSupport
import Testing

/// `urna sql --write` on PostgreSQL keeps the SQLite files' rules: a statement that changes the family's tables
/// or urna's records, or sets off a trigger on them (unless --allow-triggers), is rolled back with exit 65.
@Suite("urna sql --write on PostgreSQL: the family's tables and urna's records are kept", .serialized)
struct CLIPostgresSQLWriteTests {
    @Test("DROP TABLE, a dropped column or index, and edits of _urna_schema/_urna_history are rolled back")
    func structureKept() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sqlw")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people"]).code == 0)
        let refused: [(String, String)] = [
            ("DROP TABLE \"Person\"", "the table Person is gone or changed"),
            ("ALTER TABLE \"Person\" DROP COLUMN \"fullName\"", "the column Person.fullName (text NOT NULL) is gone"),
            ("ALTER TABLE \"Person\" ALTER COLUMN age TYPE text", "the column Person.age"),
            ("ALTER TABLE \"Person\" ADD COLUMN extra text", "the column Person.extra (text) was added"),
            ("UPDATE _urna_schema SET version = 9", "_urna_schema changed"),
            (
                "ALTER TABLE \"Person\" DROP CONSTRAINT \"Person_pkey\"",
                "the key Person_pkey on Person (PRIMARY KEY (_id)) was dropped or changed"
            ),
            ("DROP TABLE _urna_history", "the table _urna_history is gone"),
            ("TRUNCATE _urna_schema", "_urna_schema changed"),
        ]
        let before = try pg.psql("SELECT version, descriptor FROM _urna_schema", url: url)
        for (sql, expected) in refused {
            let run = try CLIRunner.run(["sql", "--db", url, "--write", sql])
            #expect(run.code == 65, "\(sql): \(run.stderr)")
            #expect(run.stderr.contains(expected) && run.stderr.contains("rolled back"), "\(sql): \(run.stderr)")
        }
        #expect(try pg.psql("SELECT version, descriptor FROM _urna_schema", url: url) == before)
        #expect(try pg.psql("SELECT count(*) FROM \"Person\"", url: url) == "0\n")
        // Rows, and indexes of your own, are what --write is for.
        let insert = try CLIRunner.run([
            "sql", "--db", url, "--write", "INSERT INTO \"Person\"(\"fullName\", age) VALUES ('Ana', 30)",
        ])
        #expect(insert.code == 0 && insert.stderr.contains("1 row changed"), "\(insert.stderr)")
        let index = try CLIRunner.run(["sql", "--db", url, "--write", "CREATE INDEX mine ON \"Person\"(age)"])
        #expect(index.code == 0, "\(index.stderr)")
        let drop = try CLIRunner.run(["sql", "--db", url, "--write", "DROP INDEX mine"])
        #expect(drop.code == 0, "\(drop.stderr)")
    }

    @Test("A statement that sets off a trigger on the family's tables is rolled back unless --allow-triggers")
    func triggersSetOff() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sqlw_trig")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "people"]).code == 0)
        _ = try pg.psql(
            """
            CREATE TABLE audit (op text);
            CREATE FUNCTION note_row() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO audit VALUES (TG_OP); RETURN NULL; END$$;
            CREATE TRIGGER audit_person AFTER UPDATE ON "Person" FOR EACH ROW EXECUTE FUNCTION note_row();
            INSERT INTO "Person"("fullName") VALUES ('Ana');
            """, url: url)
        // An INSERT does not set off an UPDATE trigger; the UPDATE does.
        let insert = try CLIRunner.run([
            "sql", "--db", url, "--write", "INSERT INTO \"Person\"(\"fullName\") VALUES ('Bia')",
        ])
        #expect(insert.code == 0, "\(insert.stderr)")
        let update = try CLIRunner.run(["sql", "--db", url, "--write", "UPDATE \"Person\" SET age = 1"])
        #expect(update.code == 65, "\(update.stderr)")
        #expect(
            update.stderr.contains("Person.audit_person") && update.stderr.contains("--allow-triggers"),
            "\(update.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "0\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Person\" WHERE age = 1", url: url) == "0\n")
        let allowed = try CLIRunner.run([
            "sql", "--db", url, "--write", "--allow-triggers", "UPDATE \"Person\" SET age = 1",
        ])
        #expect(allowed.code == 0, "\(allowed.stderr)")
        #expect(try pg.psql("SELECT count(*) FROM audit", url: url) == "2\n")
    }
}
