import Foundation
import PostgresTestSupport
import Testing

/// `urna sql --write` on PostgreSQL compares urna's keys and indexes by what they are, not only by name, and
/// keeps the family's tables logged.
@Suite("urna sql --write on PostgreSQL: urna's keys keep their definition, its tables their persistence", .serialized)
struct CLIPostgresSQLWriteKeyShapeTests {
    @Test("a foreign key remade under its own name as CHECK (true), and SET UNLOGGED, are rolled back")
    func redefinedKeyAndUnlogged() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "sqlw_key")
        #expect(try CLIRunner.run(["init", "--db", url, "--family", "elections"]).code == 0)
        let row = try pg.psql(
            "SELECT conrelid::regclass::text || '|' || conname FROM pg_constraint WHERE contype = 'f' "
                + "ORDER BY conname LIMIT 1",
            url: url
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = row.split(separator: "|").map(String.init)
        try #require(parts.count == 2, "no foreign key in the elections family: \(row)")
        let (table, key) = (parts[0], parts[1])
        let definition =
            "SELECT contype::text || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = '\(key)'"
        let before = try pg.psql(definition, url: url)
        let swapped = try CLIRunner.run([
            "sql", "--db", url, "--write",
            "ALTER TABLE \(table) DROP CONSTRAINT \"\(key)\", ADD CONSTRAINT \"\(key)\" CHECK (true)",
        ])
        #expect(swapped.code == 65, "\(swapped.stderr)")
        #expect(swapped.stderr.contains(key), "\(swapped.stderr)")
        #expect(try pg.psql(definition, url: url) == before)
        // An index of one's own still passes, and so does dropping it.
        let column = try pg.psql(
            "SELECT attname FROM pg_attribute WHERE attrelid = '\(table)'::regclass AND attnum = 1", url: url
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let mine = try CLIRunner.run(["sql", "--db", url, "--write", "CREATE INDEX my_idx ON \(table) (\"\(column)\")"])
        #expect(mine.code == 0, "\(mine.stderr)")
        #expect(try CLIRunner.run(["sql", "--db", url, "--write", "DROP INDEX my_idx"]).code == 0)
        // A table no key points at may be set UNLOGGED by the server; the guard rolls it back.
        let people = try pg.createDatabase(prefix: "sqlw_unlogged")
        #expect(try CLIRunner.run(["init", "--db", people, "--family", "people"]).code == 0)
        let unlogged = try CLIRunner.run(["sql", "--db", people, "--write", "ALTER TABLE \"Person\" SET UNLOGGED"])
        #expect(unlogged.code == 65, "\(unlogged.stderr)")
        #expect(unlogged.stderr.contains("the table Person (unlogged) was added"), "\(unlogged.stderr)")
        #expect(try pg.psql("SELECT relpersistence FROM pg_class WHERE relname = 'Person'", url: people) == "p\n")
    }
}
