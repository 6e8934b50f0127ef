import Foundation
import Testing
import UrnaStore

/// What a new user's trial of README and help found: each mistake a user makes gets a message naming what was
/// wrong and the fix, with the documented exit code; help's own examples run and print rows.
@Suite("urna new-user trial: mistakes, help examples", .serialized)
struct CLINewUserTrialTests {
    @Test("urna help NAME and options before a subcommand: exit 64, naming what is unknown, did you mean")
    func unknownNamesAtTheTop() throws {
        let help = try CLIRunner.run(["help", "qeury"])
        #expect(help.code == 64)
        #expect(help.stdout.isEmpty)
        #expect(help.stderr.hasPrefix("Error: unknown subcommand 'qeury'; did you mean 'query'?\n"))
        let known = try CLIRunner.run(["help", "query"])
        #expect(known.code == 0)
        #expect(known.stdout.hasPrefix("OVERVIEW: Print the objects of one type"))
        let version = try CLIRunner.run(["--verison"])
        #expect(version.code == 64)
        #expect(version.stderr.hasPrefix("Error: unknown option '--verison'; did you mean '--version'?\n"))
        let v = try CLIRunner.run(["-v"])
        #expect(v.code == 64)
        #expect(
            v.stderr.hasPrefix(
                "Error: unknown option '-v'; before a subcommand there are only -h (--help) and --version"))
    }

    @Test("-h after -- is an argument (a file named -h), not a request for help")
    func helpAfterDoubleDash() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(["import", "--db", "x.sqlite", "--", "-h"], in: dir)
        #expect(r.code == 66)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("Error: -h: no such file"))
        let before = try CLIRunner.run(["import", "-h", "--", "x"], in: dir)
        #expect(before.code == 0)
        #expect(before.stdout.hasPrefix("OVERVIEW: Import TSE"))
    }

    @Test("--allow-loss A B: the second value is named with the one-value-each-time rule; help says ...")
    func repeatableOptionTakesOneValue() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(["migrate", "--db", "old.sqlite", "--allow-loss", "Good.x", "Party.y"], in: dir)
        #expect(r.code == 64)
        #expect(
            r.stderr.hasPrefix(
                "Error: unexpected argument 'Party.y': --allow-loss takes one value each time, so write --allow-loss Party.y\n"
            ))
        let help = try CLIRunner.run(["migrate", "--help"])
        #expect(help.stdout.contains("[--allow-loss TYPE.PROPERTY]... [--vacuum]"))
        let sql = try CLIRunner.run(["sql", "--db", "none.sqlite", "--param", "a=1", "b=2", "SELECT :a"], in: dir)
        #expect(sql.code == 64)
        #expect(
            sql.stderr.hasPrefix(
                "Error: unexpected argument 'b=2': --param takes one value each time, so write --param b=2\n"))
        // An unquoted predicate or statement arrives as words: quote it whole.
        let words = try CLIRunner.run(["query", "--db", "none.sqlite", "Candidate", "state", "==", "MG"], in: dir)
        #expect(words.code == 64)
        #expect(
            words.stderr.hasPrefix(
                "Error: unexpected argument '==': the PREDICATE is one argument, so quote it whole: \"state == MG\"\n"))
        let statement = try CLIRunner.run(["sql", "--db", "none.sqlite", "SELECT", "1"], in: dir)
        #expect(
            statement.stderr.hasPrefix(
                "Error: unexpected argument '1': the SQL is one argument, so quote it whole: \"SELECT 1\"\n"))
    }

    @Test("urna sql: a misspelt table or column gets did you mean (tables listed); others keep SQLite's words")
    func sqlNameHints() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = try CLIRunner.run(["sql", "--db", db, "SELECT * FROM Parti"])
        #expect(table.code == 64)
        #expect(table.stderr.hasPrefix("Error: bad SQL: no such table: Parti; did you mean 'Party'? (the file has: "))
        #expect(table.stderr.contains("Good, GoodType, Party, candidacies"))
        #expect(!table.stderr.contains("_urna_"))
        let far = try CLIRunner.run(["sql", "--db", db, "SELECT * FROM xyz"])
        #expect(far.code == 64)
        #expect(far.stderr.hasPrefix("Error: bad SQL: no such table: xyz (the file has: Candidate,"))
        // A file of many tables names 20 and counts the rest (5,000 tables made a 140 KB message).
        let many = dir.appendingPathComponent("many.sqlite").path
        try FileManager.default.copyItem(atPath: db, toPath: many)
        let c = try Connection(path: many, create: false)
        try c.execute("BEGIN")
        for i in 0..<500 { try c.execute("CREATE TABLE extra\(i)(x)") }
        try c.execute("COMMIT")
        let crowded = try CLIRunner.run(["sql", "--db", many, "SELECT * FROM Partx"])
        #expect(crowded.code == 64)
        #expect(crowded.stderr.contains(", and 491 more)"), "\(crowded.stderr)")
        #expect(crowded.stderr.utf8.count < 2_000, "\(crowded.stderr.utf8.count) bytes")
        let column = try CLIRunner.run(["sql", "--db", db, "SELECT p.acronim FROM Party p"])
        #expect(column.code == 64)
        #expect(column.stderr.hasPrefix("Error: bad SQL at 8: no such column: p.acronim; did you mean 'acronym'?\n"))
        let view = try CLIRunner.run(["sql", "--db", db, "SELECT SG_PARTDO FROM candidacies"])
        #expect(view.stderr.hasPrefix("Error: bad SQL at 8: no such column: SG_PARTDO; did you mean 'SG_PARTIDO'?\n"))
        let syntax = try CLIRunner.run(["sql", "--db", db, "SELEC 1"])
        #expect(syntax.stderr.hasPrefix("Error: bad SQL at 1: near \"SELEC\": syntax error\n"))
    }

    @Test("restore --from a backup that does not exist: exit 66, naming the backups' names, not init")
    func restoreFromMissingBackup() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(
            try CLIRunner.run(["init", "--db", "p.sqlite", "--family", "people", "--version", "0"], in: dir).code == 0)
        let before = try Data(contentsOf: dir.appendingPathComponent("p.sqlite"))
        let r = try CLIRunner.run(["restore", "--db", "p.sqlite", "--from", "nope.bak"], in: dir)
        #expect(r.code == 66)
        #expect(
            r.stderr
                == "Error: --from nope.bak does not exist: give the path of a backup (urna migrate keeps one beside the "
                + "file as p.sqlite.v<N>.bak), or leave --from out to use the newest one there; nothing was changed\n")
        #expect(try Data(contentsOf: dir.appendingPathComponent("p.sqlite")) == before)
        #expect(
            try CLIRunner.run(["restore", "--help"]).stdout.contains("USAGE: urna restore [--db PATH] [--from BACKUP]"))
    }

    @Test("download --state with no member for it: exit 65 and the message, never CLIError(...)")
    func downloadNoMemberForState() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try AnalysisFixtures.run(
            CLIRunner.binary,
            ["download", "2018", "--state", "SP", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path],
            environment: AnalysisFixtures.loopbackEnvironment)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "Error: consulta_cand_2018.zip has no member for SP; leave --state out to keep the whole zip\n"))
        #expect(!r.stderr.contains("CLIError"))
        #expect(r.stdout.isEmpty)
    }

    @Test("Every example in sql, query and status help runs on README's urna.sqlite and prints rows")
    func helpExamplesRun() throws {
        let dir = try ReadmeExampleCommandsTests.folderAsMakeRunLeavesIt()
        defer { try? FileManager.default.removeItem(at: dir) }
        var environment = AnalysisFixtures.loopbackEnvironment
        environment["PATH"] =
            CLIRunner.binary.deletingLastPathComponent().path + ":"
            + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        var ran = 0
        // (show's examples need the national file: CLIMessagesTests runs them.)
        for command in ["sql", "query", "status"] {
            let help = try CLIRunner.run([command, "--help"])
            let examples =
                help.stdout.components(separatedBy: "\nEXAMPLES:\n").last?.split(separator: "\n")
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("urna \(command) ") } ?? []
            #expect(!examples.isEmpty, "\(command) --help shows no example")
            for example in examples where !example.contains("old.sqlite") {
                // Examples without --db use urna.sqlite here, the file README's examples start from.
                let r = try AnalysisFixtures.run(
                    URL(fileURLWithPath: "/bin/bash"), ["-c", example], environment: environment, in: dir)
                ran += 1
                #expect(r.code == 0, "\(example)\n\(r.stderr)")
                // A header and at least one row (or the one number of --count, or a card).
                let lines = r.stdout.split(separator: "\n")
                #expect(
                    lines.count >= (example.contains("--count") ? 1 : 2), "\(example) printed no rows:\n\(r.stdout)")
                #expect(!r.stderr.hasPrefix("0 "), "\(example): \(r.stderr)")
            }
        }
        #expect(ran >= 7)
    }

    @Test(
        "init into a folder that does not exist says so (not 'cannot be written'); restore without backups says --from")
    func missingFolderAndBackup() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let initialized = try CLIRunner.run(["init", "--db", "nodir/x.sqlite", "--family", "people"], in: dir)
        #expect(initialized.code == 1)
        #expect(
            initialized.stderr
                == "Error: cannot create nodir/x.sqlite: the folder nodir does not exist; create it (mkdir -p nodir) "
                + "or give another --db PATH; nothing was changed\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("nodir").path))
        #expect(try CLIRunner.run(["init", "--db", "p.sqlite", "--family", "people"], in: dir).code == 0)
        let restored = try CLIRunner.run(["restore", "--db", "p.sqlite"], in: dir)
        #expect(restored.code == 66)
        #expect(
            restored.stderr
                == "Error: no backup of p.sqlite was found beside it (urna migrate keeps one there as p.sqlite.v<N>.bak, "
                + "unless --no-backup): give one with --from BACKUP; nothing was changed\n")
    }

    @Test("urna alone shows examples; an app's overview shows its own family's, never urna's files")
    func overviewExamples() throws {
        let r = try CLIRunner.run([])
        #expect(r.stdout.contains("\nEXAMPLES:\n  urna import --db urna.sqlite SampleData/consulta_cand_2018_MG.csv"))
        let app = try CLIRunner.runProcess(CLIRunner.built("library-app"), [])
        #expect(app.code == 0)
        #expect(app.stdout.contains("\nEXAMPLES:\n  library-app init --db library.sqlite --family library\n"))
        #expect(!app.stdout.contains("urna import") && !app.stdout.contains("SampleData"))
    }

    @Test("A table of the user's own (urna sql --write allows it) stops an import with a message that says so")
    func importRefusesOwnTablesSayingSo() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let legends = AnalysisFixtures.sample.appendingPathComponent("consulta_legendas_2016_AC.txt").path
        #expect(try CLIRunner.run(["import", "--db", "w.sqlite", "--quiet", legends], in: dir).code == 0)
        let created = try CLIRunner.run(["sql", "--db", "w.sqlite", "--write", "CREATE TABLE notes (x)"], in: dir)
        #expect(created.code == 0, "\(created.stderr)")
        let r = try CLIRunner.run(["import", "--db", "w.sqlite", legends], in: dir)
        #expect(r.code == 65)
        #expect(
            r.stderr
                == "Error: w.sqlite: the file holds tables that are not urna's (notes), and an import refuses such a "
                + "file; nothing was imported: move them to another file (sqlite3's .dump), drop them if you do not "
                + "need them (sqlite3 w.sqlite 'DROP TABLE \"notes\"'), or import into a new --db\n")
        #expect(!r.stderr.contains("restore the file from a backup"))
        // Dropped as the message says, the import runs.
        #expect(try CLIRunner.run(["sql", "--db", "w.sqlite", "--write", "DROP TABLE notes"], in: dir).code == 0)
        #expect(try CLIRunner.run(["import", "--db", "w.sqlite", "--quiet", legends], in: dir).code == 0)
    }
}
