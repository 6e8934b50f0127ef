import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The clean-up of what killed runs left (`FILE.tmp-<pid>`, `FILE.v<N>.bak.tmp-<pid>`, `urna-dry-run-<pid>-<UUID>`)
/// took any name that only began like a leftover's, of any kind and any owner: `migrate` deleted a user's
/// `p.sqlite.v0.bak.tmp-4242-keep.txt`, a whole folder `p.sqlite.v0.bak.tmp-4245photos`, and, run as root, another
/// user's file and another user's folder in a shared TMPDIR (a folder another user can swap for a link while it is
/// emptied).
@Suite struct StaleLeftoverNameTests {
    /// A process id no process has now.
    static func deadPid() -> Int32 {
        var pid: Int32 = 4_190_000
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        return pid
    }

    /// A people version 0 file made by `urna adopt`.
    static func peopleFile(in dir: URL) throws -> String {
        try Hostile.sql(
            dir.appendingPathComponent("p.sqlite").path,
            "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); INSERT INTO Person VALUES ('Ana', 'Souza', 40)"
        )
        let r = try Hostile.urna(["adopt", "--db", "p.sqlite", "--family", "people", "--version", "0"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        return "p.sqlite"
    }

    @Test("migrate keeps files and folders that only begin like its leftovers, and other users' ones")
    func lookalikesKept() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.peopleFile(in: dir)
        let pid = Self.deadPid()
        let kept = ["\(db).v0.bak.tmp-\(pid)-keep.txt", "\(db).tmp-\(pid).csv", "\(db).v0.bak.tmp-\(pid)x"]
        for name in kept { try Data("mine".utf8).write(to: dir.appendingPathComponent(name)) }
        let folder = dir.appendingPathComponent("\(db).v0.bak.tmp-\(pid)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try Data("photo".utf8).write(to: folder.appendingPathComponent("a.jpg"))
        // What a killed run really leaves is still removed.
        let leftover = "\(db).v0.bak.tmp-\(pid - 1)"
        try Data("half a backup".utf8).write(to: dir.appendingPathComponent(leftover))
        try Data().write(to: dir.appendingPathComponent(leftover + "-journal"))
        var foreign: String?
        if getuid() == 0 {
            foreign = "\(db).v0.bak.tmp-\(pid - 2)"
            try Data("theirs".utf8).write(to: dir.appendingPathComponent(foreign!))
            #expect(chown(dir.appendingPathComponent(foreign!).path, 65534, 65534) == 0)
        }
        let r = try Hostile.urna(["migrate", "--db", db], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        for name in kept { #expect(Hostile.bytes(dir, name) == Data("mine".utf8), "\(name) was removed") }
        #expect(Hostile.bytes(dir, "\(db).v0.bak.tmp-\(pid)/a.jpg") == Data("photo".utf8))
        if let foreign { #expect(Hostile.bytes(dir, foreign) == Data("theirs".utf8)) }
        #expect(Hostile.bytes(dir, leftover) == nil)
        #expect(Hostile.bytes(dir, leftover + "-journal") == nil)
        #expect(r.stderr.contains("note: removed ./\(leftover) "), "\(r.stderr)")
        #expect(!r.stderr.contains("keep.txt"))
    }

    @Test("A dry run removes only its own kind of folder in TMPDIR: not a look-alike, not a link, not another user's")
    func temporaryFolderLookalikes() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.peopleFile(in: dir)
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: false)
        let pid = Self.deadPid()
        let uuid = UUID().uuidString
        let lookalike = tmp.appendingPathComponent("urna-dry-run-\(pid)-photos")
        try FileManager.default.createDirectory(at: lookalike, withIntermediateDirectories: false)
        try Data("photo".utf8).write(to: lookalike.appendingPathComponent("a.jpg"))
        let target = dir.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: target.appendingPathComponent("f"))
        try FileManager.default.createSymbolicLink(
            at: tmp.appendingPathComponent("urna-dry-run-\(pid)-\(uuid)"), withDestinationURL: target)
        let stale = tmp.appendingPathComponent("urna-dry-run-\(pid - 1)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: false)
        try Data("old copy".utf8).write(to: stale.appendingPathComponent("p.sqlite"))
        var foreign: URL?
        if getuid() == 0 {
            let f = tmp.appendingPathComponent("urna-dry-run-\(pid - 2)-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: f, withIntermediateDirectories: false)
            try Data("theirs".utf8).write(to: f.appendingPathComponent("x"))
            #expect(chown(f.path, 65534, 65534) == 0)
            foreign = f
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Hostile.binary)
        p.arguments = ["migrate", "--db", db, "--dry-run"]
        p.currentDirectoryURL = dir
        var env = ProcessInfo.processInfo.environment
        env["TMPDIR"] = tmp.path
        p.environment = env
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(Hostile.bytes(lookalike, "a.jpg") == Data("photo".utf8))
        #expect(Hostile.bytes(target, "f") == Data("precious".utf8))
        #expect(Hostile.fileType(tmp.appendingPathComponent("urna-dry-run-\(pid)-\(uuid)").path) == S_IFLNK)
        #expect(!FileManager.default.fileExists(atPath: stale.path))
        if let foreign { #expect(Hostile.bytes(foreign, "x") == Data("theirs".utf8)) }
    }
}
