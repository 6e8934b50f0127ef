import Foundation
import Testing

@Suite("urna command line: basics")
struct CLIBasicsTests {
    static let subcommands = [
        "init", "status", "query", "sql", "schema", "import", "show", "migrate", "export", "adopt", "restore",
        "download", "datasette-metadata", "copy", "completion",
    ]

    @Test("--help lists every subcommand and exits 0")
    func help() throws {
        let r = try CLIRunner.run(["--help"])
        #expect(r.code == 0)
        for c in Self.subcommands { #expect(r.stdout.contains("  \(c) "), "missing \(c) in --help") }
        #expect(r.stdout.contains("Exit codes: 0 ok, 1 failure, 64 bad usage, 65 bad data, 66 missing input."))
    }

    @Test("Every subcommand has help in the fixed layout and is documented in README")
    func everySubcommandDocumented() throws {
        let readme = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for c in Self.subcommands {
            let r = try CLIRunner.run([c, "--help"])
            #expect(r.code == 0)
            #expect(r.stdout.hasPrefix("OVERVIEW: "), "\(c) --help")
            #expect(r.stdout.contains("\nUSAGE: urna \(c)"), "\(c) --help")
            #expect(r.stdout.contains("\nOPTIONS:\n"), "\(c) --help")
            #expect(readme.contains("urna \(c)"), "README does not document `urna \(c)`")
        }
    }

    @Test("Bad usage exits 64 with a hint")
    func badUsage() throws {
        let r = try CLIRunner.run(["qurey"])
        #expect(r.code == 64)
        #expect(r.stderr.contains("Error: unknown subcommand 'qurey'; did you mean 'query'?"))
        let o = try CLIRunner.run(["status", "--jsn"])
        #expect(o.code == 64)
        #expect(o.stderr.contains("unknown option '--jsn'; did you mean '--json'?"))
        #expect(o.stderr.contains("Usage: urna status"))
        #expect(try CLIRunner.run(["status", "--db"]).code == 64)
    }

    @Test("--version prints the version")
    func version() throws {
        let r = try CLIRunner.run(["--version"])
        #expect(r.code == 0)
        #expect(r.stdout.hasPrefix("urna "))
    }

    @Test("A missing database exits 66")
    func missingDatabase() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(["status", "--db", dir.appendingPathComponent("nope.sqlite").path])
        #expect(r.code == 66)
        #expect(r.stderr.contains("nope.sqlite does not exist"))
        #expect(r.stdout.isEmpty)
    }

    @Test("init makes elections files with the importer's 16 KiB pages, other families with SQLite's default")
    func initPageSizes() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let elections = dir.appendingPathComponent("tse.sqlite").path
        let people = dir.appendingPathComponent("people.sqlite").path
        #expect(try CLIRunner.run(["init", "--db", elections, "--family", "elections"]).code == 0)
        #expect(try CLIRunner.run(["init", "--db", people, "--family", "people"]).code == 0)
        #expect(try Shell.run("sqlite3", [elections, "PRAGMA page_size"]).stdout == "16384\n")
        #expect(try Shell.run("sqlite3", [people, "PRAGMA page_size"]).stdout == "4096\n")
    }

    @Test("init, status and query on the people family")
    func initStatusQuery() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.sqlite").path
        let i = try CLIRunner.run(["init", "--db", db, "--family", "people"])
        #expect(i.code == 0, "\(i.stderr)")
        #expect(try CLIRunner.run(["init", "--db", db, "--family", "people"]).code == 1)
        let s = try CLIRunner.run(["status", "--db", db, "--json"])
        #expect(s.code == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])
        #expect(json["family"] as? String == "people")
        #expect(json["version"] as? Int == 2)
        #expect((json["counts"] as? [String: Int])?["Person"] == 0)
        let c = try CLIRunner.run(["query", "--db", db, "Person", "age > 3", "--count"])
        #expect(c.code == 0)
        #expect(c.stdout == "0\n")
        let bad = try CLIRunner.run(["query", "--db", db, "Person", "age >"])
        #expect(bad.code == 64)
        #expect(bad.stderr.contains("at "))
        let unknown = try CLIRunner.run(["query", "--db", db, "Persn"])
        #expect(unknown.code == 64)
        #expect(unknown.stderr.contains("did you mean 'Person'?"))
        // Values never become SQL: an injection attempt matches nothing and the table survives.
        let inj = try CLIRunner.run([
            "query", "--db", db, "Person", "fullName == '\"; DROP TABLE Person; --'", "--count",
        ])
        #expect(inj.code == 0)
        #expect(inj.stdout == "0\n")
        #expect(try CLIRunner.run(["query", "--db", db, "Person", "--count"]).code == 0)
    }
}
