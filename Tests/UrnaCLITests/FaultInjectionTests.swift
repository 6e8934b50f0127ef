import Foundation
import Testing

/// Real faults under `urna import` and `urna migrate`: a file system that fills up, a read-only mount, an
/// immutable file, another process holding the write lock, unusable backup paths, files that are not
/// databases. Each must end with a clear message naming the file and the problem, the README's exit code,
/// and the database exactly as it was (same bytes, same `.dump`, same version, integrity_check ok).
@Suite("Fault injection: disk full, read-only, locked, bad backup paths", .serialized)
struct FaultInjectionTests {
    func expectUnchanged(
        _ db: String, _ before: DatabaseSnapshot, _ what: String, onReadOnlyMedia: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let after = try DatabaseSnapshot(db, onReadOnlyMedia: onReadOnlyMedia)
        #expect(after.userVersion == before.userVersion, "\(what): version", sourceLocation: sourceLocation)
        #expect(after.dump == before.dump, "\(what): content changed", sourceLocation: sourceLocation)
        #expect(after.bytes == before.bytes, "\(what): bytes changed", sourceLocation: sourceLocation)
        #expect(
            try DatabaseSnapshot.checks(db, onReadOnlyMedia: onReadOnlyMedia) == "ok", "\(what): integrity",
            sourceLocation: sourceLocation)
    }

    // MARK: - Disk full

    @Test("import onto a full tmpfs: 'disk is full' naming the file, exit 1, the database exactly as before")
    func importDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 3072, under: dir)
        defer { fs.unmount() }
        let db = fs.path("urna.sqlite")
        let first = try CLIRunner.run(["import", "--db", db, "--quiet"] + FaultFixtures.acPair)
        try #require(first.code == 0, "the AC files fit: \(first.stderr)")
        let before = try DatabaseSnapshot(db)
        // About 1.6 MB are left; the MG candidacies and assets need several times that.
        let r = try CLIRunner.run(["import", "--db", db, "--quiet"] + FaultFixtures.mgPair)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(withoutLeftoverNotes(r.stderr).hasPrefix("Error: \(db): the disk is full"), "\(r.stderr)")
        #expect(r.stderr.contains("nothing was imported and the database is as it was"), "\(r.stderr)")
        try expectUnchanged(db, before, "import on a full disk")
    }

    @Test("import creating a new database on a full tmpfs: 'disk is full', exit 1, no half-made file left")
    func importNewDatabaseDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 512, under: dir)
        defer { fs.unmount() }
        let db = fs.path("new.sqlite")
        let r = try CLIRunner.run(["import", "--db", db, "--quiet"] + FaultFixtures.mgPair)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(withoutLeftoverNotes(r.stderr).hasPrefix("Error: \(db): the disk is full"), "\(r.stderr)")
        #expect(FaultFixtures.listing(fs.directory) == [], "left behind: \(FaultFixtures.listing(fs.directory))")
    }

    @Test(
        "migrate of a file that nearly fills its tmpfs: disk full with --no-backup, with a backup elsewhere, and when the backup does not fit"
    )
    func migrateDiskFull() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 1024, under: dir)
        defer { fs.unmount() }
        let original = dir.appendingPathComponent("people-v0.sqlite").path
        try FaultFixtures.peopleV0(at: original, rows: 20_000)
        let db = fs.path("people.sqlite")
        try FileManager.default.copyItem(atPath: original, toPath: db)
        let size = Int64(try Data(contentsOf: URL(fileURLWithPath: db)).count)
        // Nearly full: less room left than the file's size, which is what rewriting its one table needs.
        #expect(fs.freeBytes < size, "free \(fs.freeBytes), file \(size)")
        let before = try DatabaseSnapshot(db)

        let noBackup = try CLIRunner.run(["migrate", "--db", db, "--no-backup"])
        #expect(noBackup.code == 1, "\(noBackup.stderr)")
        #expect(
            withoutLeftoverNotes(noBackup.stderr).hasPrefix("Error: the disk holding \(db) is full"),
            "\(noBackup.stderr)")
        #expect(noBackup.stderr.contains("nothing was changed"), "\(noBackup.stderr)")
        try expectUnchanged(db, before, "--no-backup")

        let elsewhere = dir.appendingPathComponent("elsewhere.bak").path
        let withBackup = try CLIRunner.run(["migrate", "--db", db, "--backup", elsewhere])
        #expect(withBackup.code == 1, "\(withBackup.stderr)")
        #expect(
            withoutLeftoverNotes(withBackup.stderr).hasPrefix("Error: the disk holding \(db) is full"),
            "\(withBackup.stderr)")
        try expectUnchanged(db, before, "--backup elsewhere")
        #expect(!FileManager.default.fileExists(atPath: elsewhere), "a failed run keeps no backup")

        let beside = try CLIRunner.run(["migrate", "--db", db])
        #expect(beside.code == 1, "\(beside.stderr)")
        #expect(
            withoutLeftoverNotes(beside.stderr).hasPrefix(
                "Error: the upgrade was refused before writing the backup \(db).v0.bak: the disk has too little free space"
            ), "\(beside.stderr)")
        // The space check refused it before writing anything: its figures, not SQLite's "disk is full".
        #expect(!beside.stderr.contains("database or disk is full"), "\(beside.stderr)")
        #expect(beside.stderr.contains("nothing was written and the file was not changed"), "\(beside.stderr)")
        try expectUnchanged(db, before, "backup beside the file")
        #expect(FaultFixtures.listing(fs.directory) == ["people.sqlite"], "\(FaultFixtures.listing(fs.directory))")

        // The backup alone does not fit: the database has room, the backup's file system has none.
        let roomy = dir.appendingPathComponent("roomy.sqlite").path
        try FileManager.default.copyItem(atPath: original, toPath: roomy)
        let roomyBefore = try DatabaseSnapshot(roomy)
        let tiny = try SmallFileSystem.mountOrSkip(kilobytes: 256, under: dir)
        defer { tiny.unmount() }
        let backup = tiny.path("people.bak")
        let backupFull = try CLIRunner.run(["migrate", "--db", roomy, "--backup", backup])
        #expect(backupFull.code == 1, "\(backupFull.stderr)")
        #expect(
            withoutLeftoverNotes(backupFull.stderr).hasPrefix(
                "Error: the upgrade was refused before writing the backup \(backup): the disk has too little free space"
            ), "\(backupFull.stderr)")
        #expect(backupFull.stderr.contains("are free on that disk"), "\(backupFull.stderr)")
        try expectUnchanged(roomy, roomyBefore, "backup on a full disk")
        #expect(
            FaultFixtures.listing(tiny.directory) == [], "partial backup left: \(FaultFixtures.listing(tiny.directory))"
        )

        // Control: with room for both, the same file migrates (so the failures above were the disk's).
        let fine = try CLIRunner.run([
            "migrate", "--db", roomy, "--backup", dir.appendingPathComponent("fine.bak").path,
        ])
        #expect(fine.code == 0, "\(fine.stderr)")
        #expect(try Shell.sqlite(roomy, "PRAGMA user_version") == "2")
    }

    // MARK: - Read-only

    @Test(
        "A read-only mount: import and migrate refuse, naming the file and 'Read-only file system'; reads and a dry run still work"
    )
    func readOnlyMount() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 4096, under: dir)
        defer { fs.unmount() }
        let elections = fs.path("urna.sqlite")
        try #require(try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.acPair).code == 0)
        let people = fs.path("people.sqlite")
        try FaultFixtures.peopleV0(at: dir.appendingPathComponent("p.sqlite").path, rows: 2_000)
        try FileManager.default.copyItem(atPath: dir.appendingPathComponent("p.sqlite").path, toPath: people)
        // A copy taken while a writer still had commits in its WAL (as after a crash): the WAL must be read.
        let pending = fs.path("pending.sqlite")
        do {
            let source = dir.appendingPathComponent("pending.sqlite").path
            try FileManager.default.copyItem(atPath: dir.appendingPathComponent("p.sqlite").path, toPath: source)
            // sqlite3 copies the file and its WAL while its connection is still open (closing would checkpoint).
            let copy = try Shell.run(
                "sqlite3",
                [
                    source, "PRAGMA wal_autocheckpoint = 0", "DELETE FROM Person WHERE _id > 10",
                    ".shell cp \(source) \(pending) && cp \(source)-wal \(pending)-wal",
                ])
            try #require(copy.code == 0, "\(copy.stderr)")
            let walSize = try FileManager.default.attributesOfItem(atPath: pending + "-wal")[.size] as? NSNumber
            try #require((walSize?.intValue ?? 0) > 0)
        }
        let electionsBefore = try DatabaseSnapshot(elections)
        let peopleBefore = try DatabaseSnapshot(people)
        try fs.remountReadOnly()
        // Root ignores permission bits, not a read-only mount: prove writing is really denied.
        #expect(FileHandle(forWritingAtPath: people) == nil, "the read-only mount let root write")

        let i = try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.mgPair)
        #expect(i.code == 1, "\(i.stderr)")
        #expect(
            withoutLeftoverNotes(i.stderr).hasPrefix(
                "Error: \(elections) is read-only (Read-only file system): urna import must write to it; nothing was changed"
            ),
            "\(i.stderr)")
        for args in [["migrate", "--db", people], ["migrate", "--db", people, "--no-backup"]] {
            let m = try CLIRunner.run(args)
            #expect(m.code == 1, "\(args): \(m.stderr)")
            #expect(
                withoutLeftoverNotes(m.stderr).hasPrefix(
                    "Error: \(people) is read-only (Read-only file system): urna migrate must write to it"),
                "\(args): \(m.stderr)")
        }
        // A backup into the read-only folder, of a file that is writable elsewhere.
        let writable = dir.appendingPathComponent("p.sqlite").path
        let writableBefore = try DatabaseSnapshot(writable)
        let b = try CLIRunner.run(["migrate", "--db", writable, "--backup", fs.path("p.bak")])
        #expect(b.code == 1, "\(b.stderr)")
        #expect(
            b.stderr.contains(
                "the folder \(fs.directory.path) of the backup path \(fs.path("p.bak")) cannot be written (Read-only file system)"
            ),
            "\(b.stderr)")
        try expectUnchanged(writable, writableBefore, "backup into a read-only folder")
        // A dry run works on a private copy, so the read-only file can still be previewed.
        let dry = try CLIRunner.run(["migrate", "--db", people, "--dry-run"])
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("people v0 → v2"), "\(dry.stdout)")
        // Reading: SQLite cannot create a WAL-mode file's -shm on a read-only mount, and nothing can change the
        // file there, so read commands open it as immutable.
        let q = try CLIRunner.run(["query", "--db", people, "Person", "--count"])
        #expect(q.code == 0, "\(q.stderr)")
        #expect(q.stdout == "2000\n")
        let s = try CLIRunner.run(["status", "--db", people])
        #expect(s.code == 0 && s.stdout.contains("version:  0"), "\(s.stdout)\(s.stderr)")
        let e = try CLIRunner.run(["query", "--db", elections, "Candidate", "--count"])
        #expect(e.code == 0 && e.stdout == "2310\n", "\(e.stdout)\(e.stderr)")
        // Unless its WAL still holds commits, which an immutable open would not see: then the message says
        // what to do, rather than "unable to open database file" alone.
        let w = try CLIRunner.run(["query", "--db", pending, "Person", "--count"])
        #expect(w.code == 1)
        #expect(
            w.stderr.contains("cannot open \(pending)") && w.stderr.contains("holds changes not yet in the file")
                && w.stderr.contains("copy the file and its -wal to a writable place"), "\(w.stderr)")

        try expectUnchanged(elections, electionsBefore, "import on a read-only mount", onReadOnlyMedia: true)
        try expectUnchanged(people, peopleBefore, "migrate on a read-only mount", onReadOnlyMedia: true)
        #expect(
            FaultFixtures.listing(fs.directory) == [
                "pending.sqlite", "pending.sqlite-wal", "people.sqlite", "urna.sqlite",
            ])
    }

    @Test(
        "An immutable file (chattr +i, which stops root too): import and migrate refuse, nothing changes, no backup left"
    )
    func immutableFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // On a tmpfs of its own, so a crash mid-test cannot leave an undeletable file in the temporary folder.
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 4096, under: dir)
        defer { fs.unmount() }
        let elections = fs.path("urna.sqlite")
        let people = fs.path("people.sqlite")
        try #require(try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.acPair).code == 0)
        try FaultFixtures.peopleV0(at: people, rows: 2_000)
        let electionsBefore = try DatabaseSnapshot(elections)
        let peopleBefore = try DatabaseSnapshot(people)
        let chattr = try Shell.run("chattr", ["+i", elections, people])
        if chattr.code != 0 {
            try Test.cancel(
                Comment(
                    rawValue:
                        "skipped: chattr +i is not available here (\(chattr.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))"
                ))
        }
        defer { _ = try? Shell.run("chattr", ["-i", elections, people]) }
        #expect(FileHandle(forWritingAtPath: people) == nil, "chattr +i did not stop root from writing")

        let i = try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.mgPair)
        #expect(i.code == 1, "\(i.stderr)")
        #expect(
            withoutLeftoverNotes(i.stderr).hasPrefix(
                "Error: \(elections) is read-only (Operation not permitted): urna import must write to it"),
            "\(i.stderr)")
        let m = try CLIRunner.run(["migrate", "--db", people])
        #expect(m.code == 1, "\(m.stderr)")
        #expect(
            withoutLeftoverNotes(m.stderr).hasPrefix(
                "Error: \(people) is read-only (Operation not permitted): urna migrate must write to it"), "\(m.stderr)"
        )
        try expectUnchanged(elections, electionsBefore, "import on an immutable file")
        try expectUnchanged(people, peopleBefore, "migrate on an immutable file")
        #expect(
            !FaultFixtures.listing(fs.directory).contains { $0.hasSuffix(".bak") },
            "\(FaultFixtures.listing(fs.directory))")
    }

    // MARK: - Locked

    @Test(
        "Another process holds the write lock: import and migrate wait, then say the file is locked; nothing lost; they succeed once it is free"
    )
    func lockedFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let elections = dir.appendingPathComponent("urna.sqlite").path
        try #require(try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.acPair).code == 0)
        let people = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: people, rows: 2_000)
        let electionsBefore = try DatabaseSnapshot(elections)
        let peopleBefore = try DatabaseSnapshot(people)

        let holdElections = try WriteLockHolder(database: elections, statement: "UPDATE Party SET name = name")
        defer { holdElections.release() }
        let holdPeople = try WriteLockHolder(database: people, statement: "UPDATE Person SET age = age")
        defer { holdPeople.release() }
        let i = try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.mgPair)
        #expect(i.code == 1, "\(i.stderr)")
        #expect(
            withoutLeftoverNotes(i.stderr).hasPrefix(
                "Error: \(elections): the database is locked by another process that is writing to it"),
            "\(i.stderr)")
        #expect(i.stderr.contains("try again when that process finishes"), "\(i.stderr)")
        let m = try CLIRunner.run(["migrate", "--db", people])
        #expect(m.code == 1, "\(m.stderr)")
        #expect(
            withoutLeftoverNotes(m.stderr).hasPrefix(
                "Error: \(people) is locked by another process that is writing to it"), "\(m.stderr)")
        #expect(m.stderr.contains("try again when it finishes"), "\(m.stderr)")
        #expect(
            !FaultFixtures.listing(dir).contains { $0.hasSuffix(".bak") }, "backup left: \(FaultFixtures.listing(dir))")
        holdElections.release()
        holdPeople.release()

        try expectUnchanged(elections, electionsBefore, "import while locked")
        try expectUnchanged(people, peopleBefore, "migrate while locked")
        // Control: the same commands succeed once the lock is gone.
        #expect(try CLIRunner.run(["import", "--db", elections, "--quiet"] + FaultFixtures.mgPair).code == 0)
        #expect(try CLIRunner.run(["migrate", "--db", people, "--no-backup"]).code == 0)
    }

    // MARK: - Backup paths

    @Test("migrate --backup PATH that cannot be used is refused before anything is touched")
    func unusableBackupPaths() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: db, rows: 2_000)
        let folder = dir.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let existing = dir.appendingPathComponent("existing.bak")
        try Data("not a database, and not urna's to overwrite\n".utf8).write(to: existing)
        let before = try DatabaseSnapshot(db)
        let listing = FaultFixtures.listing(dir)

        let cases: [(path: String, code: Int32, message: String)] = [
            (
                dir.appendingPathComponent("missing/b.bak").path, 1,
                "Error: the folder \(dir.path)/missing of the backup path \(dir.path)/missing/b.bak does not exist"
            ),
            (folder.path, 1, "Error: the backup path \(folder.path) is a folder: give a file path"),
            (
                existing.path, 1,
                "Error: the backup path \(existing.path) already exists: urna never overwrites a file with a backup"
            ),
            (db, 1, "Error: the backup path \(db) already exists"),
            ("", 64, "Error: --backup needs a file path (or use --no-backup)"),
        ]
        for c in cases {
            let r = try CLIRunner.run(["migrate", "--db", db, "--backup", c.path])
            #expect(r.code == c.code, "--backup '\(c.path)': \(r.stderr)")
            #expect(withoutLeftoverNotes(r.stderr).hasPrefix(c.message), "--backup '\(c.path)': \(r.stderr)")
            #expect(r.stdout.isEmpty, "--backup '\(c.path)' ran: \(r.stdout)")
            try expectUnchanged(db, before, "--backup '\(c.path)'")
            #expect(FaultFixtures.listing(dir) == listing, "--backup '\(c.path)'")
        }
        #expect(try String(contentsOf: existing, encoding: .utf8) == "not a database, and not urna's to overwrite\n")

        // Control: a usable path gets an exact copy of the old file, and the migration runs.
        let good = folder.appendingPathComponent("people.v0.bak").path
        let r = try CLIRunner.run(["migrate", "--db", db, "--backup", good])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try DatabaseSnapshot(good).dump == before.dump)
        #expect(try Shell.sqlite(db, "PRAGMA user_version") == "2")
    }

    // MARK: - Not a database, damaged

    @Test("A file that is not a database, or a damaged one: exit 65 naming the file, and it is never overwritten")
    func notADatabase() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let junk = dir.appendingPathComponent("junk.sqlite").path
        let junkBytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) })
        try junkBytes.write(to: URL(fileURLWithPath: junk))
        let i = try CLIRunner.run(["import", "--db", junk, "--quiet"] + FaultFixtures.acPair)
        #expect(i.code == 65, "\(i.stderr)")
        #expect(
            withoutLeftoverNotes(i.stderr).hasPrefix("Error: \(junk): this is not an SQLite database"), "\(i.stderr)")
        let m = try CLIRunner.run(["migrate", "--db", junk])
        #expect(m.code == 65, "\(m.stderr)")
        #expect(withoutLeftoverNotes(m.stderr).hasPrefix("Error: \(junk) is not an SQLite database"), "\(m.stderr)")
        let dry = try CLIRunner.run(["migrate", "--dry-run", "--db", junk])
        #expect(dry.code == 65, "a dry run says the same, not a failed backup: \(dry.stderr)")
        #expect(withoutLeftoverNotes(dry.stderr).hasPrefix("Error: \(junk) is not an SQLite database"), "\(dry.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: junk)) == junkBytes)

        // A people file with pages overwritten in the middle of its Person table.
        let damaged = dir.appendingPathComponent("damaged.sqlite").path
        try FaultFixtures.peopleV0(at: damaged, rows: 20_000)
        let h = try FileHandle(forUpdating: URL(fileURLWithPath: damaged))
        try h.seek(toOffset: 4096 * 20)
        h.write(Data(repeating: 0x5A, count: 4096 * 5))
        try h.close()
        let damagedBytes = try Data(contentsOf: URL(fileURLWithPath: damaged))
        let d = try CLIRunner.run(["migrate", "--db", damaged])
        #expect(d.code == 65, "\(d.stderr)")
        #expect(
            withoutLeftoverNotes(d.stderr).hasPrefix("Error: \(damaged) is damaged (database disk image is malformed)"),
            "\(d.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: damaged)) == damagedBytes)
        #expect(!FaultFixtures.listing(dir).contains { $0.hasSuffix(".bak") }, "\(FaultFixtures.listing(dir))")
    }
}

/// stderr without the notes a run prints when it removes what another, killed, run left in the shared temporary
/// folder (`note: removed ... left by a run that was stopped ...`): tests run in parallel, so any run may be the one
/// that finds such a leftover, and its note comes before the error the test is about.
private func withoutLeftoverNotes(_ stderr: String) -> String {
    stderr.split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !($0.hasPrefix("note: removed ") && $0.contains("left by a run that was stopped")) }
        .joined(separator: "\n")
}
