import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `urna import --datasette-metadata` writes `<db>.metadata.json` beside the database: a name that cannot or
/// must not be written is refused before anything is imported, and a failure after the commit says so.
@Suite struct ImportMetadataPathTests {
    @Test("A folder or an SQLite file at <db>.metadata.json: exit 64 before the import; nothing created or changed")
    func refusedBeforeTheImport() throws {
        let dir = try Hostile.folder()
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("new.metadata.json"), withIntermediateDirectories: false)
        try Hostile.sql(
            dir.appendingPathComponent("other.metadata.json").path, "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        let other = Hostile.bytes(dir, "other.metadata.json")
        let listing = Hostile.listing(dir)
        for (db, what) in [("new.sqlite", "a folder has that name"), ("other.sqlite", "is an SQLite database")] {
            // It imported and committed, then failed (exit 1) on the metadata: a retry-worthy error for a done import.
            let r = try Hostile.urna(["import", "--db", db, "--datasette-metadata", "--quiet", cand], in: dir)
            #expect(r.code == 64, "\(db): \(r.stderr)")
            #expect(r.stderr.contains("--datasette-metadata writes"), "\(r.stderr)")
            #expect(r.stderr.contains(what), "\(r.stderr)")
            #expect(Hostile.listing(dir) == listing)
        }
        #expect(Hostile.bytes(dir, "other.metadata.json") == other)
    }

    @Test("Metadata that cannot be written after the commit (a FIFO nobody reads) says the import was committed")
    func failureAfterTheCommitSaysSo() throws {
        let dir = try Hostile.folder()
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        #expect(mkfifo(dir.appendingPathComponent("db.metadata.json").path, 0o644) == 0)
        let r = try Hostile.urna(
            ["import", "--db", "db.sqlite", "--datasette-metadata", "--quiet", cand], in: dir, timeout: 60)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.contains("the import was committed, but its Datasette metadata was not written"), "\(r.stderr)")
        #expect(
            try Hostile.sql(dir.appendingPathComponent("db.sqlite").path, "SELECT count(*) > 0 FROM Candidate") == ["1"]
        )
    }
}
