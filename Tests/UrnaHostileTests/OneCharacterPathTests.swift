import Foundation
import Testing

/// A database named with one character (`--db x`, `--db -`): Foundation's `deletingLastPathComponent` traps on such a
/// name on Linux, and `import`, `restore` and `adopt` crashed with SIGILL (exit 132) before doing anything.
@Suite struct OneCharacterPathTests {
    @Test("import, status, restore and adopt take a one-character --db without crashing")
    func oneCharacterDatabase() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        let i = try Hostile.urna(["import", "--db", "x", "--quiet", cand], in: dir)
        #expect(i.code == 0, "\(i.stderr)")
        #expect(try Hostile.sql(dir.appendingPathComponent("x").path, "SELECT count(*) FROM Candidate") == ["2388"])
        let s = try Hostile.urna(["status", "--db", "x"], in: dir)
        #expect(s.code == 0, "\(s.stderr)")
        // No backup of x exists: a refusal, not a crash.
        let r = try Hostile.urna(["restore", "--db", "x"], in: dir)
        #expect(r.code == 66, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: no backup of x was found beside it"), "\(r.stderr)")
        let m = try Hostile.urna(["migrate", "--db", "x"], in: dir)
        #expect(m.code == 0, "\(m.stderr)")
        // One-character outputs crashed the same way (exit by SIGILL, nothing written).
        var bad = try String(contentsOf: dir.appendingPathComponent(cand), encoding: .isoLatin1)
        bad += "bad;row\n"
        try bad.write(to: dir.appendingPathComponent("c.csv"), atomically: true, encoding: .isoLatin1)
        let rejects = try Hostile.urna(["import", "--db", "x", "--quiet", "--rejects", "r", "c.csv"], in: dir)
        #expect(rejects.code == 0, "\(rejects.stderr)")
        #expect(Hostile.bytes(dir, "r").map { String(decoding: $0, as: UTF8.self).contains("bad;row") } == true)
        let out = try Hostile.urna(
            ["export", "--db", "x", "--format", "json", "--type", "Party", "--out", "o"], in: dir)
        #expect(out.code == 0, "\(out.stderr)")
        #expect(Hostile.bytes(dir, "o").map { String(decoding: $0, as: UTF8.self).split(separator: "\n").count } == 35)
        let meta = try Hostile.urna(["datasette-metadata", "--db", "x", "--out", "m"], in: dir)
        #expect(meta.code == 0, "\(meta.stderr)")
        #expect(Hostile.bytes(dir, "m") != nil)
        for args in [["restore", "--db", "-"], ["adopt", "--db", "-", "--family", "people", "--version", "0"]] {
            let a = try Hostile.urna(args, in: dir)
            #expect(a.code == 66, "\(args): \(a.stderr)")
            #expect(!a.stderr.contains("crashed"), "\(args): \(a.stderr)")
        }
    }
}
