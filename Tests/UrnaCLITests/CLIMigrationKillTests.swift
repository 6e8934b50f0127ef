import Foundation
import Testing

/// `urna migrate` (real runs and dry runs) killed with SIGKILL at random moments: never an incomplete backup under
/// a final name, at most one backup after a final run, nothing left in the temporary folder. Every wait has a
/// timeout, so a stuck child fails the test instead of hanging it.
@Suite("urna migrate killed at random moments", .serialized)
struct CLIMigrationKillTests {
    struct Run {
        let code: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `executable` with TMPDIR set, killing it (and recording an issue) after `timeout` seconds.
    static func run(_ executable: URL, _ args: [String], tmp: String, timeout: Double = 60) throws -> Run {
        let p = try start(executable, args, tmp: tmp)
        let finished = wait(p.process, seconds: timeout)
        if !finished { Issue.record("\(executable.lastPathComponent) \(args) did not finish in \(timeout) s") }
        return p.result()
    }

    struct Started {
        let process: Process
        let out: URL
        let err: URL
        func result() -> Run {
            let o = (try? Data(contentsOf: out)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let e = (try? Data(contentsOf: err)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
            return Run(code: process.isRunning ? -1 : process.terminationStatus, stdout: o, stderr: e)
        }
    }

    /// Output goes to files outside the private TMPDIR (so they are not counted as leftovers).
    static func start(_ executable: URL, _ args: [String], tmp: String) throws -> Started {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        env["TMPDIR"] = tmp
        p.environment = env
        let base = URL(fileURLWithPath: tmp).deletingLastPathComponent()
        let out = base.appendingPathComponent("out-\(UUID().uuidString)")
        let err = base.appendingPathComponent("err-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        return Started(process: p, out: out, err: err)
    }

    /// Waits for the process at most `seconds`; SIGKILLs it when it overstays (then waits a little more).
    @discardableResult
    static func wait(_ p: Process, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard p.isRunning else { return true }
        kill(p.processIdentifier, SIGKILL)
        let last = Date().addingTimeInterval(5)
        while p.isRunning, Date() < last { Thread.sleep(forTimeInterval: 0.01) }
        return false
    }

    static let sqlite3 = URL(fileURLWithPath: "/usr/bin/sqlite3")

    static func sql(_ db: String, _ statement: String, tmp: String) throws -> String {
        let r = try run(sqlite3, [db, statement], tmp: tmp, timeout: 60)
        guard r.code == 0 else { throw CLIFailure("sqlite3 \(statement): \(r.stderr)") }
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A people v0 file of 200,000 persons (a migration of it takes seconds, so the kills land mid-run).
    static func bigFile(_ db: String, tmp: String) throws {
        let i = try run(CLIRunner.binary, ["init", "--db", db, "--family", "people", "--version", "0"], tmp: tmp)
        guard i.code == 0 else { throw CLIFailure("init: \(i.stderr)") }
        _ = try sql(
            db,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) "
                + "INSERT INTO Person(firstName, lastName, age) SELECT 'First' || x, 'Last' || x, x % 90 FROM c",
            tmp: tmp)
    }

    static func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A backup under its final name must be whole: the old version with every person.
    static func expectWholeBackup(_ path: String, tmp: String, _ context: String) throws {
        #expect(try sql(path, "PRAGMA integrity_check", tmp: tmp) == "ok", "\(context): \(path)")
        #expect(try sql(path, "PRAGMA user_version", tmp: tmp) == "0", "\(context): \(path)")
        #expect(try sql(path, "SELECT count(*) FROM Person", tmp: tmp) == "200000", "\(context): \(path)")
    }

    static func delays(_ n: Int) -> [Double] { (0..<n).map { _ in Double.random(in: 0.05...0.6) } }

    @Test("Real runs killed at 0.05-0.6 s: no incomplete backup, one backup after the final run, TMPDIR empty")
    func killedRealRuns() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tmp = dir.appendingPathComponent("tmp").path
        let work = dir.appendingPathComponent("work").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let db = (work as NSString).appendingPathComponent("people.sqlite")
        try Self.bigFile(db, tmp: tmp)
        let backup = db + ".v0.bak"
        var completed = 0
        for (i, delay) in Self.delays(8).enumerated() {
            let context = String(format: "kill %d at %.3f s", i + 1, delay)
            let p = try Self.start(CLIRunner.binary, ["migrate", "--db", db], tmp: tmp)
            Thread.sleep(forTimeInterval: delay)
            kill(p.process.processIdentifier, SIGKILL)
            #expect(Self.wait(p.process, seconds: 10), "\(context): the killed run did not end")
            _ = p.result()
            #expect(try Self.sql(db, "PRAGMA integrity_check", tmp: tmp) == "ok", "\(context)")
            let version = try Self.sql(db, "PRAGMA user_version", tmp: tmp)
            #expect(version == "0" || version == "2", "\(context): version \(version)")
            if FileManager.default.fileExists(atPath: backup) {
                try Self.expectWholeBackup(backup, tmp: tmp, context)
            }
            if version == "2" {
                completed += 1
                break  // the next runs would have nothing to do
            }
        }
        let final = try Self.run(CLIRunner.binary, ["migrate", "--db", db], tmp: tmp, timeout: 120)
        #expect(final.code == 0, "\(final.stderr)")
        #expect(try Self.sql(db, "PRAGMA user_version", tmp: tmp) == "2")
        #expect(try Self.sql(db, "SELECT count(*) FROM Person", tmp: tmp) == "200000")
        let left = Self.entries(work).filter {
            $0 != "people.sqlite" && $0 != "people.sqlite-wal" && $0 != "people.sqlite-shm"
        }
        #expect(left == ["people.sqlite.v0.bak"], "after the final run, one backup and nothing else: \(left)")
        try Self.expectWholeBackup(backup, tmp: tmp, "final backup")
        #expect(Self.entries(tmp) == [], "the temporary folder keeps nothing (lock files included)")
        #expect(completed <= 1)
    }

    @Test("Dry runs killed at 0.05-0.6 s: the next dry run removes their private copies; TMPDIR ends empty")
    func killedDryRuns() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tmp = dir.appendingPathComponent("tmp").path
        let work = dir.appendingPathComponent("work").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let db = (work as NSString).appendingPathComponent("people.sqlite")
        try Self.bigFile(db, tmp: tmp)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        var leftBehind = 0
        for (i, delay) in Self.delays(6).enumerated() {
            let context = String(format: "kill %d at %.3f s", i + 1, delay)
            let p = try Self.start(CLIRunner.binary, ["migrate", "--db", db, "--dry-run"], tmp: tmp)
            Thread.sleep(forTimeInterval: delay)
            kill(p.process.processIdentifier, SIGKILL)
            #expect(Self.wait(p.process, seconds: 10), "\(context): the killed dry run did not end")
            _ = p.result()
            if !Self.entries(tmp).isEmpty { leftBehind += 1 }
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before, "\(context): the file changed")
            #expect(
                Self.entries(work).allSatisfy { $0.hasPrefix("people.sqlite") && !$0.contains(".bak") }, "\(context)")
        }
        let final = try Self.run(CLIRunner.binary, ["migrate", "--db", db, "--dry-run"], tmp: tmp, timeout: 120)
        #expect(final.code == 0, "\(final.stderr)")
        #expect(Self.entries(tmp) == [], "the final dry run removed the killed runs' copies: \(Self.entries(tmp))")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(try Self.sql(db, "PRAGMA user_version", tmp: tmp) == "0")
        // Not an assertion on luck: it says whether any kill left a copy that the final run had to clean.
        print("killed dry runs that left a private copy behind: \(leftBehind) of 6")
    }
}
