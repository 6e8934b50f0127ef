import Foundation
import Testing

/// Readers in other processes while `urna migrate` rewrites a 200,000-object file. Urna files are in WAL
/// mode (`urna init` and `urna import` make them so, and a migration keeps the file's journal mode), so
/// readers are never blocked: each read command must see the whole file either before or after the
/// migration, never a mixture, and never fail.
@Suite("Readers during a migration", .serialized)
struct ConcurrentReaderTests {
    static let rows = 200_000

    /// The JSON line `urna query Person --json` prints for row `x` of the version-0 file.
    static func oldLine(_ x: Int) -> String { #"{"firstName":"First\#(x)","lastName":"Last\#(x)","age":\#(x % 90)}"# }

    @Test("urna query and status in a loop during urna migrate see the old or the new state only; a reader paused across the commit sees the old state whole")
    func readersDuringMigration() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: db, rows: Self.rows)
        #expect(try Shell.sqlite(db, "PRAGMA journal_mode") == "wal")
        let query = ["query", "--db", db, "Person", "age == 7", "--json"]
        let status = ["status", "--db", db, "--json"]
        let oldQuery = try CLIRunner.run(query), oldStatus = try CLIRunner.run(status)
        try #require(oldQuery.code == 0 && oldStatus.code == 0, "\(oldQuery.stderr)\(oldStatus.stderr)")
        #expect(oldQuery.stdout.contains(#""firstName":"First7""#))

        // A reader that has started printing every Person and is then held still (nobody drains its pipe)
        // until the migration has committed: whatever it prints after that must still be the old file.
        let paused = Process()
        paused.executableURL = CLIRunner.binary
        paused.arguments = ["query", "--db", db, "Person", "age < 9", "--json"]
        let pipe = Pipe()
        paused.standardOutput = pipe
        paused.standardError = FileHandle.nullDevice
        try paused.run()
        defer { if paused.isRunning { paused.terminate() } }
        var printed = pipe.fileHandleForReading.availableData  // it has opened the file and read rows
        try #require(!printed.isEmpty, "the paused reader printed nothing")

        let migration = Process()
        migration.executableURL = CLIRunner.binary
        migration.arguments = ["migrate", "--db", db, "--no-backup"]
        migration.standardOutput = FileHandle.nullDevice
        let migrationErrors = dir.appendingPathComponent("migrate.err")
        _ = FileManager.default.createFile(atPath: migrationErrors.path, contents: nil)
        migration.standardError = try FileHandle(forWritingTo: migrationErrors)
        try migration.run()
        var outcomes: [(args: [String], result: CLIResult)] = []
        var readsWhileMigrating = 0
        while migration.isRunning {
            for args in [query, status] {
                outcomes.append((args, try CLIRunner.run(args)))
                if migration.isRunning { readsWhileMigrating += 1 }
            }
        }
        migration.waitUntilExit()
        #expect(migration.terminationStatus == 0, "\(String(decoding: (try? Data(contentsOf: migrationErrors)) ?? Data(), as: UTF8.self))")
        #expect(paused.isRunning, "the paused reader finished before the migration committed")

        let newQuery = try CLIRunner.run(query), newStatus = try CLIRunner.run(status)
        #expect(newQuery.stdout.contains(#""fullName":"First7 Last7""#), "\(newQuery.stdout.prefix(200))")
        #expect(newStatus.stdout.contains(#""version":2"#), "\(newStatus.stdout)")
        #expect(readsWhileMigrating >= 4, "only \(readsWhileMigrating) reads overlapped the migration")
        var seen: [String: Int] = [:]
        for (args, r) in outcomes {
            #expect(r.code == 0, "\(args[0]) failed during the migration: \(r.stderr)")
            let (old, new) = args == query ? (oldQuery.stdout, newQuery.stdout) : (oldStatus.stdout, newStatus.stdout)
            let state = r.stdout == old ? "old" : r.stdout == new ? "new" : "mixed"
            #expect(state != "mixed", "\(args[0]) saw neither the old nor the new file: \(r.stdout.prefix(300))")
            seen["\(args[0]) \(state)", default: 0] += 1
        }
        #expect(seen["query old", default: 0] > 0, "\(seen)")

        // Now let the paused reader finish: its 20,000 objects, as they were before the migration.
        printed += pipe.fileHandleForReading.readDataToEndOfFile()
        paused.waitUntilExit()
        #expect(paused.terminationStatus == 0)
        let lines = String(decoding: printed, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let expected = (1...Self.rows).filter { $0 % 90 < 9 }
        #expect(lines.count == expected.count + 3, "lines: \(lines.count)")  // "[", rows, "]", and the final newline
        var wrong = 0, firstWrong = ""
        for (i, x) in expected.enumerated() where i + 1 < lines.count {
            if lines[i + 1] != Self.oldLine(x) + (i + 1 < expected.count ? "," : "") {
                if wrong == 0 { firstWrong = "line \(i + 1): \(lines[i + 1])" }
                wrong += 1
            }
        }
        #expect(wrong == 0, "\(wrong) objects were not the old file's; first: \(firstWrong)")
        #expect(try Shell.sqlite(db, "PRAGMA integrity_check") == "ok")
        #expect(try Shell.sqlite(db, "SELECT count(*), min(fullName) FROM Person") == "\(Self.rows)|First1 Last1")
    }

    @Test("In a rollback-journal (non-WAL) file, readers during a migration see old or new, or wait and say the file is locked; never a mixture")
    func readersDuringMigrationRollbackJournal() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: db, rows: Self.rows)
        // Files from older apps (seed 000's among them) use SQLite's default journal; a migration keeps it.
        #expect(try Shell.sqlite(db, "PRAGMA journal_mode = DELETE") == "delete")
        let query = ["query", "--db", db, "Person", "age == 7", "--count"]
        let status = ["status", "--db", db, "--json"]
        let oldStatus = try CLIRunner.run(status)
        let migration = Process()
        migration.executableURL = CLIRunner.binary
        migration.arguments = ["migrate", "--db", db, "--no-backup"]
        migration.standardOutput = FileHandle.nullDevice
        migration.standardError = FileHandle.nullDevice
        try migration.run()
        var outcomes: [(args: [String], result: CLIResult)] = []
        while migration.isRunning {
            for args in [query, status] { outcomes.append((args, try CLIRunner.run(args))) }
        }
        migration.waitUntilExit()
        #expect(migration.terminationStatus == 0)
        #expect(try Shell.sqlite(db, "PRAGMA journal_mode") == "delete")
        let newStatus = try CLIRunner.run(status)
        #expect(newStatus.stdout.contains(#""version":2"#))
        #expect(outcomes.count >= 4, "only \(outcomes.count) reads overlapped the migration")
        for (args, r) in outcomes {
            if r.code == 0 {
                let valid = args == query ? [String(Self.rows / 90 + 1) + "\n"] : [oldStatus.stdout, newStatus.stdout]
                #expect(valid.contains(r.stdout), "\(args[0]) saw neither the old nor the new file: \(r.stdout)")
            } else {
                #expect(r.code == 1 && r.stderr.hasPrefix("Error: \(db) is locked by another process"),
                        "\(args[0]) failed unclearly (\(r.code)): \(r.stderr)")
            }
        }
        #expect(try Shell.sqlite(db, "PRAGMA integrity_check") == "ok")
    }
}
