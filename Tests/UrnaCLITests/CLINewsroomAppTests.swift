import Foundation
import Testing

/// The newsroom app (issue 14's sixth trial: `UrnaCommandLine.main(families: [NewsroomFamily.family], toolName:
/// "newsroom-app", appVersion: "6.0")`, with its own `seed` command): files the app wrote at v0 and v3 (edge
/// values, a 3 MB photo, its FTS5 index and triggers) migrated through the app's executable equal a v6 file the app
/// writes directly; the help of every command is about the app, not about urna's elections.
@Suite(.serialized) struct CLINewsroomAppTests {
    static var app: URL { CLIRunner.built("newsroom-app") }

    static func run(_ args: [String]) throws -> CLIResult { try CLIRunner.runProcess(app, args) }

    /// Every row of the file's tables (the app's search index included, urna's ledger and timestamps left out).
    static func rows(_ db: String) throws -> String {
        let tables = try CLIAppFamilyTests.sqlite(
            db,
            "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                + "LIKE 'sqlite%' AND name NOT LIKE '\\_urna%' ESCAPE '\\' AND name NOT LIKE 'story\\_fts\\_%' "
                + "ESCAPE '\\' ORDER BY name)")
        var out = ""
        for t in tables.split(separator: " ") {
            // quote() keeps blobs (as hex), reals at full precision and NULL apart from ''.
            let columns = try CLIAppFamilyTests.sqlite(
                db, "SELECT group_concat('quote(\"' || name || '\")', ' || ''|'' || ') FROM pragma_table_info('\(t)')")
            out += "\(t):\n" + (try CLIAppFamilyTests.sqlite(db, "SELECT \(columns) AS r FROM \"\(t)\" ORDER BY r"))
        }
        return out + (try CLIAppFamilyTests.sqlite(db, "SELECT family, version, descriptor FROM _urna_schema"))
    }

    @Test("seed at v0 and v3, dry run (file untouched), migrate: equal to the app's own v6 file, search kept")
    func migratedThroughTheAppEqualsAFreshV6() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for origin in [0, 3] {
            let db = dir.appendingPathComponent("v\(origin).sqlite").path
            let expected = dir.appendingPathComponent("expected\(origin).sqlite").path
            #expect(try Self.run(["seed", "--db", db, "--version", "\(origin)"]).code == 0)
            #expect(try Self.run(["seed", "--db", expected, "--version", "6", "--origin", "\(origin)"]).code == 0)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
            let dry = try Self.run(["migrate", "--db", db, "--dry-run"])
            #expect(dry.code == 0 && dry.stdout.contains("the upgrade would succeed"), "\(dry.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
            let migrate = try Self.run(["migrate", "--db", db])
            #expect(migrate.code == 0, "\(migrate.stderr)")
            #expect(try Self.rows(db) == Self.rows(expected), "from v\(origin)")
            let found = try CLIAppFamilyTests.sqlite(
                db, "SELECT group_concat(slug, ' ') FROM story_fts WHERE story_fts MATCH 'economia'")
            #expect(found == "story-6", "\(found)")
            let status = try Self.run(["status", "--db", db])
            #expect(status.stdout.contains("version:  6 (latest 6)"), "\(status.stdout)")
        }
    }

    @Test("every command's help names the app and none of urna's elections types or TSE text")
    func helpIsTheApps() throws {
        for command in [
            "init", "status", "query", "sql", "schema", "migrate", "export", "adopt", "restore", "datasette-metadata",
            "copy", "completion",
        ] {
            let help = try Self.run([command, "--help"])
            #expect(help.code == 0, "\(command): \(help.stderr)")
            #expect(help.stdout.contains("newsroom-app \(command)"), "\(command): \(help.stdout)")
            for word in [
                "Good", "Candidate", "Party", "generations", "TSE", "candidat", "elections", "urna \(command)",
            ] {
                #expect(!help.stdout.contains(word), "\(command) --help says '\(word)': \(help.stdout)")
            }
        }
    }

    @Test("datasette-metadata of an app's file: titled by the app, no TSE source, no BRL money, no TSE dates")
    func datasetteMetadataIsTheApps() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("news.sqlite").path
        #expect(try Self.run(["seed", "--db", db, "--version", "6", "--origin", "6"]).code == 0)
        let r = try Self.run(["datasette-metadata", "--db", db])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix(#"{"title":"newsroom-app: news","databases""#), "\(r.stdout)")
        for word in ["TSE", "BRL", "reais", "dadosabertos", "Urna"] {
            #expect(!r.stdout.contains(word), "'\(word)': \(r.stdout)")
        }
        #expect(r.stdout.contains(#""fee":"exact decimal stored as an integer scaled by 10^2""#), "\(r.stdout)")
    }
}
