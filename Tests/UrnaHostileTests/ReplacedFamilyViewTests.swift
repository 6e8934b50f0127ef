import Foundation
import Testing

/// A family view (`goods`, `candidacies`) whose SQL in the file is not the code's: the descriptor records only the
/// view's checksum, and no command compared it with what `sqlite_master` holds, so a file's own `goods` answered
/// `urna sql` (and Datasette) as the family's view, and an import into such a file left it in place.
@Suite struct ReplacedFamilyViewTests {
    static let fake =
        "DROP VIEW goods; CREATE VIEW goods AS SELECT 'fake' AS SQ_CANDIDATO, 1 AS VR_BEM_CANDIDATO_CENTAVOS"

    @Test("A file whose goods view was replaced is refused by sql, query, status and import (exit 65)")
    func replacedViewRefused() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        // The view as urna made it answers.
        let honest = try Hostile.urna(["sql", "--db", db, "SELECT count(*) FROM goods", "--csv"], in: dir)
        #expect(honest.code == 0, "\(honest.stderr)")
        #expect(honest.stdout.contains("8583"), "\(honest.stdout)")
        try Hostile.sql(path, Self.fake)
        let before = Hostile.bytes(dir, db)
        // It printed the made-up row, exit 0.
        let r = try Hostile.urna(["sql", "--db", db, "SELECT * FROM goods", "--csv"], in: dir)
        #expect(r.code == 65, "\(r.stdout) \(r.stderr)")
        #expect(!r.stdout.contains("fake"))
        #expect(r.stderr.contains("the view goods is not the one elections version 6 defines"), "\(r.stderr)")
        for args in [["query", "--db", db, "Party", "--count"], ["status", "--db", db]] {
            let q = try Hostile.urna(args, in: dir)
            #expect(q.code == 65, "\(args): \(q.stdout) \(q.stderr)")
        }
        // The import went in (exit 0) and left the file's view answering.
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand2.csv")
        let i = try Hostile.urna(["import", "--db", db, "--quiet", cand], in: dir)
        #expect(i.code == 65, "\(i.stdout) \(i.stderr)")
        #expect(i.stderr.contains("the view goods is not the one"), "\(i.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
    }

    @Test("A table planted under a family view's name is refused too")
    func tableUnderViewName() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(
            path, "DROP VIEW candidacies; CREATE TABLE candidacies (SG_UF TEXT); INSERT INTO candidacies VALUES ('XX')")
        let r = try Hostile.urna(["sql", "--db", db, "SELECT SG_UF FROM candidacies", "--csv"], in: dir)
        #expect(r.code == 65, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("the view candidacies is not the one"), "\(r.stderr)")
        // A view dropped is not refused: a query naming it fails, nothing false is answered.
        try Hostile.sql(path, "DROP TABLE candidacies")
        let q = try Hostile.urna(["query", "--db", db, "Party", "--count"], in: dir)
        #expect(q.code == 0, "\(q.stderr)")
        #expect(q.stdout == "35\n")
    }
}
