import Foundation
import Testing

/// What an app built on UrnaCommandLine says names the app, never urna or TSE's formats it does not have (issue
/// 14's eighth trial left `copy`'s "Urna data", `datasette-metadata`'s "urna's built-in election history",
/// `export`'s "TSE formats" and the backup's "urna never overwrites" in the school app). The app runs as its own
/// executable, so its tool name is the one it passes (`school-app`), whatever other tests install in-process.
@Suite struct CLIAppWordingTests {
    static func app(_ args: [String]) throws -> CLIResult { try CLISchoolAppTests.run(args) }

    @Test("copy and datasette-metadata help name the app's data, not Urna's or the elections family's")
    func helpNamesTheApp() throws {
        let copy = try Self.app(["copy", "--help"])
        #expect(copy.code == 0, "\(copy.stderr)")
        #expect(copy.stdout.contains("a database that already holds school-app data is refused"), "\(copy.stdout)")
        #expect(copy.stdout.contains("Replace the school-app data a PostgreSQL database"), "\(copy.stdout)")
        let metadata = try Self.app(["datasette-metadata", "--help"])
        #expect(metadata.code == 0, "\(metadata.stderr)")
        #expect(metadata.stdout.contains("as Datasette names it."), "\(metadata.stdout)")
        for (name, text) in [("copy", copy.stdout), ("datasette-metadata", metadata.stdout)] {
            #expect(!text.contains("Urna data"), "\(name): \(text)")
            #expect(!text.contains("urna's"), "\(name): \(text)")
            #expect(!text.contains("election"), "\(name): \(text)")
        }
        // urna itself keeps its words.
        let urnaCopy = try CLIRunner.run(["copy", "--help"]).stdout
        #expect(urnaCopy.contains("a database that already holds Urna data is refused"), "\(urnaCopy)")
        let urnaMetadata = try CLIRunner.run(["datasette-metadata", "--help"]).stdout
        #expect(urnaMetadata.contains("Files of the elections family"), "\(urnaMetadata)")
    }

    @Test("export --format xml in the app is refused without naming TSE; an existing backup path names the app")
    func errorsNameTheApp() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("school.sqlite").path
        try #require(try Self.app(["seed", "--db", db, "--version", "0"]).code == 0)
        let export = try Self.app(["export", "--db", db, "--format", "xml", "--type", "Student"])
        #expect(export.code == 64, "\(export.stderr)")
        #expect(export.stderr.contains("--format takes json, not 'xml'"), "\(export.stderr)")
        #expect(!export.stderr.contains("TSE"), "\(export.stderr)")
        let existing = dir.appendingPathComponent("taken.sqlite")
        try Data("mine".utf8).write(to: existing)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        let migrate = try Self.app(["migrate", "--db", db, "--backup", existing.path])
        #expect(migrate.code == 1, "\(migrate.stderr)")
        #expect(
            migrate.stderr.contains(
                "the backup path \(existing.path) already exists: school-app never overwrites a file with a backup"),
            "\(migrate.stderr)")
        #expect(!migrate.stderr.contains("urna never"), "\(migrate.stderr)")
        #expect(try Data(contentsOf: existing) == Data("mine".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
    }
}
