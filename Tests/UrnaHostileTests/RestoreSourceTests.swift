import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `urna restore --from` and `urna copy --from` name a file SQLite will open: a FIFO or a folder is refused at
/// once, naming the option.
@Suite struct RestoreSourceTests {
    @Test("restore --from a FIFO, a folder or a device: exit 64 at once, naming --from; the file byte-identical")
    func restoreFromSomethingNotAFile() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        #expect(mkfifo(dir.appendingPathComponent("pipe").path, 0o644) == 0)
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("folder"), withIntermediateDirectories: false)
        let before = Hostile.bytes(dir, db)
        let listing = Hostile.listing(dir)
        for (from, what) in [("pipe", "is a FIFO"), ("folder", "is a folder"), ("/dev/zero", "is a character device")] {
            // A FIFO made it wait forever for the FIFO's first bytes; a folder said "disk I/O error".
            let r = try Hostile.urna(["restore", "--db", db, "--from", from], in: dir, timeout: 20)
            #expect(r.code == 64, "\(from): \(r.stderr)")
            #expect(r.stderr.contains("--from \(from) \(what)"), "\(r.stderr)")
            #expect(r.seconds < 20)
            #expect(Hostile.bytes(dir, db) == before)
        }
        #expect(Hostile.listing(dir) == listing)
        // copy names --from too (it said "--db pipe").
        let copy = try Hostile.urna(
            ["copy", "--from", "pipe", "--to", "postgresql://nobody@127.0.0.1:1/none"], in: dir, timeout: 20)
        #expect(copy.code == 64, "\(copy.stderr)")
        #expect(copy.stderr.contains("--from pipe is a FIFO"), "\(copy.stderr)")
    }

    @Test("restore without --from skips a FIFO under a backup's name (it waited forever) and takes the real backup")
    func defaultBackupThatIsAFIFO() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        try FileManager.default.copyItem(
            at: dir.appendingPathComponent(db), to: dir.appendingPathComponent("old.sqlite.v1.bak"))
        #expect(mkfifo(dir.appendingPathComponent("old.sqlite.v9.bak").path, 0o644) == 0)  // the newest name
        let r = try Hostile.urna(["restore", "--db", db], in: dir, timeout: 20)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("restored old.sqlite from old.sqlite.v1.bak"), "\(r.stdout)")
        #expect(Hostile.fileType(dir.appendingPathComponent("old.sqlite.v9.bak").path) == S_IFIFO)
    }
}
