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
