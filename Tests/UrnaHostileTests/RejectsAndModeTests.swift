import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A flood of bad rows stops at the rejects bound with nothing committed; personal-data files are 0600
/// whatever the umask (every run here has umask 000).
@Suite struct RejectsAndModeTests {
    @Test("A flood of bad rows stops at --max-rejects-bytes: exit 65, rejects under the bound, no database left")
    func floodStopsAtTheByteBound() throws {
        let dir = try Hostile.folder()
        let bad = try OutputPathAttackTests.badRows(dir, rows: 60_000)
        let r = try Hostile.urna(["import", "--db", "new.sqlite", "--max-rejects-bytes", "1M", bad], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("--max-rejects-bytes") && r.stderr.contains("nothing was imported"), "\(r.stderr)")
        let size = (Hostile.bytes(dir, "new.sqlite.rejects.csv")?.count) ?? -1
        #expect(size > 0 && size <= 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("new.sqlite").path))
    }

    @Test("The row bound stops a flood too, and both defaults are shown in --help")
    func rowBoundAndHelp() throws {
        let dir = try Hostile.folder()
        let bad = try OutputPathAttackTests.badRows(dir, rows: 50)
        let r = try Hostile.urna(["import", "--db", "new.sqlite", "--max-rejects-rows", "10", bad], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("10 rows, the bound set by --max-rejects-rows"), "\(r.stderr)")
        let help = try Hostile.urna(["import", "--help"], in: dir)
        #expect(help.stdout.contains("--max-rejects-rows") && help.stdout.contains("default: 1000000"))
        #expect(help.stdout.contains("--max-rejects-bytes") && help.stdout.contains("default: 100M"))
        let wrong = try Hostile.urna(["import", "--db", "n.sqlite", "--max-rejects-bytes", "lots", bad], in: dir)
        #expect(wrong.code == 64)
    }

    @Test("--keep-personal-data: the new database (and its -wal/-shm) and the rejects file are 0600 under umask 000")
    func personalDataModes() throws {
        let dir = try Hostile.folder()
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        let bad = try OutputPathAttackTests.badRows(dir, rows: 2)
        let r = try Hostile.urna(["import", "--db", "p.sqlite", "--keep-personal-data", "--quiet", cand, bad], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(Hostile.mode(dir, "p.sqlite") == 0o600)
        #expect(Hostile.mode(dir, "p.sqlite.rejects.csv") == 0o600)
        // A reader opens the WAL file: SQLite creates -wal/-shm with the database's mode.
        let q = try Hostile.urna(["status", "--db", "p.sqlite"], in: dir)
        #expect(q.code == 0, "\(q.stderr)")
        for name in Hostile.listing(dir) where name.hasPrefix("p.sqlite") {
            #expect(Hostile.mode(dir, name) == 0o600, "\(name)")
        }
        let e = try Hostile.urna(["export", "--db", "p.sqlite", "--format", "csv", "--out", "out.csv"], in: dir)
        #expect(e.code == 0, "\(e.stderr)")
        #expect(Hostile.mode(dir, "out.csv") == 0o600)
    }

    @Test("A symlink planted at the new database's name is not followed: import refuses, the target is untouched")
    func plantedDatabaseSymlink() throws {
        let dir = try Hostile.folder()
        let outside = try Hostile.folder()
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        symlink(outside.appendingPathComponent("victim.sqlite").path, dir.appendingPathComponent("db.sqlite").path)
        let r = try Hostile.urna(["import", "--db", "db.sqlite", cand], in: dir)
        #expect(r.code != 0)
        #expect(Hostile.listing(outside).isEmpty)
    }
}
