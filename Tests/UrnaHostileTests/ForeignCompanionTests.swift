import CSQLite
import Foundation
import Testing

/// A `-wal` or `-journal` of another database beside an Urna file: SQLite takes it by name for the file's own.
/// `import` checkpointed another database's log over the file (2,388 candidacies gone, exit 65 "already holds
/// tables that Urna did not create"); `status` rolled another database's journal into it ("malformed").
@Suite struct ForeignCompanionTests {
    /// Makes a default-page-size SQLite file `other.sqlite` in `dir` and copies its -wal (`journal`: its hot
    /// rollback journal, from a write whose pages spilled into the file) to `target` while its writer is open.
    static func plantCompanion(in dir: URL, journal: Bool, to target: String) throws {
        let other = dir.appendingPathComponent("other.sqlite").path
        var db: OpaquePointer?
        #expect(sqlite3_open(other, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        func exec(_ sql: String) { #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, "\(sql)") }
        exec("PRAGMA page_size = 4096")
        exec(journal ? "PRAGMA journal_mode = DELETE" : "PRAGMA journal_mode = WAL")
        exec("PRAGMA wal_autocheckpoint = 0")
        exec(
            "CREATE TABLE t(x); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) "
                + "INSERT INTO t SELECT printf('%.400c', 'y') FROM n")
        if journal {
            exec("PRAGMA cache_size = 2; BEGIN; UPDATE t SET x = 'z' || x")
        }
        let source = other + (journal ? "-journal" : "-wal")
        try FileManager.default.copyItem(atPath: source, toPath: target)
        if journal { exec("ROLLBACK") }
    }

    @Test("import beside another database's -wal is refused and the file keeps every byte")
    func foreignWAL() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Self.plantCompanion(in: dir, journal: false, to: path + "-wal")
        let before = Hostile.bytes(dir, db)
        let wal = Hostile.bytes(dir, db + "-wal")
        // Also through a symbolic link: SQLite names the -wal after the file the link leads to.
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("link.sqlite").path, withDestinationPath: db)
        for args in [
            ["import", "--db", db, "cand.csv"], ["status", "--db", db], ["migrate", "--db", db],
            ["import", "--db", "link.sqlite", "cand.csv"],
        ] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 65, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("\(db)-wal is the write-ahead log of another database"), "\(r.stderr)")
            #expect(Hostile.bytes(dir, db) == before, "\(args)")
            #expect(Hostile.bytes(dir, db + "-wal") == wal, "\(args)")
        }
    }

    @Test("status beside another database's hot -journal is refused and the file keeps every byte")
    func foreignJournal() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Self.plantCompanion(in: dir, journal: true, to: path + "-journal")
        let before = Hostile.bytes(dir, db)
        for args in [["status", "--db", db], ["query", "--db", db, "Candidate", "--count"]] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 65, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("\(db)-journal is the rollback journal of another database"), "\(r.stderr)")
            #expect(Hostile.bytes(dir, db) == before, "\(args)")
        }
        // Moved away as the message says, the file reads as it was.
        try FileManager.default.moveItem(atPath: path + "-journal", toPath: path + "-journal.other")
        let r = try Hostile.urna(["query", "--db", db, "Candidate", "--count"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "2388\n", "\(r.stdout)")
    }

    @Test("migrate never writes its backup beside another database's -wal; the file is not migrated")
    func walBesideTheBackupName() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "m.sqlite")
        let path = dir.appendingPathComponent(db).path
        try Self.plantCompanion(in: dir, journal: false, to: path + ".v1.bak-wal")
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["migrate", "--db", db], in: dir)
        // It exited 0 and `status --db m.sqlite.v1.bak` said "not an Urna file": the backup read as the other file.
        #expect(r.code != 0, "\(r.stdout)")
        #expect(r.stderr.contains("m.sqlite.v1.bak-wal is already there"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
        #expect(!Hostile.listing(dir).contains("m.sqlite.v1.bak"))
        try FileManager.default.removeItem(atPath: path + ".v1.bak-wal")
        #expect(try Hostile.urna(["migrate", "--db", db], in: dir).code == 0)
        let backup = try Hostile.urna(["status", "--db", "m.sqlite.v1.bak"], in: dir)
        #expect(backup.code == 0 && backup.stdout.contains("version:  1"), "\(backup.stdout) \(backup.stderr)")
    }

    @Test("import and init into a new file beside a -wal already at its name are refused; the log is kept")
    func walWithoutItsFile() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        for args in [
            ["import", "--db", "n.sqlite", "--quiet", cand], ["init", "--db", "n.sqlite", "--family", "people"],
        ] {
            let wal = dir.appendingPathComponent("n.sqlite-wal").path
            try? FileManager.default.removeItem(atPath: wal)
            try Self.plantCompanion(in: dir, journal: false, to: wal)
            let log = Hostile.bytes(dir, "n.sqlite-wal")
            let r = try Hostile.urna(args, in: dir)
            // import exited 0 and every later command read n.sqlite as the other database; init deleted the log.
            #expect(r.code == 65, "\(args): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("n.sqlite-wal is there but n.sqlite holds no database"), "\(r.stderr)")
            #expect(!Hostile.listing(dir).contains("n.sqlite"), "\(args)")
            #expect(Hostile.bytes(dir, "n.sqlite-wal") == log, "\(args)")
            try? FileManager.default.removeItem(atPath: dir.appendingPathComponent("other.sqlite").path)
        }
    }

    @Test("Through a symbolic --db, a database at the -wal name of the file it leads to is refused, never deleted")
    func databaseAtResolvedWALName() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let sub = dir.appendingPathComponent("x")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: dir.appendingPathComponent(db), to: sub.appendingPathComponent(db))
        try FileManager.default.createSymbolicLink(
            atPath: dir.appendingPathComponent("link.sqlite").path, withDestinationPath: "x/\(db)")
        // Another database under the name SQLite gives the real file's -wal.
        try Hostile.sql(
            sub.appendingPathComponent("\(db)-wal").path, "CREATE TABLE precious(x); INSERT INTO precious VALUES (1)")
        let precious = Hostile.bytes(sub, "\(db)-wal")
        let r = try Hostile.urna(["import", "--db", "link.sqlite", "--quiet", "cand.csv"], in: dir)
        // It exited 0 and x/db.sqlite-wal, a database, was gone.
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("\(db)-wal is an SQLite database"), "\(r.stderr)")
        #expect(Hostile.bytes(sub, "\(db)-wal") == precious)
    }
}
