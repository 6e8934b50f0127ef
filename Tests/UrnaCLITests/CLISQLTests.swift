import Foundation
import Testing

@Suite("urna sql and --table")
struct CLISQLTests {
    @Test("SELECT answers in CSV, JSON and a table; GROUP BY and joins work")
    func selects() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let csv = try CLIRunner.run(["sql", "--db", db, "SELECT count(*) AS n FROM Candidate", "--csv"])
        #expect(csv.code == 0)
        #expect(csv.stdout == "n\n2388\n")
        let json = try CLIRunner.run([
            "sql", "--db", db,
            "SELECT nickname, sequence FROM Candidate WHERE sequence = :sq AND election IN (SELECT id FROM Election WHERE code = 297)",
            "--param", "sq=130000600702", "--json",
        ])
        #expect(json.code == 0, "\(json.stderr)")
        #expect(json.stdout == "[\n{\"nickname\":\"ROMEU ZEMA\",\"sequence\":130000600702}\n]\n")
        let total = try CLIRunner.run([
            "sql", "--db", db,
            "SELECT sum(g.value) AS cents FROM Candidate c JOIN Candidate_goods cg ON cg.owner = c.id JOIN Good g ON g.id = cg.target WHERE c.sequence = :sq AND c.election IN (SELECT id FROM Election WHERE code = 297)",
            "--param", "sq=130000600702", "--csv",
        ])
        #expect(total.code == 0, "\(total.stderr)")
        #expect(total.stdout == "cents\n6975286396\n")  // R$ 69,752,863.96
        // The same through the views, in reais: the real prints as SQLite's shell does (15 digits).
        let reais = try CLIRunner.run([
            "sql", "--db", db, "SELECT sum(VR_BEM_CANDIDATO) FROM goods WHERE SQ_CANDIDATO = '130000600702'", "--csv",
        ])
        #expect(reais.code == 0, "\(reais.stderr)")
        #expect(reais.stdout == "sum(VR_BEM_CANDIDATO)\n69752863.96\n")
        let exact = try CLIRunner.run([
            "sql", "--db", db,
            "SELECT sum(VR_BEM_CANDIDATO_CENTAVOS) AS cents, count(*) AS n FROM goods WHERE SQ_CANDIDATO = '130000600702'",
            "--csv",
        ])
        #expect(exact.stdout == "cents,n\n6975286396,\(try goodsOfZema(db))\n", "\(exact.stderr)")
        let ticket = try CLIRunner.run([
            "sql", "--db", db,
            "SELECT NM_URNA_CANDIDATO, SG_PARTIDO, DS_CARGO, IDADE_DATA_ELEICAO FROM candidacies WHERE SQ_CANDIDATO = '130000600702' AND CD_ELEICAO = 297",
            "--csv",
        ])
        #expect(ticket.code == 0, "\(ticket.stderr)")
        #expect(ticket.stdout.hasPrefix("NM_URNA_CANDIDATO,SG_PARTIDO,DS_CARGO,IDADE_DATA_ELEICAO\nROMEU ZEMA,NOVO,"))
        let table = try CLIRunner.run([
            "sql", "--db", db,
            "SELECT p.acronym, count(*) AS n FROM Candidate c JOIN Party p ON p.id = c.party GROUP BY p.acronym ORDER BY n DESC, p.acronym LIMIT 3",
        ])
        #expect(table.code == 0, "\(table.stderr)")
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("acronym | "))
        #expect(lines[1].contains("-+-"))
        let bars = lines.enumerated().filter { $0.offset != 1 }.map { $0.element.prefix { $0 != "|" }.count }
        #expect(Set(bars).count == 1, "columns are aligned: \(lines)")
        #expect(table.stderr == "3 rows\n")
    }

    /// Zema's goods counted on the tables (not the view), to check the view lists each good once.
    func goodsOfZema(_ db: String) throws -> String {
        let r = try CLIRunner.run([
            "sql", "--db", db,
            "SELECT count(*) FROM Good g JOIN Candidate c ON c.id = g.candidacy WHERE c.sequence = 130000600702",
            "--csv",
        ])
        return String(r.stdout.split(separator: "\n").last ?? "")
    }

    @Test("The file is read-only unless --write; write statements, several statements and bad SQL exit 64")
    func readOnly() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let write = try CLIRunner.run(["sql", "--db", db, "DELETE FROM Party"])
        #expect(write.code == 64)
        #expect(write.stderr.contains("this statement would change the file, and urna sql is read-only: add --write"))
        let many = try CLIRunner.run(["sql", "--db", db, "SELECT 1; DELETE FROM Party"])
        #expect(many.code == 64)
        #expect(many.stderr.contains("more than one statement"))
        let bad = try CLIRunner.run(["sql", "--db", db, "SELECT nam FROM Candidate"])
        #expect(bad.code == 64)
        #expect(
            bad.stderr.hasPrefix(
                "Error: bad SQL at 8: no such column: nam; did you mean 'name'?\n  SELECT nam FROM Candidate\n         ^\n"
            ))
        let missing = try CLIRunner.run(["sql", "--db", db, "SELECT * FROM Party WHERE acronym = :a"])
        #expect(missing.code == 64)
        #expect(missing.stderr.contains("the SQL uses :a: give --param a=VALUE"))
        let unused = try CLIRunner.run(["sql", "--db", db, "SELECT 1", "--param", "x=1"])
        #expect(unused.code == 64)
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        let changed = try CLIRunner.run([
            "sql", "--db", db, "UPDATE Party SET name = :n WHERE acronym = 'NOVO'", "--param", "n=Novo", "--write",
        ])
        #expect(changed.code == 0, "\(changed.stderr)")
        #expect(changed.stderr == "1 row changed\n")
        let after = try CLIRunner.run(["sql", "--db", db, "SELECT name FROM Party WHERE acronym = 'NOVO'", "--csv"])
        #expect(after.stdout == "name\nNovo\n")
        let absent = try CLIRunner.run(["sql", "--db", dir.appendingPathComponent("none.sqlite").path, "SELECT 1"])
        #expect(absent.code == 66)
        // --write never breaks the family's tables: DROP TABLE Good is rolled back (it printed "149 rows changed"
        // and left a file every command then failed on); a table or index of one's own is fine.
        let drop = try CLIRunner.run(["sql", "--db", db, "--write", "DROP TABLE Good"])
        #expect(
            drop.code == 65 && drop.stderr.contains("table Good is missing") && drop.stderr.contains("rolled back"),
            "\(drop.stderr)")
        #expect(try CLIRunner.run(["query", "--db", db, "Good", "--count"]).stdout == "8583\n")
        #expect(try CLIRunner.run(["sql", "--db", db, "--write", "CREATE TABLE notes (x)"]).code == 0)
        #expect(
            try CLIRunner.run(["sql", "--db", db, "--write", "CREATE INDEX my_names ON Candidate(name)"]).code == 0)
        #expect(try CLIRunner.run(["status", "--db", db]).code == 0)
    }

    @Test("query --table aligns columns by what a terminal shows (accents count once)")
    func queryTable() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run([
            "query", "--db", db, "Candidate", "nickname BEGINSWITH 'JOÃO'", "--sort", "nickname", "-n", "4",
            "--fields", "nickname,party.acronym", "--table",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 6)
        #expect(lines[0].hasPrefix("nickname "))
        let columns = lines.enumerated().filter { $0.offset != 1 }.map { $0.element.prefix { $0 != "|" }.count }
        #expect(Set(columns).count == 1, "the '|' of every row is in the same column: \(lines)")
        #expect(r.stderr == "4 Candidate objects\n")
    }
}
