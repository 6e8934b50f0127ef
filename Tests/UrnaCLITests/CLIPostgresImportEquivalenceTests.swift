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

    @Test("the MG 2018 pair, then the same pair again (a refill of tables that already hold rows): same exports")
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
                    r.stdout.split(separator: "\n").filter {
                        !$0.contains(db) && !$0.contains(" s") && !$0.contains("rejects")
                    }.joined(separator: "\n"))
            }
            #expect(summaries[0] == summaries[1], "\(step): the summaries differ")
            #expect(!summaries[0].isEmpty)
            try expectSameExports(file, url, step)
        }
        #expect(try pg.psql("SELECT count(*) FROM \"Good\"", url: url) == "8583\n")
    }
}
