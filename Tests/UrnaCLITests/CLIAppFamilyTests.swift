import Foundation
import Testing

/// An app's own executable (`UrnaCommandLine.main(families: [LibraryFamily.family])`, built as `library-app`)
/// gets every command for its own family, under its own name.
@Suite(.serialized) struct CLIAppFamilyTests {
    static var app: URL { CLIRunner.built("library-app") }

    /// Runs the app with `LIBRARY_APP_V5` set to pick one of its mistaken v5s (nil: the real family).
    static func app(_ args: [String], v5 mistake: String? = nil) throws -> CLIResult {
        guard let mistake else { return try CLIRunner.runProcess(app, args) }
        setenv("LIBRARY_APP_V5", mistake, 1)
        defer { unsetenv("LIBRARY_APP_V5") }
        return try CLIRunner.runProcess(app, args)
    }

    static func sqlite(_ db: String, _ sql: String) throws -> String {
        let r = try CLIRunner.runProcess(URL(fileURLWithPath: "/usr/bin/sqlite3"), [db, sql])
        guard r.code == 0 else { throw CLIFailure("sqlite3: \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A v0 library file made by the app's `init` and filled per the storage contract with SQL.
    static func v0File(_ dir: URL) throws -> String {
        let db = dir.appendingPathComponent("library.sqlite").path
        let i = try app(["init", "--db", db, "--family", "library", "--version", "0"])
        guard i.code == 0 else { throw CLIFailure("init: \(i.stderr)") }
        _ = try sqlite(
            db,
            """
            INSERT INTO Author VALUES (1, 'Ana Souza', 1970), (2, 'José Lima', NULL);
            INSERT INTO Tag VALUES ('fiction');
            INSERT INTO Book VALUES (10, 'Primeiro', 1, 12.5), (11, 'Segundo', 2, 3.0);
            INSERT INTO Book_tags VALUES (10, 0, 'fiction');
            INSERT INTO Shelf VALUES ('front');
            INSERT INTO Shelf_books VALUES ('front', 0, 11), ('front', 1, 10);
            """)
        return db
    }

    @Test("init, status, schema, query, export --format json, migrate --dry-run and migrate for the app's family")
    func everyCommandForTheAppsFamily() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.v0File(dir)
        let status = try Self.app(["status", "--db", db])
        #expect(status.code == 0, "\(status.stderr)")
        #expect(
            status.stdout.contains(
                "pending:  0 -> 1, 1 -> 2, 2 -> 3, 3 -> 4  (run: library-app migrate --db \(db) --dry-run)"),
            "\(status.stdout)")
        let schema = try Self.app(["schema", "--family", "library", "--version", "4"])
        #expect(schema.code == 0 && schema.stdout.contains("\"Biography\""), "\(schema.stderr)")
        let query = try Self.app([
            "query", "--db", db, "Author", "fullName BEGINSWITH 'Ana'", "--fields", "id,fullName",
        ])
        #expect(query.code == 0 && query.stdout.contains("Ana Souza") && !query.stdout.contains("José"), "\(query)")

        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let dry = try Self.app(["migrate", "--db", db, "--dry-run"])
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("library v0 → v4"), "\(dry.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the dry run leaves the file as it was")

        let run = try Self.app(["migrate", "--db", db])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(
            try Self.sqlite(db, "SELECT group_concat(author, ',') FROM (SELECT author FROM Book ORDER BY id)")
                == "A1,A2")
        #expect(
            try Self.sqlite(db, "SELECT group_concat(price, ',') FROM (SELECT price FROM Book ORDER BY id)")
                == "1250,300")
        #expect(try Self.sqlite(db, "SELECT id || ':' || born FROM Biography") == "A1:1970")
        let after = try Self.app(["status", "--db", db, "--json"])
        #expect(after.stdout.contains("\"version\":4") || after.stdout.contains("\"version\": 4"), "\(after.stdout)")
        #expect(
            after.stdout.contains("\"pendingSteps\":[]") || after.stdout.contains("\"pendingSteps\": []"),
            "\(after.stdout)")
        let export = try Self.app(["export", "--db", db, "--format", "json", "--type", "Author"])
        #expect(export.code == 0, "\(export.stderr)")
        #expect(export.stdout.contains("\"A1\"") && export.stdout.contains("Ana Souza"), "\(export.stdout)")
        // The app's export has no TSE defaults: --type is required (the types listed), xml/csv are not offered.
        let untyped = try Self.app(["export", "--db", db, "--format", "json"])
        #expect(untyped.code == 64 && untyped.stderr.contains("--type is required: one of Author"), "\(untyped.stderr)")
        let xml = try Self.app(["export", "--db", db, "--format", "xml", "--type", "Author"])
        #expect(xml.code == 64 && xml.stderr.contains("--format takes json, not 'xml'"), "\(xml.stderr)")
        #expect(!xml.stderr.contains("TSE"), "\(xml.stderr)")
        let help = try Self.app(["export", "--help"])
        #expect(!help.stdout.contains("candidato") && !help.stdout.contains("Latin-1"), "\(help.stdout)")
        #expect(help.stdout.contains("library-app export"), "\(help.stdout)")
    }

    @Test("--allow-loss naming no type or property of any version is refused, with the likely name")
    func misspeltAllowanceIsRefused() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.v0File(dir)
        let r = try Self.app(["migrate", "--db", db, "--allow-loss", "Book.titel"])
        #expect(r.code == 64, "\(r.stderr)")
        #expect(
            r.stderr.contains("--allow-loss Book.titel names no type or property")
                && r.stderr.contains("did you mean Book.title?"), "\(r.stderr)")
        #expect(try Self.app(["migrate", "--db", db, "--allow-loss", "Author.fullName", "--dry-run"]).code == 0)
    }

    @Test("the app's help is about its own families: no TSE commands or text, no examples of urna's families")
    func appHelpIsTheAppsOwn() throws {
        let help = try Self.app(["--help"])
        #expect(help.code == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: library-app — the data of library"), "\(help.stdout)")
        for word in ["TSE", "  import ", "  show ", "  download "] {
            #expect(!help.stdout.contains(word), "\(word): \(help.stdout)")
        }
        let initHelp = try Self.app(["init", "--help"]).stdout
        #expect(initHelp.contains("library-app init --db library.sqlite --family library"), "\(initHelp)")
        #expect(!initHelp.contains("people") && !initHelp.contains("elections"), "\(initHelp)")
        let tseCommand = try Self.app(["import", "x.csv"])
        #expect(tseCommand.code == 64, "\(tseCommand.stderr)")
        // urna itself keeps its TSE commands and examples.
        let urna = try CLIRunner.run(["init", "--help"]).stdout
        #expect(urna.contains("--family elections") && urna.contains("--family people"), "\(urna)")
    }

    @Test("urna on an app's file: the family is unknown to urna, never 'pending: none', never 'use a newer urna'")
    func urnaDoesNotKnowTheAppsFamily() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.v0File(dir)
        let status = try CLIRunner.run(["status", "--db", db])
        #expect(status.code == 0, "\(status.stderr)")
        #expect(status.stdout.contains("family:   library (family unknown to urna)"), "\(status.stdout)")
        #expect(status.stdout.hasPrefix("file:     \(db)\n"), "labels and values line up: \(status.stdout)")
        #expect(!status.stdout.contains("pending:  none"), "\(status.stdout)")
        #expect(status.stdout.contains("pending:  unknown"), "\(status.stdout)")
        for args in [["migrate", "--db", db], ["migrate", "--db", db, "--dry-run"]] {
            let m = try CLIRunner.run(args)
            #expect(m.code == 65, "\(m.stderr)")
            #expect(m.stderr.contains("'library'") && m.stderr.contains("urna does not know"), "\(m.stderr)")
            #expect(!m.stderr.contains("newer urna"), "\(m.stderr)")
        }
    }

    @Test("A v5 with a typo, a case change or a required property without default is refused; names stay")
    func lossesAreRefusedUntilAllowed() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Self.v0File(dir)
        #expect(try Self.app(["migrate", "--db", db, "--no-backup"]).code == 0)
        let names = "Ana Souza,José Lima"
        let expected: [(String, String)] = [
            ("typo", "--allow-loss Author.name"), ("case", "differs from it only in case"),
            ("required", "--allow-loss Book.isbn"),
        ]
        for (mistake, needle) in expected {
            for args in [["migrate", "--db", db], ["migrate", "--db", db, "--dry-run"]] {
                let r = try Self.app(args, v5: mistake)
                #expect(r.code == 65, "\(mistake): \(r.stderr)")
                #expect(r.stderr.contains(needle), "\(mistake): \(r.stderr)")
            }
            #expect(
                try Self.sqlite(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM Author ORDER BY id)")
                    == names)
            #expect(try Self.sqlite(db, "PRAGMA user_version") == "4")
        }
        let allowed = try Self.app(["migrate", "--db", db, "--allow-loss", "Book.isbn"], v5: "required")
        #expect(allowed.code == 0, "\(allowed.stderr)")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM Book WHERE isbn = ''") == "2")
    }

    @Test("urna adopt of a plain Person(firstName, lastName, age) file, then urna migrate")
    func adoptThenMigrate() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("plain.sqlite").path
        _ = try Self.sqlite(
            db,
            """
            CREATE TABLE "Person" ("_id" INTEGER PRIMARY KEY, "firstName" TEXT NOT NULL DEFAULT '',
              "lastName" TEXT NOT NULL DEFAULT '', "age" INTEGER NOT NULL DEFAULT 0);
            INSERT INTO Person (firstName, lastName, age) VALUES ('Ana', 'Souza', 30), ('José', 'Lima', 41);
            """)
        let adopt = try CLIRunner.run(["adopt", "--db", db, "--family", "people", "--version", "0"])
        #expect(adopt.code == 0, "\(adopt.stderr)")
        #expect(
            adopt.stdout.hasPrefix("adopted \(db): people version 0 (Person 2); no row was changed"), "\(adopt.stdout)")
        let migrate = try CLIRunner.run(["migrate", "--db", db])
        #expect(migrate.code == 0, "\(migrate.stderr)")
        #expect(
            try Self.sqlite(db, "SELECT group_concat(fullName, ',') FROM (SELECT fullName FROM Person ORDER BY _id)")
                == "Ana Souza,José Lima")

        let other = dir.appendingPathComponent("other.sqlite").path
        _ = try Self.sqlite(
            other,
            "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); INSERT INTO Person VALUES ('Ana', NULL, 1)"
        )
        let refused = try CLIRunner.run(["adopt", "--db", other, "--family", "people", "--version", "0"])
        #expect(refused.code == 65, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "Person (rowid 1): lastName is NULL; the contract needs a value (lastName TEXT NOT NULL DEFAULT '')"),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("`urna schema --family people --version 0`"), "\(refused.stderr)")
    }

    @Test("urna adopt of a PLAIN Person(firstName, lastName, age) table: dry run, rebuild, migrate")
    func adoptPlainTableThenMigrate() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.sqlite").path
        _ = try Self.sqlite(
            db,
            """
            CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER);
            INSERT INTO Person VALUES ('Ana', 'Souza', 30), ('José', 'Lima', 41);
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let preview = try CLIRunner.run(["adopt", "--db", db, "--family", "people", "--version", "0", "--dry-run"])
        #expect(preview.code == 0, "\(preview.stderr)")
        #expect(
            preview.stdout.hasPrefix(
                "would adopt \(db): people version 0 (Person 2); would rebuild into the storage contract: Person (2 rows kept)\n  Person: column _id is missing"
            ), "\(preview.stdout)")
        #expect(preview.stdout.contains("dry run: \(db) was not changed"), "\(preview.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "the dry run did not touch the file")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE '_urna%'") == "0")

        let adopt = try CLIRunner.run(["adopt", "--db", db, "--family", "people", "--version", "0", "--json"])
        #expect(adopt.code == 0, "\(adopt.stderr)")
        #expect(adopt.stdout.contains("\"rebuilt\":{\"Person\":2}"), "\(adopt.stdout)")
        let migrate = try CLIRunner.run(["migrate", "--db", db])
        #expect(migrate.code == 0, "\(migrate.stderr)")
        let query = try CLIRunner.run(["query", "--db", db, "Person", "--sort", "age", "--fields", "fullName", "--csv"])
        #expect(query.code == 0, "\(query.stderr)")
        #expect(
            query.stdout.split(separator: "\n").dropFirst().joined(separator: ",") == "Ana Souza,José Lima",
            "\(query.stdout)")
        #expect(
            try Self.sqlite(db, "SELECT group_concat(fullName, ',') FROM (SELECT fullName FROM Person ORDER BY _id)")
                == "Ana Souza,José Lima")
    }
}

/// An app that squashed its history: older files get the app's advice from migrate, dry run and status.
@Suite struct CLISquashedFamilyTests {
    @Test("a file older than the squashed baseline is refused with the app's advice")
    func olderFileGetsTheAdvice() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try CLIAppFamilyTests.v0File(dir)
        let squashed = ["LIBRARY_APP_SQUASHED": "1"]
        let advice = "open it once with library-app 1.x, which upgrades it to version 3, then run this one"
        for args in [["migrate", "--db", db], ["migrate", "--db", db, "--dry-run"]] {
            let r = try AnalysisFixtures.run(CLIAppFamilyTests.app, args, environment: squashed)
            #expect(r.code == 65, "\(r.stderr)")
            #expect(
                r.stderr.contains("is at library version 0, older than version 3, the oldest library-app upgrades"),
                "\(r.stderr)")
            #expect(r.stderr.contains(advice) && !r.stderr.contains("has no version"), "\(r.stderr)")
        }
        let status = try AnalysisFixtures.run(CLIAppFamilyTests.app, ["status", "--db", db], environment: squashed)
        #expect(status.code == 0, "\(status.stderr)")
        #expect(
            status.stdout.contains(
                "pending:  none here: version 0 is older than 3, the oldest library-app upgrades; \(advice)"),
            "\(status.stdout)")
        #expect(try CLIAppFamilyTests.sqlite(db, "PRAGMA user_version") == "0")
    }
}
