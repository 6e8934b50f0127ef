import Foundation
import PostgresTestSupport
import Testing
import UrnaStore

@testable import UrnaPostgres

/// What the fourth (held-out) PostgreSQL trial found: a table of someone else's named like urna's records, and
/// a TRUNCATE trigger allowed to run that ran twice per refill.
@Suite("PostgreSQL, a fourth trial: tables named like urna's records, TRUNCATE triggers", .serialized)
struct PostgresFourthTrialTests {
    @Test("A table named _urna_history in a database without Urna data is refused by the first write, its rows kept")
    func foreignHistoryTable() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "foreign_meta")
        _ = try pg.psql(
            "CREATE TABLE _urna_history (note text); INSERT INTO _urna_history VALUES ('my own history');", url: url)
        let kinds = try KindsFile()
        #expect {
            try kinds.push(to: url, replacing: nil)
        } throws: { error in
            "\(error)".contains("already has a table or view _urna_history")
                && "\(error)".contains("nothing was changed") && "\(error)".contains("RENAME TO")
        }
        // A working copy says so before any work.
        let copy = try PostgresWorkingCopy(url: url, writing: true)
        #expect(throws: PostgresTransferError.self) { try copy.refuseBeforeWork(refill: true) }
        try copy.rollback()
        #expect(try pg.psql("SELECT note FROM _urna_history", url: url) == "my own history\n")
        #expect(try pg.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'Log'", url: url) == "0\n")
    }

    @Test("A view named _urna_schema is named as someone else's, not read as a broken descriptor")
    func foreignSchemaView() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "foreign_schema_view")
        _ = try pg.psql("CREATE VIEW _urna_schema AS SELECT 1 AS id, 'x'::text AS descriptor;", url: url)
        for writing in [false, true] {
            #expect {
                _ = try PostgresWorkingCopy(url: url, writing: writing)
            } throws: { error in
                "\(error)".contains("has a view _urna_schema")
                    && "\(error)".contains("ALTER VIEW _urna_schema RENAME TO")
                    && !"\(error)".contains("JSON")
            }
        }
        #expect(try pg.psql("SELECT descriptor FROM _urna_schema", url: url) == "x\n")
    }

    @Test("An allowed TRUNCATE trigger runs once per refill of its table, binary copy or not")
    func truncateTriggerOnce() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "truncate_once")
        let kinds = try KindsFile()
        try kinds.push(to: url, replacing: nil)
        _ = try pg.psql(
            """
            CREATE TABLE audit (tbl text);
            CREATE FUNCTION note_it() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO audit VALUES (TG_TABLE_NAME); RETURN NULL; END$$;
            CREATE TRIGGER t_log AFTER TRUNCATE ON "Log" FOR EACH STATEMENT EXECUTE FUNCTION note_it();
            CREATE TRIGGER t_thing AFTER TRUNCATE ON "Thing" FOR EACH STATEMENT EXECUTE FUNCTION note_it();
            CREATE TRIGGER t_tags AFTER TRUNCATE ON "Thing_tags" FOR EACH STATEMENT EXECUTE FUNCTION note_it();
            """, url: url)
        try kinds.push(to: url, replacing: PostgresTransferTests.schema, allowTriggers: true)
        let seen = try pg.psql("SELECT tbl || ':' || count(*) FROM audit GROUP BY tbl ORDER BY tbl", url: url)
        #expect(seen == "Log:1\nThing:1\nThing_tags:1\n", "\(seen)")
        #expect(try pg.psql("SELECT count(*) FROM \"Thing_tags\"", url: url) == "2\n")
    }
}
