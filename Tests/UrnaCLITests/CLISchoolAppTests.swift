import Foundation
import Testing

/// The school app (issue 14's eighth trial: `UrnaCommandLine.main(families: [SchoolFamily.family], toolName:
/// "school-app", appVersion: "4.0")`): what its users see names the app and its own version.
@Suite(.serialized) struct CLISchoolAppTests {
    static var app: URL { CLIRunner.built("school-app") }

    static func run(_ args: [String], in dir: URL? = nil) throws -> CLIResult {
        try CLIRunner.runProcess(app, args, in: dir)
    }

    @Test("--version gives the app's own version (with the urna it is built on), never urna's alone")
    func versionIsTheApps() throws {
        let urna = try CLIRunner.run(["--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(urna.hasPrefix("urna "), "\(urna)")
        let r = try Self.run(["--version"])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "school-app 4.0 (\(urna))\n", "\(r.stdout)")
    }

    @Test("a plain SQLite file given to status, query or export is called not the app's file, with its adopt")
    func plainFileIsNotTheAppsForEveryCommand() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("plain.sqlite").path
        _ = try CLIAppFamilyTests.sqlite(db, "CREATE TABLE Student(id INTEGER PRIMARY KEY)")
        for args in [
            ["status", "--db", db], ["query", "--db", db, "Student"],
            ["export", "--db", db, "--format", "json", "--type", "Student"],
        ] {
            let r = try Self.run(args)
            #expect(r.code == 65, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("\(db) is not a school-app file"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("school-app adopt --db \(db) --family school --version N"), "\(r.stderr)")
            #expect(!r.stderr.contains("Urna"), "\(args): \(r.stderr)")
        }
    }

    static func sqlite(_ db: String, _ sql: String) throws -> String { try CLIAppFamilyTests.sqlite(db, sql) }

    @Test("seed at v0, a dry run leaves the file byte for byte, migrate rewrites every link, status says latest")
    func seedDryRunMigrateStatus() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("school.sqlite").path
        #expect(try Self.run(["seed", "--db", db, "--version", "0"]).code == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let dry = try Self.run(["migrate", "--db", db, "--dry-run"])
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("Result: the upgrade would succeed; the file was not touched."), "\(dry.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        let run = try Self.run(["migrate", "--db", db])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(
            try Self.sqlite(
                db, "SELECT group_concat(s, ',') FROM (SELECT coalesce(student, '-') s FROM Grade ORDER BY id)")
                == "S1,S2,S3,S-4,-,S1,S2")
        #expect(
            try Self.sqlite(
                db, "SELECT group_concat(student, ',') FROM (SELECT student FROM Guardian ORDER BY student)")
                == "S1,S2,S3,S9223372036854775807")
        #expect(try Self.sqlite(db, "SELECT count(*) FROM course_fts WHERE course_fts MATCH 'rome'") == "1")
        let status = try Self.run(["status", "--db", db])
        #expect(status.stdout.contains("version:  4 (latest 4)") && status.stdout.contains("pending:  none"))
    }

    @Test("a v5 with a typo, a case change or a required property without default is refused; names stay")
    func mistakesAreRefused() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("school.sqlite").path
        #expect(try Self.run(["seed", "--db", db, "--version", "4"]).code == 0)
        let names = "Maria Silva,Ngũgĩ wa Thiong'o,Ông Văn 🍜"
        let expected = [
            "typo": "Instructor.nmae is added: a typo, or a rename not declared?",
            "case": "Instructor.Name differs from it only in case",
            "required": "Student.email: a required property is added without a default",
        ]
        for (mistake, message) in expected {
            for dry in [[], ["--dry-run"]] {
                let p = Process()
                p.executableURL = Self.app
                p.arguments = ["migrate", "--db", db] + dry
                p.environment = ProcessInfo.processInfo.environment.merging(["SCHOOL_APP_V5": mistake]) { $1 }
                let err = Pipe()
                p.standardError = err
                p.standardOutput = Pipe()
                try p.run()
                let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                p.waitUntilExit()
                #expect(p.terminationStatus == 65, "\(mistake) \(dry): \(text)")
                #expect(text.contains(message), "\(mistake): \(text)")
                #expect(text.contains("--allow-loss"), "\(mistake): \(text)")
            }
            #expect(
                try Self.sqlite(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM Instructor ORDER BY id)")
                    == names)
        }
    }
}
