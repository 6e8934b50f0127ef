import Foundation
import Testing

/// The messages issue 15 found wrong, each checked as the user sees it.
@Suite("urna messages: help, short options, hints, version")
struct CLIMessagesTests {
    @Test("urna with no arguments prints help on stdout and exits 0")
    func noArguments() throws {
        let r = try CLIRunner.run([])
        #expect(r.code == 0)
        #expect(r.stdout.hasPrefix("OVERVIEW: urna"))
        #expect(r.stdout.contains("  sql "))
        #expect(r.stderr.isEmpty)
    }

    @Test("Short options: -h, -n, -q, -o; an unknown one names the short options there are")
    func shortOptions() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let h = try CLIRunner.run(["query", "-h"])
        #expect(h.code == 0)
        #expect(h.stdout.contains("-n, --limit <N>"))
        let n = try CLIRunner.run(["query", "--db", db, "Party", "-n", "2", "--csv"])
        #expect(n.code == 0, "\(n.stderr)")
        #expect(n.stdout.split(separator: "\n").count == 3)
        #expect(!n.stderr.contains("options are spelled"))
        let out = dir.appendingPathComponent("parties.json").path
        let o = try CLIRunner.run(["export", "--db", db, "--format", "json", "--type", "Party", "-o", out, "-q"])
        #expect(o.code == 0, "\(o.stderr)")
        #expect(o.stdout.isEmpty && o.stderr.isEmpty)
        #expect(FileManager.default.fileExists(atPath: out))
        let x = try CLIRunner.run(["query", "--db", db, "Party", "-x"])
        #expect(x.code == 64)
        #expect(x.stderr.hasPrefix("Error: unknown option '-x'; short options here: -n (--limit)\n"))
    }

    @Test("Predicate hints: quote PT, quote dates, LIKE takes * and ?; --fields and --sort say did you mean")
    func predicateHints() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pt = try CLIRunner.run(["query", "--db", db, "Candidate", "party.acronym = PT", "--count"])
        #expect(pt.code == 64)
        #expect(pt.stderr.contains("Candidate has no property 'PT'; to compare with the text PT, quote it: 'PT'"))
        let date = try CLIRunner.run(["query", "--db", db, "Candidate", "birthdate > 2000-01-01", "--count"])
        #expect(date.code == 64)
        #expect(date.stderr.contains("dates and codes are text: quote them, like birthdate > '2000-01-01'"))
        let like = try CLIRunner.run(["query", "--db", db, "Candidate", "name LIKE '%lula%'", "--count"])
        #expect(like.code == 0)
        #expect(like.stdout == "0\n")
        #expect(
            like.stderr
                == "warning: LIKE takes * (any run) and ? (one character) as wildcards, not SQL's % and _, which match "
                + "themselves here: for what you probably meant, write LIKE '*lula*'\n")
        let literal = try CLIRunner.run(["query", "--db", db, "Candidate", "name LIKE '*lula*'", "--count"])
        #expect(literal.stderr.isEmpty)
        let star = try CLIRunner.run(["query", "--db", db, "Candidate", "nickname LIKE[c] '*zema*'", "--count"])
        #expect(star.code == 0)
        #expect(star.stdout == "2\n")
        let fields = try CLIRunner.run(["query", "--db", db, "Candidate", "--fields", "nicknam"])
        #expect(fields.code == 64)
        #expect(fields.stderr.contains("Candidate has no property 'nicknam'; did you mean 'nickname'?"))
        let sort = try CLIRunner.run(["query", "--db", db, "Candidate", "--sort", "nicknam"])
        #expect(sort.code == 64)
        #expect(sort.stderr.contains("did you mean 'nickname'?"))
    }

    /// A new urna.sqlite in `dir` with these SampleData files imported.
    static func imported(_ files: [String], in dir: URL) throws -> String {
        let db = dir.appendingPathComponent("urna.sqlite").path
        let i = try CLIRunner.run(
            ["import", "--db", db, "--quiet"] + files.map { AnalysisFixtures.sample.appendingPathComponent($0).path })
        #expect(i.code == 0, "\(i.stderr)")
        return db
    }

    @Test(
        "show of a candidacy in both rounds is bad usage (64) naming --election and the elections; the help example runs"
    )
    func showAmbiguous() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.imported(["consulta_cand_2018_BRASIL.zip", "consulta_cand_2018_MG.csv"], in: dir)
        let r = try CLIRunner.run(["show", "--db", db, "candidate", "130000600702"])
        #expect(r.code == 64)
        #expect(r.stderr.contains("CD_ELEICAO 297 (Eleições Gerais Estaduais 2018, round 1); "))
        #expect(r.stderr.contains("CD_ELEICAO 298 (Eleições Gerais Estaduais 2018, round 2); name one with --election"))
        let help = try CLIRunner.run(["show", "--help"])
        let examples = help.stdout.components(separatedBy: "EXAMPLES:\n").last ?? ""
        for line in examples.split(separator: "\n") {
            let args = line.trimmingCharacters(in: .whitespaces).split(separator: " ").dropFirst().map(String.init)
            let run = try CLIRunner.run(args.map { $0 == "urna.sqlite" ? db : $0 })
            #expect(run.code == 0, "\(line): \(run.stderr)")
            #expect(run.stdout.contains("Eleição") || run.stdout.contains("Eleições"), "\(line): \(run.stdout)")
        }
    }

    @Test("export --format csv warns of cells a spreadsheet would run as formulas; --spreadsheet-safe quotes them")
    func spreadsheetFormulas() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.imported(["consulta_cand_2018_MG.csv", "bem_candidato_2018_MG.csv"], in: dir)
        // One real MG 2018 good is described "+ R$203,54 - DEPÓSITO ...": a spreadsheet takes it for a formula.
        let exact = dir.appendingPathComponent("exact.csv").path
        let plain = try CLIRunner.run(["export", "--db", db, "--format", "csv", "--type", "Good", "--out", exact, "--quiet"])
        #expect(plain.code == 0)
        #expect(plain.stderr.contains("warning: 1 cell begins like a spreadsheet formula") && plain.stderr.contains("DS_BEM_CANDIDATO"), "\(plain.stderr)")
        #expect(try String(contentsOfFile: exact, encoding: .isoLatin1).contains("\";\"+ R$203,54 - "))
        let safe = dir.appendingPathComponent("safe.csv").path
        let quoted = try CLIRunner.run(["export", "--db", db, "--format", "csv", "--type", "Good", "--out", safe, "--spreadsheet-safe"])
        #expect(quoted.code == 0 && quoted.stderr.contains("1 cell that began like a spreadsheet formula was written with a leading '"), "\(quoted.stderr)")
        #expect(try String(contentsOfFile: safe, encoding: .isoLatin1).contains("\";\"'+ R$203,54 - "))
        #expect(try CLIRunner.run(["export", "--db", db, "--format", "json", "--spreadsheet-safe"]).code == 64)
        // query --csv and sql --csv warn the same way.
        let query = try CLIRunner.run(["query", "--db", db, "Good", "--csv"])
        #expect(query.code == 0 && query.stderr.contains("warning: 1 cell begins like a spreadsheet formula (first: row"), "\(query.stderr)")
        let sql = try CLIRunner.run(["sql", "--db", db, "SELECT goodDescription FROM Good WHERE goodDescription LIKE '+%'", "--csv"])
        #expect(sql.code == 0 && sql.stderr.contains("warning: 1 cell begins like a spreadsheet formula (first: row 1, column goodDescription)"), "\(sql.stderr)")
        let table = try CLIRunner.run(["sql", "--db", db, "SELECT goodDescription FROM Good WHERE goodDescription LIKE '+%'"])
        #expect(!table.stderr.contains("formula"), "tables are for reading, not for spreadsheets")
    }

    @Test("No help mentions seed 000; export --help no longer says import skips <coligacao>")
    func helpTexts() throws {
        var all = try CLIRunner.run(["--help"]).stdout
        for c in CLIBasicsTests.subcommands { all += try CLIRunner.run([c, "--help"]).stdout }
        #expect(!all.contains("seed 000"))
        #expect(!all.contains("import skips <coligacao>"))
    }

    @Test("--version is the latest release in CHANGELOG.md, or the one the Unreleased section becomes")
    func versionMatchesChangelog() throws {
        let changelog = try String(
            contentsOf: CLIRunner.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let released = changelog.split(separator: "\n").compactMap { line -> [Int]? in
            guard line.hasPrefix("## "), let word = line.dropFirst(3).split(separator: " ").first else { return nil }
            let parts = word.split(separator: ".").compactMap { Int($0) }
            return parts.count == 3 ? parts : nil
        }
        let latest = try #require(released.first)
        let r = try CLIRunner.run(["--version"])
        let shown = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").last ?? ""
        let version = shown.split(separator: ".").compactMap { Int($0) }
        #expect(version.count == 3)
        if version != latest {
            // Between releases the code carries the next version, and CHANGELOG an Unreleased section for it.
            #expect(version.lexicographicallyPrecedes(latest) == false, "\(version) is older than \(latest)")
            #expect(changelog.contains("## Unreleased"))
        }
    }

    @Test("Progress on a terminal: user words and MiB; no escape codes with TERM=dumb or NO_COLOR")
    func progressOnTerminal() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            try Test.cancel(
                Comment(rawValue: "skipped: /usr/bin/script (util-linux) is needed to give urna a terminal"))
        }
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (term, noColor, escapes) in [("xterm", "", true), ("dumb", "", false), ("xterm", "1", false)] {
            let db = dir.appendingPathComponent("p-\(term)-\(noColor).sqlite").path
            let command = [
                CLIRunner.binary.path, "import", "--db", db,
                AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
                AnalysisFixtures.sample.appendingPathComponent("bem_candidato_2018_MG.csv").path,
            ].map { "'\($0)'" }.joined(separator: " ")
            // NO_COLOR set but empty counts as unset (no-color.org); the test runner's own value is overridden.
            let env = ["TERM": term, "NO_COLOR": noColor]
            let r = try AnalysisFixtures.run(
                URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command + " >/dev/null", "/dev/null"],
                environment: env)
            #expect(r.code == 0, "\(r.stderr)")
            #expect(r.stdout.contains("MiB"), "TERM=\(term): \(r.stdout)")
            #expect(!r.stdout.contains(" MB"))
            #expect(!r.stdout.contains("heldAssets") && !r.stdout.contains("linkingVices"))
            #expect(r.stdout.contains("\u{1B}[") == escapes, "TERM=\(term) NO_COLOR=\(noColor)")
        }
    }
}
