import Foundation
import Testing

/// SQL planted in a database file that SQLite runs on every row an import writes, as a trigger would: an
/// index that computes an expression (or has a WHERE clause) and a CHECK added to Urna's CREATE TABLE text
/// (a fifth attacker's trial). Each costs about 0.1 s and 100 MB a row here; the import ran it for every row
/// (over 60 s for one small file) before the check at its end could refuse the file.
@Suite struct PlantedWriteSQLTests {
    /// An expression SQLite accepts in an index or a CHECK (deterministic) that costs a lot to evaluate.
    static let costly = "length(replace(hex(zeroblob(20000000)), '0', 'ab'))"

    /// An empty elections file and the 2016 AC candidate file (4,000 rows) beside it.
    static func emptyDatabase(in dir: URL) throws -> (db: String, input: String) {
        let r = try Hostile.urna(["init", "--db", "db.sqlite", "--family", "elections"], in: dir)
        guard r.code == 0 else { throw Hostile.SQLFailure(message: "init failed: \(r.stderr)") }
        return ("db.sqlite", try Hostile.sample("consulta_cand_2016_AC.txt", into: dir))
    }

    @Test("An index on Candidate computing a costly expression is refused before a row is written")
    func expressionIndex() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (db, input) = try Self.emptyDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "CREATE INDEX \"evil\" ON \"Candidate\"(\(Self.costly))")
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["import", "--db", db, "--quiet", input], in: dir, timeout: 30)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.seconds < 25)  // not killed by the 30 s timeout
        #expect(
            r.stderr.contains(
                "holds an index on Urna's tables that computes an expression or has a WHERE clause, which SQLite "
                    + "would run for every row the import writes: evil (on Candidate)"), "\(r.stderr)")
        #expect(r.stderr.contains("'DROP INDEX \"evil\"'), or pass --allow-triggers"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
        // A plain index of one's own on Urna's columns is left alone.
        try Hostile.sql(path, "DROP INDEX \"evil\"; CREATE INDEX \"mine\" ON \"Candidate\"(\"name\", \"number\")")
        let plain = try Hostile.urna(["import", "--db", db, "--quiet", input], in: dir, timeout: 60)
        #expect(plain.code == 0, "\(plain.stderr)")
    }

    @Test("A partial index (WHERE) on Candidate is refused too, naming it")
    func partialIndex() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (db, input) = try Self.emptyDatabase(in: dir)
        try Hostile.sql(
            dir.appendingPathComponent(db).path,
            "CREATE INDEX \"sly\" ON \"Candidate\"(\"name\") WHERE \(Self.costly) > 0")
        let r = try Hostile.urna(["import", "--db", db, "--quiet", input], in: dir, timeout: 30)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("sly (on Candidate)"), "\(r.stderr)")
    }

    @Test("A partial index planted under one of Urna's own index names (same columns) is refused too")
    func partialIndexUnderUrnasName() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (db, input) = try Self.emptyDatabase(in: dir)
        // Same name, table and column as Urna's: the shape check (names, columns, uniqueness) sees no difference.
        try Hostile.sql(
            dir.appendingPathComponent(db).path,
            "DROP INDEX \"Candidate_unit_idx\"; "
                + "CREATE INDEX \"Candidate_unit_idx\" ON \"Candidate\"(\"unit\") WHERE \(Self.costly) > 0")
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["import", "--db", db, "--quiet", input], in: dir, timeout: 30)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("Candidate_unit_idx (on Candidate)"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
    }

    @Test("A CHECK planted in Candidate's CREATE TABLE text is refused before a row is written")
    func plantedCheck() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (db, input) = try Self.emptyDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(
            path,
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = rtrim(rtrim(sql), ')') || ', CHECK (\(Self.costly.replacingOccurrences(of: "'", with: "''")) > 0))'
              WHERE name = 'Candidate';
            """)
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["import", "--db", db, "--quiet", input], in: dir, timeout: 30)
        // It ran the CHECK for every row (killed here after 30 s), then the end's shape check rolled back.
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.seconds < 25)  // not killed by the 30 s timeout
        #expect(r.stderr.contains("the file does not match its schema (Candidate: its CREATE TABLE text differs"))
        #expect(r.stderr.contains("nothing was imported"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
    }
}
