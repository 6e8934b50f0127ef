import Foundation
import PostgresTestSupport
import Testing

@Suite("An import into PostgreSQL gives the database an import into a file gives", .serialized)
struct CLIPostgresImportEquivalenceTests {
    let sample = AnalysisFixtures.sample
    static let types = ["Election", "Candidate", "Good", "GoodType", "Party", "Coalition"]

    /// Each type's JSON export from the file and from the server: they must be equal, and say something.
    func expectSameExports(_ file: String, _ url: String, _ step: String) throws {
        for type in Self.types {
            let a = try CLIRunner.run(["export", "--db", file, "--format", "json", "--type", type, "--quiet"])
            let b = try CLIRunner.run(["export", "--db", url, "--format", "json", "--type", type, "--quiet"])
            #expect(a.code == 0 && b.code == 0, "\(step) \(type): \(a.stderr) \(b.stderr)")
            #expect(a.stdout == b.stdout, "\(step): \(type) differs between the file and PostgreSQL")
            #expect(a.stdout.count > 100, "\(step): \(type) exported nothing, so it compares nothing")
        }
    }

    @Test("the MG 2018 pair, the same pair again (a refill of tables holding rows), an older generation: same exports")
    func importAndReimport() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "equal")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("mg.sqlite").path
        let inputs = ["consulta_cand_2018_MG.csv", "bem_candidato_2018_MG.csv"].map {
            sample.appendingPathComponent($0).path
        }
        for (run, step) in ["first import", "re-import"].enumerated() {
            var summaries: [String] = []
            for db in [file, url] {
                let r = try CLIRunner.run(
                    ["import", "--db", db, "--rejects", dir.appendingPathComponent("r\(run).csv").path] + inputs,
                    in: dir)
                #expect(r.code == 0, "\(step) into \(db): \(r.stderr)")
                // The summary, less the lines that name the database or the time taken.
                summaries.append(
                    r.stdout.split(separator: "\n").filter { Self.compared($0, db) }.joined(separator: "\n"))
            }
            #expect(summaries[0] == summaries[1], "\(step): the summaries differ")
            #expect(summaries[0].contains("rows: "), "the counts line is compared: \(summaries[0])")
            try expectSameExports(file, url, step)
        }
        // An older generation of the candidacies file (an earlier DT_GERACAO, other names, results where the newer
        // file has none): the same precedence on both.
        let script = """
            import sys
            src, out = sys.argv[1], sys.argv[2]
            lines = open(src, encoding='latin-1').read().split('\\n')
            head = lines[0].split(';')
            g, r, n = head.index('"DT_GERACAO"'), head.index('"DS_SIT_TOT_TURNO"'), head.index('"NM_URNA_CANDIDATO"')
            rows = [lines[0]]
            for line in lines[1:]:
                if not line: continue
                f = line.split(';')
                f[g], f[r], f[n] = '"01/08/2018"', '"SUPLENTE"', '"OLDER NAME"'
                rows.append(';'.join(f))
            open(out, 'w', encoding='latin-1').write('\\n'.join(rows) + '\\n')
            """
        let older = dir.appendingPathComponent("older.csv").path
        let made = try AnalysisFixtures.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, inputs[0], older], environment: [:],
            in: dir)
        try #require(made.code == 0, "python3 writes the older generation: \(made.stderr)")
        var summaries: [String] = []
        for db in [file, url] {
            let r = try CLIRunner.run(
                ["import", "--db", db, "--rejects", dir.appendingPathComponent("older.rejects.csv").path, older],
                in: dir)
            #expect(r.code == 0, "older generation into \(db): \(r.stderr)")
            summaries.append(
                r.stdout.split(separator: "\n").filter { Self.compared($0, db) }.joined(separator: "\n"))
        }
        #expect(summaries[0] == summaries[1], "older generation: the summaries differ")
        try expectSameExports(file, url, "older generation")
        #expect(try pg.psql("SELECT count(*) FROM \"Good\"", url: url) == "8583\n")
        // The newer generation's names stay; its unknown results (#NULO#) are filled from the older one.
        #expect(try pg.psql("SELECT count(*) FROM \"Candidate\" WHERE nickname = 'OLDER NAME'", url: url) == "0\n")
        #expect(try pg.psql("SELECT count(*) FROM \"Candidate\" WHERE result = 'SUPLENTE'", url: url) == "2388\n")
    }

    /// A summary line both backends must print alike: all but the lines naming the database or the rejects
    /// file, and the timing line ("10971 rows from 2 files in 0.84 s (13015 rows/s)").
    static func compared(_ line: Substring, _ db: String) -> Bool {
        !line.contains(db) && !line.contains("rejects")
            && line.range(of: #"in [0-9.]+ s \("#, options: .regularExpression) == nil
    }
}
