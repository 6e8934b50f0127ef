import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Output paths of the commands the first round of attacks left out: `urna datasette-metadata --out`.
@Suite struct MetadataAndCopyPathTests {
    @Test("datasette-metadata --out naming the database, its -wal/-journal or a symlink to it is refused, byte-identical")
    func metadataOverTheDatabase() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        symlink(db, dir.appendingPathComponent("meta.json").path)
        let before = Hostile.listing(dir)
        let dbBytes = Hostile.bytes(dir, db)
        for target in [db, "./" + db, db + "-wal", db + "-journal", "meta.json"] {
            let r = try Hostile.urna(["datasette-metadata", "--db", db, "--out", target], in: dir)
            // It used to exit 0 having replaced the database with 9,917 bytes of JSON.
            #expect(r.code == 64, "\(target): \(r.stderr)")
            #expect(r.stderr.contains("--out \(target) is"), "\(r.stderr)")
            #expect(Hostile.bytes(dir, db) == dbBytes)
        }
        #expect(Hostile.listing(dir).filter { !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal") }
            == before.filter { !$0.hasSuffix("-shm") && !$0.hasSuffix("-wal") })
    }

    @Test("datasette-metadata --out a FIFO or /proc/self/fd/1 writes through, never replaces it; a symlink's target is kept")
    func metadataIntoStreams() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let fifo = dir.appendingPathComponent("pipe").path
        #expect(mkfifo(fifo, 0o644) == 0)
        // Nobody reading: refused at once (it used to replace the FIFO with a regular file).
        let noReader = try Hostile.urna(["datasette-metadata", "--db", db, "--out", "pipe"], in: dir)
        #expect(noReader.code == 1, "\(noReader.stderr)")
        #expect(noReader.stderr.contains("no process is reading"), "\(noReader.stderr)")
        #expect(Hostile.fileType(fifo) == S_IFIFO)
        Hostile.drainFIFO(fifo)
        Thread.sleep(forTimeInterval: 0.2)
        let through = try Hostile.urna(["datasette-metadata", "--db", db, "--out", "pipe"], in: dir)
        #expect(through.code == 0, "\(through.stderr)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Int((try? String(contentsOfFile: fifo + ".count", encoding: .utf8)) ?? "0") ?? 0 > 1000)
        #expect(Hostile.fileType(fifo) == S_IFIFO)
        // Standard output through /proc/self/fd/1 (it failed: "The file doesn't exist").
        let fd1 = try Hostile.urna(["datasette-metadata", "--db", db, "--out", "/proc/self/fd/1"], in: dir)
        #expect(fd1.code == 0, "\(fd1.stderr)")
        #expect(fd1.stdout.hasPrefix("{"), "\(fd1.stdout.prefix(200))")
        // A symlink at --out is replaced, the file it points to keeps its bytes.
        try "keep".write(to: dir.appendingPathComponent("target.txt"), atomically: true, encoding: .utf8)
        symlink("target.txt", dir.appendingPathComponent("link.json").path)
        let link = try Hostile.urna(["datasette-metadata", "--db", db, "--out", "link.json"], in: dir)
        #expect(link.code == 0, "\(link.stderr)")
        #expect(String(decoding: Hostile.bytes(dir, "target.txt") ?? Data(), as: UTF8.self) == "keep")
        #expect(Hostile.fileType(dir.appendingPathComponent("link.json").path) == S_IFREG)
        #expect(Hostile.listing(dir).allSatisfy { !$0.contains(".partial-") })
    }
}
