import Foundation
import Testing

/// A view planted where a file keeps a table: `_urna_schema` (read by every command to learn the family) or a family
/// table (`Party`). SQLite runs a view's SQL whenever the name is read, so a recursive one hung `urna status` for good
/// and a made-up one answered queries and counts as the family's rows.
@Suite struct PlantedTableViewTests {
    /// Endless rows, none of them kept: reading the view never ends.
    static let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"

    @Test("A recursive view under _urna_schema is refused at once (status hung)")
    func descriptorView() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Hostile.sql(
            dir.appendingPathComponent("v.sqlite").path,
            "CREATE VIEW _urna_schema AS \(Self.endless) SELECT 1 AS id, 'elections' AS family, 6 AS version, "
                + "'{}' AS descriptor FROM c WHERE x < 0")
        for args in [["status", "--db", "v.sqlite"], ["query", "--db", "v.sqlite", "Party", "--count"]] {
            let r = try Hostile.urna(args, in: dir, timeout: 20)
            #expect(r.seconds < 15, "\(args) ran \(r.seconds) s")
            #expect(r.code == 65, "\(args): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("_urna_schema is a view, not a table"), "\(r.stderr)")
        }
    }

    @Test("A family table replaced by a view is refused (status hung, query answered its made-up rows)")
    func familyTableView() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(
            path,
            "PRAGMA foreign_keys = OFF; CREATE TABLE kept AS SELECT * FROM Party; DROP TABLE Party; "
                + "CREATE VIEW Party AS SELECT * FROM kept UNION ALL SELECT 999999, 'FAKE', 'Made up', 99")
        let q = try Hostile.urna(["query", "--db", db, "Party", "acronym == 'FAKE'", "--count"], in: dir, timeout: 20)
        #expect(q.code == 65, "\(q.stdout) \(q.stderr)")
        #expect(!q.stdout.contains("1"), "\(q.stdout)")
        #expect(q.stderr.contains("Party is a view, not Urna's table"), "\(q.stderr)")
        try Hostile.sql(
            path, "DROP VIEW Party; CREATE VIEW Party AS \(Self.endless) SELECT kept.* FROM kept, c WHERE x < 0")
        let s = try Hostile.urna(["status", "--db", db], in: dir, timeout: 20)
        #expect(s.seconds < 15, "status ran \(s.seconds) s")
        #expect(s.code == 65, "\(s.stdout) \(s.stderr)")
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand2.csv")
        let i = try Hostile.urna(["import", "--db", db, "--quiet", cand], in: dir, timeout: 30)
        #expect(i.code == 65, "\(i.stdout) \(i.stderr)")
        #expect(i.stderr.contains("Party is a view, not Urna's table"), "\(i.stderr)")
    }
}
