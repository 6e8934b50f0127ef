import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A FIFO, folder or device at the database's `-journal`, `-wal` or `-shm` name (a tar archive can carry one
/// beside the file it ships, as can a shared folder). SQLite opens its rollback journal to see whether it is hot:
/// on a FIFO that open waits for a writer that never comes, so `urna status` hung for good.
@Suite struct CompanionSpecialFileTests {
    @Test("A FIFO at the -journal, -wal or -shm name: status, query, sql, export and import refuse at once (exit 1)")
    func fifoCompanionRefused() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let cand = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "ac.txt")
        let before = Hostile.bytes(dir, db)
        for suffix in ["-journal", "-wal", "-shm"] {
            let companion = dir.appendingPathComponent(db + suffix).path
            #expect(mkfifo(companion, 0o644) == 0)
            for args in [
                ["status", "--db", db], ["query", "--db", db, "Candidate", "--count"],
                ["sql", "--db", db, "SELECT count(*) FROM Good"],
                ["export", "--db", db, "--format", "csv", "--type", "Party", "--out", "p.csv"],
                ["import", "--db", db, "--quiet", cand],
            ] {
                // Before: `status` with a FIFO at -journal was still waiting when killed after 20 s.
                let r = try Hostile.urna(args, in: dir, timeout: 20)
                #expect(r.code == 1, "\(suffix) \(args): \(r.stderr)")
                #expect(r.seconds < 15, "\(suffix) \(args): took \(r.seconds) s")
                #expect(r.stderr.contains("\(db)\(suffix) is a FIFO (a pipe)"), "\(suffix) \(args): \(r.stderr)")
            }
            // Refused, never removed: it is not urna's to delete.
            #expect(Hostile.fileType(companion) == S_IFIFO)
            unlink(companion)
        }
        #expect(Hostile.bytes(dir, db) == before)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("p.csv").path))
    }

    @Test("restore --from a backup with a FIFO at its -journal name: refused at once (it hung), the file unchanged")
    func fifoBesideTheBackup() throws {
        let dir = try Hostile.folder()
        let old = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        let backup = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "x.bak")
        #expect(mkfifo(dir.appendingPathComponent(backup + "-journal").path, 0o644) == 0)
        let before = Hostile.bytes(dir, old)
        let r = try Hostile.urna(["restore", "--db", old, "--from", backup], in: dir, timeout: 20)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.contains("x.bak-journal is a FIFO (a pipe)"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, old) == before)
        #expect(Hostile.listing(dir) == [old, backup, backup + "-journal"])
    }

    @Test("A folder at the -journal name is named as such (it was SQLite's bare \"disk I/O error\")")
    func folderCompanionNamed() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent(db + "-journal"), withIntermediateDirectories: false)
        let r = try Hostile.urna(["sql", "--db", db, "--write", "CREATE TABLE mine(x)"], in: dir, timeout: 20)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.contains("\(db)-journal is a folder"), "\(r.stderr)")
        try FileManager.default.removeItem(at: dir.appendingPathComponent(db + "-journal"))
        #expect(
            try Hostile.sql(
                dir.appendingPathComponent(db).path, "SELECT count(*) FROM sqlite_master WHERE name = 'mine'") == ["0"])
    }
}
