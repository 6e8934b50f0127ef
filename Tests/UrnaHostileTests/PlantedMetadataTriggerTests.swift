import Foundation
import Testing

/// Triggers planted on the metadata tables an import writes besides the family's (`_urna_pending_goods`,
/// `_urna_field_generations`), or on a view planted under one of their names: the import's refusal of
/// triggers knew only the family's tables, `_urna_schema` and `_urna_history`.
@Suite struct PlantedMetadataTriggerTests {
    /// A file holding the MG goods kept aside for their candidacies (imported before the candidates file).
    static func pendingGoods(in dir: URL) throws -> String {
        let goods = try Hostile.sample("bem_candidato_2018_MG.csv", into: dir, as: "bens.csv")
        let r = try Hostile.urna(["import", "--db", "p.sqlite", "--quiet", goods], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        return "p.sqlite"
    }

    @Test("A trigger on _urna_pending_goods is refused before the import; the goods are attached when it is gone")
    func triggerOnPendingGoods() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.pendingGoods(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "CREATE TRIGGER t AFTER DELETE ON _urna_pending_goods BEGIN DELETE FROM Good; END")
        let before = Hostile.bytes(dir, db)
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        let r = try Hostile.urna(["import", "--db", db, cand], in: dir)
        // It said "8583 goods ... were attached to their candidacies" (exit 0) and the file held no Good.
        #expect(r.code == 65, "\(r.stdout) \(r.stderr)")
        #expect(
            r.stderr.contains("a trigger on Urna's tables that would run inside the import: t (on _urna_pending_goods)")
        )
        #expect(Hostile.bytes(dir, db) == before)
        try Hostile.sql(path, "DROP TRIGGER t")
        #expect(try Hostile.urna(["import", "--db", db, "--quiet", cand], in: dir).code == 0)
        #expect(try Hostile.sql(path, "SELECT count(*) FROM Good") == ["8583"])
    }

    @Test("A view planted as _urna_pending_goods with an INSTEAD OF trigger is refused before the import")
    func viewUnderPendingGoodsName() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.pendingGoods(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(
            path,
            """
            DROP TABLE _urna_pending_goods;
            CREATE VIEW _urna_pending_goods AS SELECT 'x' AS payload, 'f' AS file, 1 AS line, X'00' AS original;
            CREATE TRIGGER t INSTEAD OF DELETE ON _urna_pending_goods BEGIN DELETE FROM Coalition; END
            """)
        let before = Hostile.bytes(dir, db)
        let cand = try Hostile.sample("consulta_cand_2018_MG.csv", into: dir, as: "cand.csv")
        let r = try Hostile.urna(["import", "--db", db, "--allow-triggers", cand], in: dir)
        // Even with --allow-triggers: a view under Urna's name is not Urna's table, whatever runs through it.
        #expect(r.code == 65, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("_urna_pending_goods is a view, not Urna's table"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
    }
}
