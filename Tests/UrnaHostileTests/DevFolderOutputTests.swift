import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An output path in /dev (or /proc, /sys) that is not a device or a FIFO: refused, never created or renamed
/// over. As root, `export --out /dev/stdin` with a file on standard input replaced the system's /dev/stdin link
/// with the CSV (found in this trial; the machine's link was put back at once). The test uses links of its own.
@Suite struct DevFolderOutputTests {
    @Test("export, datasette-metadata and --rejects to a link or a new name in /dev: exit 64, nothing made there")
    func devFolderRefused() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let bad = try OutputPathAttackTests.badRows(dir, rows: 2)
        let victim = dir.appendingPathComponent("victim.txt")
        try "precious\n".write(to: victim, atomically: true, encoding: .utf8)
        let tag = UUID().uuidString
        let link = "/dev/urna-hostile-\(tag)"
        let new = "/dev/urna-hostile-new-\(tag).csv"
        guard symlink(victim.path, link) == 0 else {
            try Test.cancel("skipped: cannot make a link in /dev (needs root)")
        }
        defer {
            // Everything named after this run (a build without the check left numbered rejects files there too).
            for name in (try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? [] where name.contains(tag) {
                unlink("/dev/" + name)
            }
        }
        for target in [link, new] {
            for args in [
                ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", target],
                ["datasette-metadata", "--db", db, "--out", target], ["import", "--db", db, "--rejects", target, bad],
            ] {
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 64, "\(args): \(r.stderr)")
                #expect(r.stderr.contains("is in /dev, where urna writes only to devices and FIFOs"), "\(r.stderr)")
            }
        }
        #expect(Hostile.fileType(link) == S_IFLNK)
        #expect(Hostile.fileType(new) == nil)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "precious\n")
        // Devices are still written through.
        let null = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "/dev/null"], in: dir)
        #expect(null.code == 0, "\(null.stderr)")
    }
}
