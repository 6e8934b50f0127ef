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
}
