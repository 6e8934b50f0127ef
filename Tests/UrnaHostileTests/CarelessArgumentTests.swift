import Foundation
import Testing

/// A careless command line: a value option whose value was forgotten must not swallow the next option.
@Suite struct CarelessArgumentTests {
    @Test("migrate --backup --dry-run (value forgotten) is refused: the file is not migrated, no '--dry-run' file")
    func backupSwallowsDryRun() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        let before = Hostile.bytes(dir, db)
        // It used to run the whole migration for real (exit 0, v1 -> v5) with its backup named "--dry-run".
        let r = try Hostile.urna(["migrate", "--db", db, "--backup", "--dry-run"], in: dir)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(r.stderr.contains("--backup needs a value"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
        #expect(!Hostile.listing(dir).contains("--dry-run"))
        // Long, short and `--` forms; a negative number is still a value.
        for args in [
            ["export", "--db", db, "--format", "csv", "--out", "--quiet"],
            ["export", "--db", db, "--format", "csv", "-o", "-q"],
            ["import", "--db", "--rejects", "r.csv", "x.csv"],
            ["query", "--db", db, "Candidate", "--limit", "--count"],
            ["sql", "--db", "--", "SELECT 1"],
        ] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("needs a value"), "\(args): \(r.stderr)")
        }
        #expect(Hostile.listing(dir) == ["old.sqlite"])
        let negative = try Hostile.urna(["query", "--db", db, "Candidate", "-n", "-1", "--count"], in: dir)
        #expect(!negative.stderr.contains("needs a value"), "\(negative.stderr)")
    }
}
