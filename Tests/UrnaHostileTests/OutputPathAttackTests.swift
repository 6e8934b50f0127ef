import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Output paths that name what the command works on are refused, symlinks are never followed to clobber,
/// streams are written through and never replaced.
@Suite struct OutputPathAttackTests {
    @Test(
        "--rejects naming the database, its -wal/-journal, an input or a symlink to them is refused; all byte-identical"
    )
    func rejectsNamingTheDatabaseOrAnInput() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        try "x".write(to: dir.appendingPathComponent("elsewhere.txt"), atomically: true, encoding: .utf8)
        symlink(db, dir.appendingPathComponent("link.csv").path)
        symlink("cand.csv", dir.appendingPathComponent("input-link.csv").path)
        let before = Hostile.listing(dir)
        let dbBytes = Hostile.bytes(dir, db)
        let input = Hostile.bytes(dir, "cand.csv")
        for target in [db, db + "-wal", db + "-journal", "cand.csv", "link.csv", "input-link.csv", "./" + db] {
            let r = try Hostile.urna(["import", "--db", db, "--rejects", target, "cand.csv"], in: dir)
            #expect(r.code == 64, "\(target): \(r.stderr)")
            #expect(r.stderr.contains("--rejects \(target) is"), "\(r.stderr)")
            #expect(Hostile.bytes(dir, db) == dbBytes)
            #expect(Hostile.bytes(dir, "cand.csv") == input)
        }
        #expect(Hostile.listing(dir) == before)
    }

    @Test("export --out naming the database, its -wal/-shm, or a symlink to it is refused, the file byte-identical")
    func exportOverTheDatabase() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        symlink(db, dir.appendingPathComponent("out.xml").path)
        let dbBytes = Hostile.bytes(dir, db)
        for target in [db, db + "-wal", db + "-shm", "out.xml"] {
            let r = try Hostile.urna(["export", "--db", db, "--format", "xml", "--out", target], in: dir)
            #expect(r.code == 64, "\(target): \(r.stderr)")
            #expect(r.stderr.contains("writing there would destroy it"))
            #expect(Hostile.bytes(dir, db) == dbBytes)
        }
    }

    @Test("migrate --backup naming the database is refused")
    func backupOverTheDatabase() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        let bytes = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["migrate", "--db", db, "--backup", db + "-journal"], in: dir)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == bytes)
    }

    @Test("A symlink planted at migrate's lock-file name in the temporary folder is never followed or written")
    func plantedMigrationLockSymlink() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        var st = stat()
        #expect(stat(dir.appendingPathComponent(db).path, &st) == 0)
        let lockName = "urna-migrate-\(st.st_dev)-\(st.st_ino).lock"
        let lockPath = (NSTemporaryDirectory() as NSString).appendingPathComponent(lockName)
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        unlink(lockPath)
        #expect(symlink(victim.path, lockPath) == 0)
        defer { unlink(lockPath) }
        let r = try Hostile.urna(["migrate", "--db", db, "--no-backup"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(Hostile.fileType(lockPath) == S_IFLNK)
    }

    /// A CSV whose header is consulta_cand's and whose other rows are all bad.
    static func badRows(_ dir: URL, rows: Int, name: String = "bad.csv") throws -> String {
        let cand = try String(
            contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"), encoding: .isoLatin1)
        var lines = cand.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).prefix(2).map(
            String.init)
        let bad = String(repeating: "\"broken\";", count: 7) + "\r"
        lines += Array(repeating: bad, count: rows)
        try (lines.joined(separator: "\n") + "\n").write(
            to: dir.appendingPathComponent(name), atomically: true, encoding: .isoLatin1)
        return name
    }

    @Test("A symlink planted at the default rejects path is not followed: its target keeps its bytes and mode")
    func plantedRejectsSymlink() throws {
        let dir = try Hostile.folder()
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        chmod(victim.path, 0o644)
        symlink(victim.path, dir.appendingPathComponent("new.sqlite.rejects.csv").path)
        let bad = try Self.badRows(dir, rows: 3)
        let r = try Hostile.urna(["import", "--db", "new.sqlite", bad], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(Hostile.mode(dir, "victim.txt") == 0o644)
        #expect(Hostile.fileType(dir.appendingPathComponent("new.sqlite.rejects.csv").path) == S_IFLNK)
        // The rows went to the first free numbered name, owner-only, and the summary names it.
        #expect(r.stdout.contains("new.sqlite.rejects.1.csv"), "\(r.stdout)")
        #expect(Hostile.mode(dir, "new.sqlite.rejects.1.csv") == 0o600)
        let rows = String(decoding: Hostile.bytes(dir, "new.sqlite.rejects.1.csv") ?? Data(), as: UTF8.self)
        #expect(rows.split(separator: "\n").count == 4, "\(rows)")  // the header and the three bad rows
        #expect(Hostile.listing(dir).allSatisfy { !$0.contains(".partial-") })
    }

    @Test("An existing rejects file is never overwritten: the next run's rows go to a numbered name")
    func existingRejectsFileKept() throws {
        let dir = try Hostile.folder()
        let bad = try Self.badRows(dir, rows: 2)
        let first = try Hostile.urna(["import", "--db", "a.sqlite", "--rejects", "r.csv", bad], in: dir)
        #expect(first.code == 0, "\(first.stderr)")
        let kept = Hostile.bytes(dir, "r.csv")
        #expect(
            String(decoding: kept ?? Data(), as: UTF8.self).hasPrefix("file,line,column,reason,original\n\(bad),3,"))
        let second = try Hostile.urna(["import", "--db", "a.sqlite", "--rejects", "r.csv", bad], in: dir)
        #expect(second.code == 0, "\(second.stderr)")
        #expect(Hostile.bytes(dir, "r.csv") == kept)
        #expect(Hostile.bytes(dir, "r.1.csv") == kept)
    }

    @Test("export --out through a symlink replaces the link, never the file it points to")
    func exportThroughSymlink() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        symlink(victim.path, dir.appendingPathComponent("out.csv").path)
        let r = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "out.csv"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(Hostile.fileType(dir.appendingPathComponent("out.csv").path) == S_IFREG)
    }

    @Test("Symlinks planted at the export's temporary names (<out>.partial-<pid>) are never written through")
    func plantedTemporarySymlinks() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        // The next process ids the kernel hands out: the export's own is very likely among them.
        let last =
            Int32(
                (try? String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        let planted = (1...400).map { last + $0 }
        for pid in planted { symlink(victim.path, dir.appendingPathComponent("out.csv.partial-\(pid)").path) }
        let r = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "out.csv"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        #expect(Hostile.fileType(dir.appendingPathComponent("out.csv").path) == S_IFREG)
        for pid in planted {
            #expect(Hostile.fileType(dir.appendingPathComponent("out.csv.partial-\(pid)").path) == S_IFLNK)
        }
        // Whether the run's id was among the planted names (it says how strong this run of the test was).
        print("export pid \(r.pid) \(planted.contains(r.pid) ? "was" : "was not") among the planted names")
    }

    @Test("FIFOs and devices are written through, never replaced; a FIFO nobody reads is refused, not waited on")
    func streamsWrittenThrough() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let noReader = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "pipe"], in: dir)
        #expect(noReader.code == 1, "\(noReader.stderr)")
        #expect(noReader.stderr.contains("no process is reading"))
        // With a reader: the bytes flow through and the FIFO stays a FIFO.
        Hostile.drainFIFO(fifo)
        Thread.sleep(forTimeInterval: 0.2)
        let through = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "pipe"], in: dir)
        #expect(through.code == 0, "\(through.stderr)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Int((try? String(contentsOfFile: fifo + ".count", encoding: .utf8)) ?? "0") ?? 0 > 1000)
        #expect(Hostile.fileType(fifo) == S_IFIFO)
        let null = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "/dev/null"], in: dir)
        #expect(null.code == 0, "\(null.stderr)")
        #expect(Hostile.fileType("/dev/null") == S_IFCHR)
        // Standard output (a regular file under this runner) through /proc/self/fd/1: written through.
        let fd1 = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "/proc/self/fd/1"], in: dir)
        #expect(fd1.code == 0, "\(fd1.stderr)")
        #expect(fd1.stdout.hasPrefix("\""), "\(fd1.stdout.prefix(200))")
        #expect(!fd1.stdout.contains("exported "))  // the summary goes to stderr, not into the data
        #expect(Hostile.listing(dir).allSatisfy { !$0.contains(".partial-") })
        let rejects = try Hostile.urna(
            ["import", "--db", db, "--rejects", "/dev/null", try Self.badRows(dir, rows: 2)], in: dir)
        #expect(rejects.code == 0, "\(rejects.stderr)")
        #expect(Hostile.fileType("/dev/null") == S_IFCHR)
    }
}
