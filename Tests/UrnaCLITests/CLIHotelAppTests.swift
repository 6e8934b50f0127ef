import Foundation
import Testing

/// The hotel app (issue 14's seventh trial: `UrnaCommandLine.main(families: [HotelFamily.family], toolName:
/// "hotel-app", appVersion: "5.0")`, with its own `seed` command): files the app wrote at every version, migrated
/// through the app's executable, equal a v5 file the app writes directly; the app's own default database.
@Suite(.serialized) struct CLIHotelAppTests {
    static var app: URL { CLIRunner.built("hotel-app") }

    static func run(_ args: [String], in dir: URL? = nil) throws -> CLIResult {
        try CLIRunner.runProcess(app, args, in: dir)
    }

    @Test("an app's default database is its own (hotel-app.sqlite), and its help says so, never urna.sqlite")
    func defaultDatabaseIsTheApps() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let overview = try Self.run(["--help"])
        #expect(overview.stdout.contains("Default database: hotel-app.sqlite"), "\(overview.stdout)")
        for command in ["init", "status", "query", "sql", "schema", "migrate", "export", "adopt", "restore"] {
            let help = try Self.run([command, "--help"])
            #expect(help.code == 0, "\(command): \(help.stderr)")
            #expect(!help.stdout.contains("urna.sqlite"), "\(command) --help: \(help.stdout)")
        }
        let initHelp = try Self.run(["init", "--help"])
        #expect(initHelp.stdout.contains("(default: hotel-app.sqlite)"), "\(initHelp.stdout)")
        let made = try Self.run(["init", "--family", "hotel"], in: dir)
        #expect(made.code == 0, "\(made.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".sqlite") }
        #expect(names == ["hotel-app.sqlite"], "\(names)")
        let status = try Self.run(["status"], in: dir)
        #expect(status.code == 0 && status.stdout.contains("hotel-app.sqlite"), "\(status.stdout)\(status.stderr)")
        let folder = try Self.run(["status", "--db", dir.path])
        #expect(folder.stderr.contains("\(dir.path)/hotel-app.sqlite"), "\(folder.stderr)")
    }

    @Test("a plain SQLite file given to migrate is called not the app's file, with the app's adopt as the way out")
    func plainFileNamesTheAppAndAdopt() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("plain.sqlite").path
        _ = try CLIAppFamilyTests.sqlite(db, "CREATE TABLE Room(number TEXT PRIMARY KEY)")
        for args in [["migrate", "--db", db], ["migrate", "--db", db, "--dry-run"]] {
            let r = try Self.run(args)
            #expect(r.code == 65, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("\(db) is not a hotel-app file"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("hotel-app adopt --db \(db) --family hotel --version N"), "\(r.stderr)")
            #expect(!r.stderr.contains("Urna"), "\(args): \(r.stderr)")
        }
    }

    @Test("the app's missing default file names an urna.sqlite beside it that holds the app's family (the old default)")
    func missingDefaultNamesTheFormerDefault() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let made = try Self.run(["init", "--db", "urna.sqlite", "--family", "hotel"], in: dir)
        #expect(made.code == 0, "\(made.stderr)")
        let old = dir.appendingPathComponent("urna.sqlite")
        let bytes = try Data(contentsOf: old)
        for command in [["status"], ["migrate"], ["query", "Room"]] {
            let r = try Self.run(command, in: dir)
            #expect(r.code == 66, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("hotel-app.sqlite does not exist"), "\(command): \(r.stderr)")
            #expect(
                r.stderr.contains("`urna.sqlite` here holds a hotel file")
                    && r.stderr.contains("pass --db urna.sqlite"),
                "\(command): \(r.stderr)")
        }
        let elsewhere = try Self.run(["status", "--db", dir.appendingPathComponent("hotel-app.sqlite").path])
        #expect(elsewhere.stderr.contains("pass --db \(dir.path)/urna.sqlite"), "\(elsewhere.stderr)")
        // Read, never written, and no empty hotel-app.sqlite made beside it (read-only opens of a WAL file leave
        // SQLite's -wal and -shm, as `status --db urna.sqlite` does).
        #expect(try Data(contentsOf: old) == bytes)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains { $0.hasPrefix("hotel-app.sqlite") }, "\(names)")
        let named = try Self.run(["status", "--db", "urna.sqlite"], in: dir)
        #expect(named.code == 0, "\(named.stderr)")

        // An urna.sqlite of no family the app knows (a plain SQLite file) is not the app's data: not named.
        let other = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: other) }
        _ = try CLIAppFamilyTests.sqlite(other.appendingPathComponent("urna.sqlite").path, "CREATE TABLE t(x)")
        let plain = try Self.run(["status"], in: other)
        #expect(plain.code == 66 && plain.stderr.contains("hotel-app.sqlite does not exist"), "\(plain.stderr)")
        #expect(!plain.stderr.contains("urna.sqlite"), "\(plain.stderr)")
    }
}
