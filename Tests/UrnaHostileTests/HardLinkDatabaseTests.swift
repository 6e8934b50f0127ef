import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A database with two names (hard links): SQLite keeps the -wal, -shm and journal by name, so writers through
/// two names at once damage it. Commands that write refuse such a file; readers still read it.
@Suite struct HardLinkDatabaseTests {
    @Test("import, migrate, restore and sql --write through a hard-linked --db: exit 1, both names byte-identical")
    func writersRefused() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        #expect(link(dir.appendingPathComponent(db).path, dir.appendingPathComponent("other-name.sqlite").path) == 0)
        let old = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        try FileManager.default.copyItem(
            at: dir.appendingPathComponent(old), to: dir.appendingPathComponent("old.sqlite.v1.bak"))
        #expect(link(dir.appendingPathComponent(old).path, dir.appendingPathComponent("old-link.sqlite").path) == 0)
        let cand = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "ac.txt")
        let before = Hostile.bytes(dir, db)
        let oldBefore = Hostile.bytes(dir, old)
        for args in [
            ["import", "--db", "other-name.sqlite", cand], ["import", "--db", db, cand],
            ["sql", "--db", db, "--write", "CREATE TABLE mine(x)"], ["migrate", "--db", "old-link.sqlite"],
            ["restore", "--db", old, "--from", "old.sqlite.v1.bak"],
        ] {
            // Two imports at once, one through each name, both exited 0 and the file failed integrity_check
            // ("invalid page number"), the goods of one import gone.
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("has 2 names (hard links to one file)"), "\(args): \(r.stderr)")
        }
        #expect(Hostile.bytes(dir, db) == before)
        #expect(Hostile.bytes(dir, old) == oldBefore)
        // Reading is not refused.
        let q = try Hostile.urna(["query", "--db", "other-name.sqlite", "Candidate", "--count"], in: dir)
        #expect(q.code == 0, "\(q.stderr)")
        // With the other name gone, the import runs.
        unlink(dir.appendingPathComponent("other-name.sqlite").path)
        #expect(try Hostile.urna(["import", "--db", db, "--quiet", cand], in: dir).code == 0)
    }
}
