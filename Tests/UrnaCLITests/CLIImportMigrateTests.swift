import Foundation
import Testing

/// End-to-end: the built binary on the real sample files.
@Suite("urna command line: import, show, migrate")
struct CLIImportMigrateTests {
    static let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData")
    static var mgCandidates: String { sample.appendingPathComponent("consulta_cand_2018_MG.csv").path }
    static var mgAssets: String { sample.appendingPathComponent("bem_candidato_2018_MG.csv").path }

    func json(_ s: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any])
    }

    @Test("Importing the MG pair gives the independent counts; importing again changes nothing")
    func importTwice() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("mg.sqlite").path
        let first = try CLIRunner.run(["import", "--db", db, "--json", Self.mgCandidates, Self.mgAssets])
        #expect(first.code == 0, "\(first.stderr)")
        let j = try json(first.stdout)
        let inserted = try #require(j["inserted"] as? [String: Int])
        #expect(inserted["Candidate"] == 2388)
        #expect(inserted["Good"] == 8583)
        #expect(inserted["Party"] == 35)
        #expect(inserted["Coalition"] == 32)
        #expect(inserted["GoodType"] == 47)
        #expect(j["rejected"] as? Int == 0)
        #expect(first.stderr.isEmpty, "no progress when --json: \(first.stderr)")
        let second = try CLIRunner.run(["import", "--db", db, "--json", Self.mgCandidates, Self.mgAssets])
        #expect(second.code == 0)
        let k = try json(second.stdout)
        #expect((k["inserted"] as? [String: Int])?.values.allSatisfy { $0 == 0 } == true)
        #expect((k["unchanged"] as? [String: Int])?["Candidate"] == 2388)
        let count = try CLIRunner.run(["query", "--db", db, "Candidate", "vice != nil", "--count"])
        #expect(count.stdout == "9\n")
    }

    @Test("show candidate prints the ticket, the goods and their exact total")
    func showCandidate() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("mg.sqlite").path
        #expect(try CLIRunner.run(["import", "--db", db, "--quiet", Self.mgCandidates, Self.mgAssets]).code == 0)
        let r = try CLIRunner.run(["show", "--db", db, "candidate", "130000600702"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("ROMEU ZEMA"))
        #expect(r.stdout.contains("PAULO BRANT"))
        // The total, computed here independently from the raw file: sum of VR_BEM_CANDIDATO (decimal comma) in cents.
        let raw = try Data(contentsOf: URL(fileURLWithPath: Self.mgAssets))
        let text = String(decoding: raw.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
        var cents = 0
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ";", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"\r"))
            }
            guard f.count == 19, f[11] == "130000600702" else { continue }
            let parts = f[16].split(separator: ",")
            cents +=
                Int(parts[0])! * 100
                + (parts.count > 1 ? Int(parts[1].padding(toLength: 2, withPad: "0", startingAt: 0))! : 0)
        }
        #expect(cents > 0)
        var reais = String(cents / 100)
        var grouped = ""
        while reais.count > 3 {
            grouped = "." + reais.suffix(3) + grouped
            reais = String(reais.dropLast(3))
        }
        let expected = "R$ \(reais)\(grouped),\(String(format: "%02d", cents % 100))"
        #expect(r.stdout.contains("Total: \(expected)"), "expected \(expected)")
        let missing = try CLIRunner.run(["show", "--db", db, "candidate", "999"])
        #expect(missing.code != 0)
        #expect(missing.stderr.hasPrefix("Error: "))
    }

    @Test("An unrecognisable file is refused with exit 65 and the database is untouched")
    func unrecognisedFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("x.sqlite").path
        let junk = dir.appendingPathComponent("junk.csv")
        try Data("a;b;c\n1;2;3\n".utf8).write(to: junk)
        let r = try CLIRunner.run(["import", "--db", db, junk.path])
        #expect(r.code == 65)
        #expect(r.stderr.contains("junk.csv"))
        let m = try CLIRunner.run(["import", "--db", db, dir.appendingPathComponent("absent.csv").path])
        #expect(m.code == 66)
    }

    @Test(
        "An elections v5 file given to import is refused unchanged (exit 65, the version to migrate to); migrated, it imports"
    )
    func importIntoAV5FileAsksForTheMigration() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("v5.sqlite")
        try FileManager.default.copyItem(at: Self.sample.appendingPathComponent("elections-v1-seed.sqlite"), to: db)
        let toV5 = try CLIRunner.run(["migrate", "--db", db.path, "--to", "5", "--no-backup"])
        #expect(toV5.code == 0, "\(toV5.stderr)")
        let before = try Data(contentsOf: db)
        let refused = try CLIRunner.run(["import", "--db", db.path, Self.mgCandidates, Self.mgAssets])
        #expect(refused.code == 65)
        #expect(
            refused.stderr.contains(
                "is at elections version 5, made by an older urna, and this one imports into version 6: upgrade it "
                    + "with `urna migrate --db \(db.path)`"),
            "\(refused.stderr)")
        #expect(try Data(contentsOf: db) == before)
        let migrated = try CLIRunner.run(["migrate", "--db", db.path, "--no-backup"])
        #expect(migrated.code == 0, "\(migrated.stderr)")
        let imported = try CLIRunner.run(["import", "--db", db.path, "--quiet", Self.mgCandidates, Self.mgAssets])
        #expect(imported.code == 0, "\(imported.stderr)")
        // The seed's 2016 goods keep their types under 2016; MG's are 2018's.
        let years = try CLIRunner.run([
            "sql", "--db", db.path, "SELECT year, count(*) AS n FROM GoodType GROUP BY year ORDER BY year", "--csv",
        ])
        #expect(years.stdout == "year,n\n2016,4\n2018,47\n", "\(years.stderr)")
    }

    @Test("The seed's v1 file: dry run touches nothing, the real run upgrades and keeps a backup")
    func migrateSeedFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("v1.sqlite")
        try FileManager.default.copyItem(at: Self.sample.appendingPathComponent("elections-v1-seed.sqlite"), to: db)
        let before = try Data(contentsOf: db)
        let dry = try CLIRunner.run(["migrate", "--db", db.path, "--dry-run", "--json"])
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(try Data(contentsOf: db) == before)
        let wal = db.path + "-wal"
        let walBytes =
            FileManager.default.fileExists(atPath: wal) ? try Data(contentsOf: URL(fileURLWithPath: wal)).count : 0
        #expect(walBytes == 0)
        _ = try json(dry.stdout)
        let run = try CLIRunner.run(["migrate", "--db", db.path])
        #expect(run.code == 0, "\(run.stderr)")
        let status = try json(try CLIRunner.run(["status", "--db", db.path, "--json"]).stdout)
        #expect(status["version"] as? Int == 6)
        // The views came with the migration, from code: one row per good and per candidacy.
        let views = try CLIRunner.run([
            "sql", "--db", db.path,
            "SELECT (SELECT count(*) FROM goods) = (SELECT count(*) FROM Good) AND (SELECT count(*) FROM candidacies) = (SELECT count(*) FROM Candidate) AND (SELECT count(*) FROM Good) > 0 AS same",
            "--csv",
        ])
        #expect(views.stdout == "same\n1\n", "\(views.stderr)")
        let q = try CLIRunner.run([
            "query", "--db", db.path, "Candidate", "nickname == 'VANESSA PORTUGAL'", "--fields",
            "vice.nickname,party.acronym,birthState,birthCity", "--csv",
        ])
        #expect(
            q.stdout == "vice.nickname,party.acronym,birthState,birthCity\nFIRMINIA RODRIGUES,PSTU,MG,BOA ESPERANÇA\n")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(files.contains { $0.hasPrefix("v1.sqlite.v1") && $0.hasSuffix(".bak") }, "\(files)")
        let again = try CLIRunner.run(["migrate", "--db", db.path])
        #expect(again.code == 0)
        #expect(again.stdout.contains("nothing to do"))
    }
}
