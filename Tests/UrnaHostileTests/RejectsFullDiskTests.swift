import Foundation
import Testing

/// A rejects file the disk cannot hold: its rows were written after the import committed, so the run ended with
/// "cannot write the rejects file" (exit 1) while the rows it kept were in the database and the list of the rows
/// it did not keep was gone. The rejects are now on disk before the commit, or nothing is imported.
@Suite("import: a rejects file on a full disk")
struct RejectsFullDiskTests {
    @Test("On a full 64 KiB tmpfs, --rejects there rolls the import back and says so; elsewhere it lands whole")
    func rejectsOnFullDisk() throws {
        guard getuid() == 0 else {
            try Test.cancel("skipped: mounting a tmpfs needs root (running as uid \(getuid()))")
        }
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let full = dir.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        guard try Hostile.tool("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", full.path]) == 0
        else {
            try Test.cancel("skipped: cannot mount a tmpfs here (mount failed even as root; CAP_SYS_ADMIN missing?)")
        }
        defer {
            if (try? Hostile.tool("/bin/umount", [full.path])) != 0 {
                _ = try? Hostile.tool("/bin/umount", ["-l", full.path])
            }
        }
        try Data(count: 52 * 1024).write(to: full.appendingPathComponent("filler"))
        // 49 good rows, then 40 rows of too few fields (24 KB of rejects, more than the 12 KB left).
        let sample = try Data(contentsOf: Hostile.sampleData.appendingPathComponent("consulta_cand_2018_MG.csv"))
        var lines = Array(sample.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(50))
        for _ in 0..<40 { lines.append(Data("\"2018\";\"\(String(repeating: "x", count: 600))\"".utf8)[...]) }
        try Data(lines.joined(separator: [0x0A]) + [0x0A]).write(to: dir.appendingPathComponent("mixed.csv"))
        for existing in [false, true] {
            if existing {
                #expect(try Hostile.urna(["init", "--db", "db.sqlite", "--family", "elections"], in: dir).code == 0)
            }
            let before = Hostile.bytes(dir, "db.sqlite")
            let r = try Hostile.urna(
                ["import", "--db", "db.sqlite", "--rejects", full.appendingPathComponent("r.csv").path, "mixed.csv"],
                in: dir)
            // It exited 1 with the 49 rows committed and no list of the 40 rows it rejected.
            #expect(r.code == 1, "\(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("cannot write the rejects file"), "\(r.stderr)")
            #expect(r.stderr.contains("nothing was imported"), "\(r.stderr)")
            #expect(Hostile.bytes(dir, "db.sqlite") == before, "existing: \(existing)")
            #expect(Hostile.listing(full) == ["filler"])
        }
        let r = try Hostile.urna(["import", "--db", "db.sqlite", "--rejects", "r.csv", "mixed.csv"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        let rejects = try String(contentsOf: dir.appendingPathComponent("r.csv"), encoding: .utf8)
        #expect(rejects.split(separator: "\n").count == 41)
    }
}
