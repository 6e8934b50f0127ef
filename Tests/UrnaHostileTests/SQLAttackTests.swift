import Foundation
import Testing

/// SQL a file carries never runs: not from an index definition edited in sqlite_master, not from a user
/// trigger's recorded text in migrate; triggers on Urna's tables are refused by import; the import checks
/// foreign keys before it commits.
@Suite struct SQLAttackTests {
    static let planted = "; COMMIT; ATTACH 'planted.db' AS x; CREATE TABLE x.t(a); BEGIN"

    @Test("An index SQL edited to carry '; COMMIT; ATTACH ...' never runs during import; the index is rebuilt clean")
    func plantedIndexSQL() throws {
        let dir = try Hostile.folder()
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        #expect(try Hostile.urna(["init", "--db", "e.sqlite", "--family", "elections"], in: dir).code == 0)
        let index = "Candidate_unit_idx"
        try Hostile.sql(
            dir.appendingPathComponent("e.sqlite").path,
            "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE INDEX \"\(index)\" ON \"Candidate\"(\"unit\")"
                + Self.planted.replacingOccurrences(of: "'", with: "''") + "' WHERE name = '\(index)'")
        let r = try Hostile.urna(["import", "--db", "e.sqlite", "--quiet", cand], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("planted.db").path))
        let sql = try Hostile.sql(
            dir.appendingPathComponent("e.sqlite").path, "SELECT sql FROM sqlite_master WHERE name = '\(index)'")
        #expect(sql == ["CREATE INDEX \"\(index)\" ON \"Candidate\"(\"unit\")"])
        #expect(try Hostile.sql(dir.appendingPathComponent("e.sqlite").path, "PRAGMA integrity_check") == ["ok"])
    }

    @Test("A user trigger whose recorded SQL carries more statements stops migrate: nothing committed, no file written")
    func plantedTriggerSQLInMigrate() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "CREATE TRIGGER tg AFTER INSERT ON Candidate BEGIN SELECT 1; END")
        let text = "CREATE TRIGGER tg AFTER INSERT ON Candidate BEGIN SELECT 1; END" + Self.planted
        try Hostile.sql(
            path,
            "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = '\(text.replacingOccurrences(of: "'", with: "''"))' WHERE name = 'tg'"
        )
        let before = Hostile.bytes(dir, db)
        let listing = Hostile.listing(dir)
        let r = try Hostile.urna(["migrate", "--db", db], in: dir)
        #expect(r.code != 0)
        #expect(r.stderr.contains("trigger tg"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("planted.db").path))
        #expect(Hostile.listing(dir) == listing)
    }

    @Test("A trigger on Candidate that deletes every Good is refused before import; the goods survive")
    func hostileTriggerRefused() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "CREATE TRIGGER wipe AFTER INSERT ON Candidate BEGIN DELETE FROM Good; END")
        let ac = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir)
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["import", "--db", db, ac], in: dir)
        #expect(r.code == 65)
        #expect(r.stderr.contains("wipe (on Candidate)") && r.stderr.contains("--allow-triggers"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
        #expect(try Hostile.sql(path, "SELECT count(*) FROM Good") == ["8583"])
    }

    @Test("With --allow-triggers, a trigger that breaks links fails foreign_key_check and nothing is committed")
    func allowedTriggerStillChecked() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "CREATE TRIGGER wipe AFTER INSERT ON Candidate BEGIN DELETE FROM Good; END")
        let ac = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir)
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["import", "--db", db, "--allow-triggers", ac], in: dir)
        #expect(r.code == 65)
        #expect(r.stderr.contains("foreign_key_check") && r.stderr.contains("Candidate_goods → Good"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
        #expect(try Hostile.sql(path, "SELECT count(*) FROM Good") == ["8583"])
    }
}
