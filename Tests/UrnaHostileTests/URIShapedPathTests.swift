import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A path that starts with `file:`: the system's SQLite is built with URI file names on, so it took
/// `--db file:votes.sqlite` for the URI of `votes.sqlite` (another file, which every check of urna's had not
/// looked at), and `--db 'file:x.sqlite?mode=memory'` for a database in memory that vanished at exit. Urna's
/// paths are file names: a `file:` name is the file of that name.
@Suite struct URIShapedPathTests {
    @Test("--db file:votes.sqlite reads and writes the file of that name, never votes.sqlite beside it")
    func fileColonNameIsThatFile() throws {
        let dir = try Hostile.folder()
        let ac = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "ac.txt")
        #expect(try Hostile.urna(["import", "--db", "ac.sqlite", "--quiet", ac], in: dir).code == 0)
        try FileManager.default.moveItem(
            at: dir.appendingPathComponent("ac.sqlite"), to: dir.appendingPathComponent("file:votes.sqlite"))
        let db = try Hostile.importedDatabase(in: dir, name: "votes.sqlite")
        let other = Hostile.bytes(dir, db)
        let acCount = try Hostile.sql(
            dir.appendingPathComponent("file:votes.sqlite").path, "SELECT count(*) FROM Candidate")
        let mgCount = try Hostile.sql(dir.appendingPathComponent(db).path, "SELECT count(*) FROM Candidate")
        #expect(acCount != mgCount)
        // Before: the count of votes.sqlite (the MG file), and the DELETE emptied votes.sqlite's goods, exit 0.
        let r = try Hostile.urna(
            ["sql", "--db", "file:votes.sqlite", "--csv", "SELECT count(*) AS n FROM Candidate"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "n\n\(acCount[0])\n", "\(r.stdout)")
        let w = try Hostile.urna(["sql", "--db", "file:votes.sqlite", "--write", "DELETE FROM Candidate"], in: dir)
        #expect(w.code == 0, "\(w.stderr)")
        #expect(Hostile.bytes(dir, db) == other)
        #expect(
            try Hostile.sql(dir.appendingPathComponent("file:votes.sqlite").path, "SELECT count(*) FROM Candidate") == [
                "0"
            ])
    }

    @Test("import --db 'file:new.sqlite?mode=memory' makes the file of that name (it imported into memory, exit 0)")
    func queryPartIsPartOfTheName() throws {
        let dir = try Hostile.folder()
        let ac = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "ac.txt")
        let name = "file:new.sqlite?mode=memory"
        let r = try Hostile.urna(["import", "--db", name, "--quiet", ac], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(Hostile.listing(dir) == ["ac.txt", name], "\(Hostile.listing(dir))")
        let n = try Hostile.sql(dir.appendingPathComponent(name).path, "SELECT count(*) FROM Candidate")
        #expect(n != ["0"], "\(n)")
    }
}
