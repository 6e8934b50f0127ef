import Foundation
import Testing

/// A run killed with SIGKILL leaves its temporary file, partial output or private copy behind; the next run
/// removes it and says so on stderr, naming it (it was removed without a word). Each command is killed at a
/// deterministic moment: as soon as its leftover exists under its temporary name.
@Suite("What killed runs left is removed by the next run, which names it", .serialized)
struct LeftoverNoteTests {
    typealias Kill = CLIMigrationKillTests

    /// Starts `args`, waits until a file whose name starts with `prefix` appears in `folder`, SIGKILLs the run,
    /// and returns that file's name (nil when the run ended first, or after 60 s).
    static func killWhenPresent(_ args: [String], folder: String, prefix: String, tmp: String) throws -> String? {
        let started = try Kill.start(CLIRunner.binary, args, tmp: tmp)
        defer { _ = started.result() }
        let deadline = Date().addingTimeInterval(60)
        while started.process.isRunning, Date() < deadline {
            if let name = Kill.entries(folder).first(where: { $0.hasPrefix(prefix) }) {
                kill(started.process.processIdentifier, SIGKILL)
                Kill.wait(started.process, seconds: 10)
                return name
            }
            usleep(2_000)
        }
        Kill.wait(started.process, seconds: 1)
        return nil
    }

    static func folders(_ dir: URL) throws -> (work: String, tmp: String) {
        let work = dir.appendingPathComponent("work").path
        let tmp = dir.appendingPathComponent("tmp").path
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        return (work, tmp)
    }

