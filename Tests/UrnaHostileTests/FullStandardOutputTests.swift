import Foundation
import Testing

/// Results written to standard output on a full disk (`> /dev/full`) or a closed stdout: the command fails,
/// saying so, never exit 0 with the output lost and never a crash.
@Suite struct FullStandardOutputTests {
    @Test("query, sql, status, schema and datasette-metadata into /dev/full: exit 1, 'cannot write standard output'")
    func fullDisk() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        for args in [
            ["query", "--db", db, "Candidate", "-n", "5"], ["query", "--db", db, "Good", "--csv"],
            ["sql", "--db", db, "SELECT * FROM Candidate LIMIT 5"], ["sql", "--db", db, "SELECT * FROM Good", "--csv"],
            ["status", "--db", db], ["datasette-metadata", "--db", db], ["schema", "--family", "elections"],
        ] {
            // query and datasette-metadata exited 0 with nothing written; sql crashed (FileHandle.write trapped).
            let r = try Hostile.urna(args, in: dir, redirections: ">/dev/full")
            #expect(r.code == 1, "\(args): \(r.stderr.prefix(300))")
            #expect(
                r.stderr.contains("cannot write standard output (No space left on device)"),
                "\(args): \(r.stderr.prefix(300))")
            #expect(!r.stderr.contains("Fatal error"))
        }
        let closed = try Hostile.urna(["status", "--db", db], in: dir, redirections: ">&-")
        #expect(closed.code == 1, "\(closed.stderr)")
        #expect(closed.stderr.contains("cannot write standard output"), "\(closed.stderr)")
        // Nothing to write: a closed stdout is no failure.
        let quiet = try Hostile.urna(
            ["import", "--db", db, "--quiet", "cand.csv"], in: dir, redirections: ">/dev/full")
        #expect(quiet.code == 0, "\(quiet.stderr)")
    }
}
