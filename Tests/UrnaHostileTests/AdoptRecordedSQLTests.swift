import Foundation
import Testing

/// `urna adopt` recreates the file's own indexes and triggers on the tables it rebuilds: the SQL the file
/// recorded for them must be one plain CREATE, never run when it carries more.
@Suite struct AdoptRecordedSQLTests {
    /// A plain file no urna made (people version 0's columns) with a table of the user's own and an index
    /// whose `sqlite_master.sql` was edited to carry `payload` after its CREATE.
    static func legacyFile(in dir: URL, kind: String, payload: String) throws -> String {
        let path = dir.appendingPathComponent("legacy.sqlite").path
        let create =
            kind == "index"
            ? "CREATE INDEX Person_age ON Person(age)"
            : "CREATE TRIGGER Person_age AFTER INSERT ON Person BEGIN SELECT 1; END"
        try Hostile.sql(
            path,
            "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); "
                + "INSERT INTO Person VALUES ('Ana', 'Souza', 30), ('José', 'Lima', 40); \(create); "
                + "CREATE TABLE Notes(x); INSERT INTO Notes VALUES ('keep me')")
        let edited = (create + "; " + payload).replacingOccurrences(of: "'", with: "''")
        try Hostile.sql(
            path, "PRAGMA writable_schema = 1; UPDATE sqlite_master SET sql = '\(edited)' WHERE name = 'Person_age'")
        return "legacy.sqlite"
    }

    @Test(
        "adopt refuses a file whose index or trigger SQL carries more statements: exit 65, byte-identical",
        arguments: [
            ("index", "DELETE FROM Notes"), ("index", "COMMIT; DELETE FROM Notes; BEGIN"),
            ("trigger", "DELETE FROM Notes"),
        ])
    func editedRecordedSQL(_ c: (String, String)) throws {
        let dir = try Hostile.folder()
        let db = try Self.legacyFile(in: dir, kind: c.0, payload: c.1)
        let before = Hostile.bytes(dir, db)
        for dryRun in [true, false] {
            let r = try Hostile.urna(
                ["adopt", "--db", db, "--family", "people", "--version", "0"] + (dryRun ? ["--dry-run"] : []), in: dir)
            // It used to run the payload: "adopted ... left alone: Notes" (exit 0) with Notes emptied, or, with
            // COMMIT in it, a half-adopted file committed while saying "the file was not changed".
            #expect(r.code == 65, "\(c) dry run \(dryRun): \(r.stdout) \(r.stderr)")
            #expect(
                r.stderr.contains("the \(c.0) Person_age recorded in the file is not one plain CREATE"), "\(r.stderr)")
            #expect(Hostile.bytes(dir, db) == before)
        }
        #expect(try Hostile.sql(dir.appendingPathComponent(db).path, "SELECT x FROM Notes") == ["keep me"])
    }

    @Test("adopt still recreates a plain index and trigger of the file's own")
    func plainObjectsKept() throws {
        let dir = try Hostile.folder()
        let path = dir.appendingPathComponent("legacy.sqlite").path
        try Hostile.sql(
            path,
            "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); INSERT INTO Person VALUES ('Ana', 'Souza', 30); "
                + "CREATE INDEX Person_age ON Person(age); CREATE TABLE Log(x); "
                + "CREATE TRIGGER Person_log AFTER INSERT ON Person BEGIN INSERT INTO Log VALUES (new.firstName); END")
        let r = try Hostile.urna(["adopt", "--db", "legacy.sqlite", "--family", "people", "--version", "0"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(
            try Hostile.sql(path, "SELECT name FROM sqlite_master WHERE name LIKE 'Person_%' ORDER BY name")
                == ["Person_age", "Person_log"])
    }
}
