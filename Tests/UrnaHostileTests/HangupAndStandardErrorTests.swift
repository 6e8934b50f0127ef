import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A terminal that goes away: SIGHUP (an SSH session dropped during an import) ended urna on the spot, with the
/// import's private new file and its journal left beside the database; and a standard error that cannot be
/// written (a full disk under `2>>log`, a terminal that hung up) turned any error message into a crash.
@Suite struct HangupAndStandardErrorTests {
    @Test("SIGHUP during an import into a new file: exit 129, the message, and no file left behind")
    func hangupDuringNewImport() throws {
        let dir = try Hostile.folder()
        let input = try HotJournalAndSignalTests.slowInput(dir)
        let before = Hostile.listing(dir)
        // Before: exit 129 with nothing said, and new.sqlite.tmp-import-PID plus its -journal left.
        let r = try Hostile.urna(
            ["import", "--db", "new.sqlite", "--max-rejects-bytes", "none", input], in: dir, signal: SIGHUP, after: 0.5)
        #expect(r.code == 129, "\(r.stderr)")
        #expect(r.stderr == "interrupted: nothing was changed\n", "\(r.stderr)")
        #expect(Hostile.listing(dir) == before)
    }

    @Test("Standard error on a full device: the error's exit code, no crash (was SIGILL, exit 132)")
    func fullStandardError() throws {
        let dir = try Hostile.folder()
        for args in [["status", "--db", "missing.sqlite"], ["sql", "--db", "missing.sqlite", "SELECT 1"]] {
            let r = try Hostile.urna(args, in: dir, redirections: "2>/dev/full")
            #expect(r.code == 66, "\(args)")
        }
        let usage = try Hostile.urna(["query", "--no-such-option"], in: dir, redirections: "2>/dev/full")
        #expect(usage.code == 64)
    }
}

/// A signal that was ignored when urna started stays ignored: SIGHUP under `nohup` (urna blocked it and took it with
/// `sigwait`, which on Linux gets a blocked signal even when it is ignored, so a `nohup urna import` ended with 129
/// at logout), and SIGINT for a job a non-interactive shell started with `&`.
@Suite struct IgnoredSignalTests {
    /// A query that keeps SQLite busy for seconds and then prints one number, exit 0.
    static func slowQuery(_ dir: URL) throws -> [String] {
        let db = try Hostile.importedDatabase(in: dir)
        return [
            "sql", "--db", db,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 10000000) SELECT count(*) FROM c",
        ]
    }

    @Test("SIGHUP ignored at start (nohup): the command finishes with exit 0; not ignored, it stops with 129")
    func ignoredHangup() throws {
        let dir = try Hostile.folder()
        let query = try Self.slowQuery(dir)
        let ignored = try Hostile.urna(
            query, in: dir, signal: SIGHUP, after: 0.5, timeout: 120, ignoring: ["HUP"])
        #expect(ignored.seconds > 0.5, "the query ended before the signal came: nothing was tried")
        #expect(ignored.code == 0, "\(ignored.stderr)")
        #expect(ignored.stdout.contains("10000000"), "\(ignored.stdout)")
        #expect(!ignored.stderr.contains("interrupted"), "\(ignored.stderr)")
        let stopped = try Hostile.urna(query, in: dir, signal: SIGHUP, after: 0.5, timeout: 120)
        #expect(stopped.code == 129, "\(stopped.stderr)")
        #expect(stopped.stderr == "interrupted: nothing was changed\n", "\(stopped.stderr)")
    }

    @Test(
        "SIGHUP ignored through /usr/bin/nohup: exit 0",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/nohup"), "needs /usr/bin/nohup"))
    func realNohup() throws {
        let dir = try Hostile.folder()
        let query = try Self.slowQuery(dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        p.arguments = [Hostile.binary] + query
        p.currentDirectoryURL = dir
        // nohup writes to nohup.out only when standard output is a terminal: here it is a pipe.
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        Thread.sleep(forTimeInterval: 0.5)
        kill(p.processIdentifier, SIGHUP)
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == 0, "\(p.terminationStatus)")
        #expect(printed.contains("10000000"), "\(printed)")
    }

    @Test("SIGINT ignored at start (a background job of a script): exit 0; SIGTERM still stops it with 143")
    func ignoredInterrupt() throws {
        let dir = try Hostile.folder()
        let query = try Self.slowQuery(dir)
        let ignored = try Hostile.urna(
            query, in: dir, signal: SIGINT, after: 0.5, timeout: 120, ignoring: ["INT"])
        #expect(ignored.seconds > 0.5, "the query ended before the signal came: nothing was tried")
        #expect(ignored.code == 0, "\(ignored.stderr)")
        #expect(ignored.stdout.contains("10000000"), "\(ignored.stdout)")
        let terminated = try Hostile.urna(
            query, in: dir, signal: SIGTERM, after: 0.5, timeout: 120, ignoring: ["INT"])
        #expect(terminated.code == 143, "\(terminated.stderr)")
    }
}
