import Foundation
import Testing

/// The fieldwork app (issue 14's fourth trial: `UrnaCommandLine.main(families: [FieldworkFamily.family], toolName:
/// "fieldwork-app", appVersion: "2.1")`): a file filled with plain SQL through every command, and the app's name
/// in its messages and help.
@Suite(.serialized) struct CLIFieldworkAppTests {
    static var app: URL { CLIRunner.built("fieldwork-app") }

    static func run(_ args: [String]) throws -> CLIResult { try CLIRunner.runProcess(app, args) }

    /// Every row of every table but the ledger, for comparing a file before and after.
    static func rows(_ db: String) throws -> String {
        let tables = try CLIAppFamilyTests.sqlite(
            db, "SELECT group_concat(name, ' ') FROM sqlite_master WHERE type = 'table' AND name != '_urna_history'")
        return try tables.split(separator: " ").map { t in
            try CLIAppFamilyTests.sqlite(db, "SELECT '\(t)', * FROM \"\(t)\" ORDER BY 2, 3")
        }.joined(separator: "\n")
    }

    @Test("dry run leaves the file; migrate keeps every value; status, export, restore give the file back")
    func theFieldworkAppsCommands() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fieldwork.sqlite").path
        #expect(try Self.run(["init", "--db", db, "--family", "fieldwork", "--version", "0"]).code == 0)
        _ = try CLIAppFamilyTests.sqlite(
            db,
            """
            INSERT INTO Observer VALUES ('Ana', 'Ana Lúcia', 'ana@x.org'), ('bruno', 'Bruno', NULL);
            INSERT INTO Site VALUES ('5f0c1f4e-8f3b-4c8e-9d2a-111111111111', 'S1', 'Mata', '{"lat":-23.5,"lon":-46.6}',
              812, 'forest', '2017-07-14T02:40:00.000Z'),
              ('5f0c1f4e-8f3b-4c8e-9d2a-333333333333', 'S3', 'Duna', NULL, NULL, 'dune', NULL);
            INSERT INTO Visit VALUES (1, '5f0c1f4e-8f3b-4c8e-9d2a-111111111111', '2024-01-02T10:00:00.000Z', 'sol',
              x'00ff10', 1250), (2, NULL, NULL, NULL, NULL, 99);
            INSERT INTO Visit_observers VALUES (1, 0, 'bruno'), (1, 1, 'Ana');
            INSERT INTO Sample VALUES ('S-1', 1, 'soil', 12, 1125), ('S-2', NULL, 'water', 7, NULL);
            INSERT INTO Tag (label, visit) VALUES ('wet', 1);
            CREATE UNIQUE INDEX my_site_code ON Site(code);
            """)
        let before = try Self.rows(db)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        let dry = try Self.run(["migrate", "--db", db, "--dry-run"])
        #expect(dry.code == 0 && dry.stdout.contains("the upgrade would succeed"), "\(dry.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes)
        let migrate = try Self.run(["migrate", "--db", db])
        #expect(migrate.code == 0, "\(migrate.stderr)")
        #expect(
            try CLIAppFamilyTests.sqlite(
                db, "SELECT group_concat(id || ':' || name || ':' || email, ' ') FROM Observer")
                == "ana:Ana Lúcia:ana@x.org bruno:Bruno:")
        #expect(
            try CLIAppFamilyTests.sqlite(
                db, "SELECT group_concat(code || ':' || name || ':' || coalesce(elevation, '-'), ' ') FROM Site")
                == "S1:Mata:812.0 S3:Duna (dune):-")
        #expect(
            try CLIAppFamilyTests.sqlite(
                db,
                "SELECT group_concat(id || ':' || hex(coalesce(photo, '')) || ':' || cost || ':' || quote(weather) || ':' || coalesce(habitat, '-'), ' ') FROM Visit"
            ) == "1:00FF10:1250:'sol':forest 2::99:'':-")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT group_concat(owner || '>' || target) FROM Visit_team") == "1>bruno"
        )
        #expect(
            try CLIAppFamilyTests.sqlite(
                db, "SELECT group_concat(id || ':' || depth || ':' || coalesce(mass, '-'), ' ') FROM Specimen")
                == "S-1:12.0:1125 S-2:7.0:-")
        #expect(
            try CLIAppFamilyTests.sqlite(db, "SELECT count(*) FROM sqlite_master WHERE name = 'my_site_code'") == "1")
        #expect(try Self.run(["status", "--db", db]).stdout.contains("pending:  none"))
        let export = try Self.run(["export", "--db", db, "--format", "json", "--type", "Specimen"])
        #expect(export.stdout.contains(#""mass":1.125"#), "\(export.stdout)")
        let restore = try Self.run(["restore", "--db", db])
        #expect(restore.code == 0, "\(restore.stderr)")
        #expect(try Self.rows(db) == before)
    }

    /// Messages and help said `urna` where the app's own name belongs: "create it with `urna init` or `urna
    /// import`" (an app has no import), "urna sql is read-only", help's "use `urna sql`" and "see `urna schema`",
    /// and `sql --help` listed the elections tables (Candidate, Party, ...).
    @Test func messagesAndHelpNameTheApp() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("fieldwork.sqlite").path
        let missing = try Self.run(["status", "--db", db])
        #expect(missing.code == 66)
        #expect(missing.stderr.contains("create it with `fieldwork-app init`"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("import"))
        #expect(try Self.run(["init", "--db", db, "--family", "fieldwork"]).code == 0)
        let write = try Self.run(["sql", "--db", db, "DELETE FROM Site"])
        #expect(write.code == 64)
        #expect(write.stderr.contains("fieldwork-app sql is read-only"), "\(write.stderr)")
        for command in ["adopt", "query", "sql", "migrate", "status", "schema", "export", "restore", "copy", "init"] {
            let help = try Self.run([command, "--help"])
            #expect(help.code == 0)
            #expect(!help.stdout.contains("`urna "), "\(command) --help: \(help.stdout)")
            #expect(!help.stdout.contains("Candidate"), "\(command) --help: \(help.stdout)")
        }
        #expect(try Self.run(["query", "--help"]).stdout.contains("use `fieldwork-app sql`"))
    }
}
