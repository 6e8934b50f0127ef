import CSQLite
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An export or metadata file written over another database's -wal, -journal or -shm (a careless `--out`):
/// refused, since those files hold that database's last commits or what undoes a half-written transaction.
@Suite struct OtherDatabaseSidecarTests {
    /// `other.sqlite` and its -wal as a crash leaves them: 1,001 rows, the last one committed in the -wal only.
    static func crashedWALCopy(in dir: URL) throws -> String {
        let live = dir.appendingPathComponent("live-wal.sqlite").path
        try Hostile.sql(live, "PRAGMA journal_mode = WAL; CREATE TABLE t(x)")
        try Hostile.sql(
            live,
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000) INSERT INTO t SELECT i FROM c"
        )
        var handle: OpaquePointer?
        #expect(sqlite3_open(live, &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        #expect(
            sqlite3_exec(handle, "PRAGMA wal_autocheckpoint = 0; INSERT INTO t VALUES (1001)", nil, nil, nil)
                == SQLITE_OK)
        let copy = dir.appendingPathComponent("other.sqlite").path
        try FileManager.default.copyItem(atPath: live, toPath: copy)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: copy + "-wal")
        return "other.sqlite"
    }

    @Test("export and datasette-metadata --out another database's -wal or hot -journal: exit 64, that database intact")
    func sidecarsOfAnotherDatabase() throws {
        let dir = try Hostile.folder()
        let crashed = try HotJournalAndSignalTests.crashedCopy(in: dir)  // crashed.sqlite + its hot -journal
        let other = try Self.crashedWALCopy(in: dir)
        let journal = Hostile.bytes(dir, crashed + "-journal")
        let wal = Hostile.bytes(dir, other + "-wal")
        for (target, what) in [(crashed + "-journal", "the rollback journal"), (other + "-wal", "the write-ahead log")]
        {
            for args in [
                ["export", "--db", "live.sqlite", "--format", "csv", "--type", "Coalition", "--out", target],
                ["datasette-metadata", "--db", "live.sqlite", "--out", target],
            ] {
                // The export replaced other.sqlite-wal (exit 0) and its last commit was gone; over the journal,
                // crashed.sqlite kept half a transaction.
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 64, "\(args): \(r.stderr)")
                #expect(r.stderr.contains("--out \(target) is \(what) of an SQLite database"), "\(r.stderr)")
            }
        }
        #expect(Hostile.bytes(dir, crashed + "-journal") == journal)
        #expect(Hostile.bytes(dir, other + "-wal") == wal)
        #expect(try Hostile.sql(dir.appendingPathComponent(other).path, "SELECT count(*) FROM t") == ["1001"])
        let crashedPath = dir.appendingPathComponent(crashed).path
        #expect(try Hostile.sql(crashedPath, "PRAGMA integrity_check") == ["ok"])
        #expect(
            try Hostile.sql(crashedPath, "SELECT count(*) FROM Good WHERE goodDescription LIKE '%xxxxxxxxxxxxxxxx'")
                == ["0"])
    }

    @Test(
        "export and datasette-metadata --out a program (a copy of urna, a script) are refused; a 0777 CSV is replaced")
    func programsNeverReplaced() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        try FileManager.default.copyItem(atPath: Hostile.binary, toPath: dir.appendingPathComponent("urna").path)
        try "#!/bin/sh\necho hi\n".write(to: dir.appendingPathComponent("run.sh"), atomically: true, encoding: .utf8)
        try "a,b\n".write(to: dir.appendingPathComponent("old.csv"), atomically: true, encoding: .utf8)
        for name in ["urna", "run.sh", "old.csv"] { chmod(dir.appendingPathComponent(name).path, 0o777) }
        let binary = Hostile.bytes(dir, "urna")
        let script = Hostile.bytes(dir, "run.sh")
        for (target, what) in [("urna", "an executable binary"), ("run.sh", "an executable script")] {
            for args in [
                ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", target],
                ["datasette-metadata", "--db", db, "--out", target],
            ] {
                // `--out urna` used to replace the program with the CSV (exit 0).
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 64, "\(args): \(r.stderr)")
                #expect(r.stderr.contains("--out \(target) is a program (\(what))"), "\(r.stderr)")
            }
        }
        #expect(Hostile.bytes(dir, "urna") == binary)
        #expect(Hostile.bytes(dir, "run.sh") == script)
        // A data file every file of a FAT or NTFS mount looks like (mode 0777) is still replaced, as -o does.
        let csv = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "old.csv"], in: dir)
        #expect(csv.code == 0, "\(csv.stderr)")
        #expect((Hostile.bytes(dir, "old.csv") ?? Data()).count > 1000)
    }
}