    @Test("export --out killed mid-write: no file under the name; the next export removes the partial file, naming it")
    func killedExport() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (work, tmp) = try Self.folders(dir)
        let db = (work as NSString).appendingPathComponent("mg.sqlite")
        let imported = try CLIRunner.run(["import", "--db", db, "--quiet"] + FaultFixtures.mgPair)
        try #require(imported.code == 0, "\(imported.stderr)")
        let out = (work as NSString).appendingPathComponent("out.xml")
        let args = ["export", "--db", db, "--format", "xml", "--out", out]
        let left = try #require(try Self.killWhenPresent(args, folder: work, prefix: "out.xml.partial-", tmp: tmp))
        #expect(!FileManager.default.fileExists(atPath: out), "a killed export left a file under its final name")
        let next = try Kill.run(CLIRunner.binary, args, tmp: tmp)
        #expect(next.code == 0, "\(next.stderr)")
        #expect(
            next.stderr.contains("note: removed \((work as NSString).appendingPathComponent(left)) ("), "\(next.stderr)"
        )
        #expect(next.stderr.contains("left by a run that was stopped before it could clean up"), "\(next.stderr)")
        #expect(Kill.entries(work).filter { $0.hasPrefix("out.xml") } == ["out.xml"])
    }

    @Test("migrate killed while writing its backup: the next run removes the half backup and names it")
    func killedBackup() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (work, tmp) = try Self.folders(dir)
        let db = (work as NSString).appendingPathComponent("people.sqlite")
        try Kill.bigFile(db, tmp: tmp)
        let left = try #require(
            try Self.killWhenPresent(
                ["migrate", "--db", db], folder: work, prefix: "people.sqlite.v0.bak.tmp-", tmp: tmp))
        #expect(!FileManager.default.fileExists(atPath: db + ".v0.bak"), "a half backup under the final name")
        #expect(try Kill.sql(db, "PRAGMA user_version", tmp: tmp) == "0")
        let next = try Kill.run(CLIRunner.binary, ["migrate", "--db", db], tmp: tmp, timeout: 120)
        #expect(next.code == 0, "\(next.stderr)")
        #expect(
            next.stderr.contains("note: removed \((work as NSString).appendingPathComponent(left)) ("), "\(next.stderr)"
        )
        #expect(try Kill.sql(db, "PRAGMA user_version", tmp: tmp) == "2")
        try Kill.expectWholeBackup(db + ".v0.bak", tmp: tmp, "after the rerun")
        #expect(Kill.entries(work).filter { $0.contains(".tmp-") } == [])
        #expect(Kill.entries(tmp) == [], "the lock file is gone too")
    }

    @Test("migrate --dry-run killed during its private copy: the next dry run removes that copy and names it")
    func killedDryRun() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (work, tmp) = try Self.folders(dir)
        let db = (work as NSString).appendingPathComponent("people.sqlite")
        try Kill.bigFile(db, tmp: tmp)
        let args = ["migrate", "--db", db, "--dry-run"]
        let left = try #require(try Self.killWhenPresent(args, folder: tmp, prefix: "urna-dry-run-", tmp: tmp))
        let next = try Kill.run(CLIRunner.binary, args, tmp: tmp, timeout: 120)
        #expect(next.code == 0, "\(next.stderr)")
        #expect(
            next.stderr.contains("note: removed \((tmp as NSString).appendingPathComponent(left)) ("), "\(next.stderr)")
        #expect(Kill.entries(tmp) == [])
        #expect(try Kill.sql(db, "PRAGMA user_version", tmp: tmp) == "0")
    }

    @Test("A lock file left by a migration killed after its commit: the next migrate, with nothing to do, removes it")
    func killedAfterCommit() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (work, tmp) = try Self.folders(dir)
        let db = (work as NSString).appendingPathComponent("people.sqlite")
        let i = try Kill.run(CLIRunner.binary, ["init", "--db", db, "--family", "people"], tmp: tmp)
        try #require(i.code == 0, "\(i.stderr)")
        // What a run killed between its commit and its exit leaves: its lock file, naming it (a dead process).
        var st = stat()
        try #require(stat(db, &st) == 0)
        let lock = (tmp as NSString).appendingPathComponent("urna-migrate-\(st.st_dev)-\(st.st_ino).lock")
        let dead = try #require(try Self.deadPID(tmp: tmp))
        try "\(dead)".write(toFile: lock, atomically: false, encoding: .utf8)
        let next = try Kill.run(CLIRunner.binary, ["migrate", "--db", db], tmp: tmp)
        #expect(next.code == 0, "\(next.stderr)")
        #expect(next.stderr.contains("note: removed \(lock) ("), "\(next.stderr)")
        #expect(next.stderr.contains("(process \(dead), no longer running)"), "\(next.stderr)")
        #expect(Kill.entries(tmp) == [], "it stayed in the temporary folder")
    }

    @Test(
        "A file a killed copy left with its private second name is usable: the next writing command removes that name")
    func killedBetweenLinkAndUnlink() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (work, tmp) = try Self.folders(dir)
        let db = (work as NSString).appendingPathComponent("copied.sqlite")
        let imported = try CLIRunner.run(["import", "--db", db, "--quiet"] + FaultFixtures.acPair)
        try #require(imported.code == 0, "\(imported.stderr)")
        // What `copy --to FILE` killed just after link(2) gave the file its name leaves (30 kills: once).
        let dead = try #require(try Self.deadPID(tmp: tmp))
        let second = db + ".tmp-\(dead)"
        try #require(link(db, second) == 0)
        let r = try Kill.run(CLIRunner.binary, ["import", "--db", db, "--quiet"] + FaultFixtures.acPair, tmp: tmp)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("note: removed \(second) ("), "\(r.stderr)")
        var st = stat()
        #expect(stat(db, &st) == 0 && st.st_nlink == 1)
        #expect(!FileManager.default.fileExists(atPath: second))
    }

    /// The pid of a process that has ended.
    static func deadPID(tmp: String) throws -> Int32? {
        let p = try Kill.start(URL(fileURLWithPath: "/bin/true"), [], tmp: tmp)
        p.process.waitUntilExit()
        _ = p.result()
        return kill(p.process.processIdentifier, 0) != 0 ? p.process.processIdentifier : nil
    }

    @Test("import into a new file killed mid-run: no database appears; the next import removes the private file")
    func killedNewImport() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (work, tmp) = try Self.folders(dir)
        let db = (work as NSString).appendingPathComponent("new.sqlite")
        let args = ["import", "--db", db, "--quiet"] + FaultFixtures.mgPair
        let left = try #require(
            try Self.killWhenPresent(args, folder: work, prefix: "new.sqlite.tmp-import-", tmp: tmp))
        #expect(!FileManager.default.fileExists(atPath: db), "a killed import into a new file left the database")
        let next = try Kill.run(CLIRunner.binary, args, tmp: tmp, timeout: 120)
        #expect(next.code == 0, "\(next.stderr)")
        #expect(
            next.stderr.contains("note: removed \((work as NSString).appendingPathComponent(left)) ("), "\(next.stderr)"
        )
        #expect(Kill.entries(work).filter { $0.contains(".tmp-import-") } == [])
    }
}
