import Foundation
import PostgresTestSupport
import Testing

/// Commands that run out of disk on a real (tmpfs) file system: each exits 1 saying how much room it needs and
/// how much is free (a bare "database or disk is full" left the user guessing how much to free), leaves the
/// database as it was and no partial file anywhere. Mounting needs root: without it each test is cancelled
/// with the reason.
@Suite("Full disk: the message gives the space needed; nothing partial is left", .serialized)
struct FullDiskFiguresTests {
    /// "12.3 MB", as the messages print sizes.
    static func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

    static func size(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// `urna` with TMPDIR pointed at `tmp`.
    static func run(_ args: [String], tmp: String) throws -> CLIMigrationKillTests.Run {
        try CLIMigrationKillTests.run(CLIRunner.binary, args, tmp: tmp)
    }

    @Test("export --out onto a full disk: the export's true size and the free space, no file left")
    func exportDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("ac.sqlite").path
        let imported = try CLIRunner.run(["import", "--db", db, "--quiet"] + FaultFixtures.acPair)
        try #require(imported.code == 0, "\(imported.stderr)")
        let reference = dir.appendingPathComponent("reference.xml").path
        let whole = try CLIRunner.run(["export", "--db", db, "--format", "xml", "--out", reference])
        try #require(whole.code == 0, "\(whole.stderr)")
        let needed = Self.size(reference)
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 256, under: dir)
        defer { fs.unmount() }
        try #require(fs.freeBytes < needed, "the export (\(needed) bytes) must not fit in \(fs.freeBytes)")
        let out = fs.path("out.xml")
        let r = try CLIRunner.run(["export", "--db", db, "--format", "xml", "--out", out])
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: cannot write \(out): the disk is full"), "\(r.stderr)")
        #expect(r.stderr.contains("the export takes \(Self.megabytes(needed))"), "\(r.stderr)")
        #expect(r.stderr.contains("are free there"), "\(r.stderr)")
        #expect(FaultFixtures.listing(fs.directory) == [], "left behind: \(FaultFixtures.listing(fs.directory))")
    }

    @Test("migrate --dry-run and adopt --dry-run with TMPDIR on a full disk: the copy's size and the free space")
    func dryRunCopyDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: db, rows: 20_000)
        let legacy = dir.appendingPathComponent("legacy.sqlite").path
        let made = try Shell.run(
            "sqlite3",
            [
                legacy,
                "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); "
                    + "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) "
                    + "INSERT INTO Person SELECT 'First' || x, 'Last' || x, x % 90 FROM c",
            ])
        try #require(made.code == 0, "\(made.stderr)")
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 128, under: dir)
        defer { fs.unmount() }
        let before = try DatabaseSnapshot(db)
        let legacyBefore = try DatabaseSnapshot(legacy)
        let runs: [(String, [String])] = [
            (db, ["migrate", "--db", db, "--dry-run"]),
            (legacy, ["adopt", "--db", legacy, "--family", "people", "--version", "0", "--dry-run"]),
        ]
        for (file, args) in runs {
            let r = try Self.run(args, tmp: fs.directory.path)
            #expect(r.code == 1, "\(args): \(r.stderr)")
            #expect(
                r.stderr.hasPrefix("Error: the dry run cannot copy the file into \(fs.directory.path)"), "\(r.stderr)")
            #expect(
                r.stderr.contains("it needs about \(Self.megabytes(Self.size(file))) free for the copy"), "\(r.stderr)")
            #expect(r.stderr.contains("are free there"), "\(r.stderr)")
            #expect(FaultFixtures.listing(fs.directory) == [], "left in TMPDIR: \(FaultFixtures.listing(fs.directory))")
        }
        #expect(try DatabaseSnapshot(db) == before)
        #expect(try DatabaseSnapshot(legacy) == legacyBefore)
    }

    @Test("restore on a disk without room for the copy of the file as it was: figures, the file unchanged")
    func restoreDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: original, rows: 20_000)
        let migrated = try CLIRunner.run(["migrate", "--db", original])
        try #require(migrated.code == 0, "\(migrated.stderr)")
        let fileSize = Self.size(original)
        let backupSize = Self.size(original + ".v0.bak")
        // Room for the file and its backup, not for a third copy.
        let kilobytes = Int((fileSize + backupSize) / 1024) + 200
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: kilobytes, under: dir)
        defer { fs.unmount() }
        let db = fs.path("people.sqlite")
        try FileManager.default.copyItem(atPath: original, toPath: db)
        try FileManager.default.copyItem(atPath: original + ".v0.bak", toPath: db + ".v0.bak")
        try #require(fs.freeBytes < fileSize, "free \(fs.freeBytes), file \(fileSize)")
        let before = try DatabaseSnapshot(db)
        let r = try CLIRunner.run(["restore", "--db", db])
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.hasPrefix("Error: the disk holding \(db) has no room to restore it from \(db).v0.bak"),
            "\(r.stderr)")
        #expect(r.stderr.contains("\(Self.megabytes(fileSize)) for the copy of the file as it was"), "\(r.stderr)")
        #expect(r.stderr.contains("are free"), "\(r.stderr)")
        #expect(try DatabaseSnapshot(db) == before)
        #expect(
            FaultFixtures.listing(fs.directory) == ["people.sqlite", "people.sqlite.v0.bak"],
            "\(FaultFixtures.listing(fs.directory))")
    }

    @Test("adopt of a file that nearly fills its disk: the room the rebuild needs, the file unchanged")
    func adoptDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let legacy = dir.appendingPathComponent("legacy.sqlite").path
        let made = try Shell.run(
            "sqlite3",
            [
                legacy,
                "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); "
                    + "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) "
                    + "INSERT INTO Person SELECT 'First' || x, 'Last' || x, x % 90 FROM c",
            ])
        try #require(made.code == 0, "\(made.stderr)")
        let fileSize = Self.size(legacy)
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: Int(fileSize / 1024) + 64, under: dir)
        defer { fs.unmount() }
        let db = fs.path("legacy.sqlite")
        try FileManager.default.copyItem(atPath: legacy, toPath: db)
        let before = try DatabaseSnapshot(db)
        let r = try CLIRunner.run(["adopt", "--db", db, "--family", "people", "--version", "0"])
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: the disk holding \(db) has no room to adopt it"), "\(r.stderr)")
        #expect(r.stderr.contains("it needs about"), "\(r.stderr)")
        #expect(r.stderr.contains("are free"), "\(r.stderr)")
        #expect(try DatabaseSnapshot(db) == before)
        #expect(FaultFixtures.listing(fs.directory) == ["legacy.sqlite"], "\(FaultFixtures.listing(fs.directory))")
    }

    @Test("copy from PostgreSQL into a file on a full disk: names the file and the sizes, leaves nothing")
    func copyFromPostgresDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 512, under: dir)
        defer { fs.unmount() }
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "fulldisk")
        let filled = try CLIRunner.run(["import", "--db", url, "--quiet"] + FaultFixtures.mgPair)
        try #require(filled.code == 0, "\(filled.stderr)")
        let out = fs.path("copy.sqlite")
        let r = try Self.run(["copy", "--from", url, "--to", out], tmp: fs.directory.path)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("Error: cannot write \(out): the disk holding it is full"), "\(r.stderr)")
        #expect(r.stderr.contains("free when it began, and needs more; nothing was written"), "\(r.stderr)")
        #expect(FaultFixtures.listing(fs.directory) == [], "left behind: \(FaultFixtures.listing(fs.directory))")
    }
}
