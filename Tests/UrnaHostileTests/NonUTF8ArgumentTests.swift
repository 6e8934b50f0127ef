import Foundation
import Testing

/// A path that is not UTF-8 (a Latin-1 name): Swift's argument decoding replaced its bytes by U+FFFD, so
/// `--out out\xFF.json` wrote `out\u{FFFD}.json` (exit 0) and `--db caf\xE9.sqlite` was "does not exist".
@Suite struct NonUTF8ArgumentTests {
    /// Runs `urna` through the shell so that `printf` can put raw bytes in an argument.
    static func urna(_ script: String, in dir: URL) throws -> (code: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", script, Hostile.binary]
        p.currentDirectoryURL = dir
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("An argument that is not UTF-8 is refused (exit 64) and nothing is written under another name")
    func refused() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let before = Hostile.listing(dir)
        let r = try Self.urna(
            "exec \"$0\" export --db \(db) --format json --type Party --out \"$(printf 'out\\377.json')\"", in: dir)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(r.stderr.contains("argument 9 (out\\xFF.json) is not UTF-8 text"), "\(r.stderr)")
        #expect(Hostile.listing(dir) == before)
        let s = try Self.urna("exec \"$0\" status --db \"$(printf 'caf\\351.sqlite')\"", in: dir)
        #expect(s.code == 64, "\(s.stderr)")
        #expect(!s.stderr.contains("does not exist"), "\(s.stderr)")
        // A line feed in the argument cannot forge a second output line.
        let f = try Self.urna("exec \"$0\" status --db \"$(printf 'x\\377\\nrestored: s.sqlite')\"", in: dir)
        #expect(f.code == 64, "\(f.stderr)")
        #expect(f.stderr.split(separator: "\n").count == 1, "\(f.stderr)")
        #expect(f.stderr.contains("(x\\xFF\\x0Arestored: s.sqlite)"), "\(f.stderr)")
        // UTF-8 names are untouched.
        let u = try Self.urna(
            "exec \"$0\" export --db \(db) --format json --type Party --out \"$(printf 'caf\\303\\251.json')\"", in: dir
        )
        #expect(u.code == 0, "\(u.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("café.json").path))
    }
}
