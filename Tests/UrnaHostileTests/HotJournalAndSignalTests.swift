import CSQLite
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// After a crash left a hot rollback journal, readers work; SIGINT/SIGTERM stop a run with nothing changed.
@Suite struct HotJournalAndSignalTests {
    /// A copy of an Urna file taken mid-write (the database with half a transaction in it and its journal),
    /// as a crash leaves it: nobody holds its lock, so the journal is hot.
    static func crashedCopy(in dir: URL) throws -> String {
        let db = try Hostile.importedDatabase(in: dir, name: "live.sqlite")
        let live = dir.appendingPathComponent(db).path
        try Hostile.sql(live, "PRAGMA journal_mode = DELETE")
        var handle: OpaquePointer?
        #expect(sqlite3_open(live, &handle) == SQLITE_OK)
        defer { sqlite3_close(handle) }
        // A tiny cache makes SQLite write changed pages into the file before the commit.
        #expect(
            sqlite3_exec(
                handle,
                "PRAGMA cache_size = 5; BEGIN; UPDATE Good SET goodDescription = goodDescription || 'xxxxxxxxxxxxxxxx'",
                nil, nil, nil) == SQLITE_OK)
        let crashed = dir.appendingPathComponent("crashed.sqlite")
        try FileManager.default.copyItem(atPath: live, toPath: crashed.path)
        try FileManager.default.copyItem(atPath: live + "-journal", toPath: crashed.path + "-journal")
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        let journal = try FileManager.default.attributesOfItem(atPath: crashed.path + "-journal")[.size] as? Int
        #expect((journal ?? 0) > 0, "the copy must hold a non-empty (hot) journal")
        return crashed.lastPathComponent
    }

    @Test("status, query and export work on a file a crash left with a hot journal, and see the committed data")
    func hotJournalReaders() throws {
        for command in [
            ["status"], ["query", "Good", "value > 0"], ["export", "--format", "csv", "--type", "Coalition"],
        ] {
            let dir = try Hostile.folder()
            let crashed = try Self.crashedCopy(in: dir)
            let r = try Hostile.urna([command[0], "--db", crashed] + command.dropFirst(), in: dir)
            #expect(r.code == 0, "\(command): \(r.stderr)")
            #expect(!r.stderr.contains("read-only"))
            #expect(try Hostile.sql(dir.appendingPathComponent(crashed).path, "PRAGMA integrity_check") == ["ok"])
            let changed = try Hostile.sql(
                dir.appendingPathComponent(crashed).path,
                "SELECT count(*) FROM Good WHERE goodDescription LIKE '%xxxxxxxxxxxxxxxx'")
            #expect(changed == ["0"])
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(crashed + "-journal").path))
        }
    }

    /// A CSV of bad rows big enough that writing their rejects takes seconds (the run is interrupted in it).
    static func slowInput(_ dir: URL) throws -> String {
        try OutputPathAttackTests.badRows(dir, rows: 1_500_000, name: "slow.csv")
    }

    @Test("SIGINT during an import into a new file: exit 130, the message, and no file left behind")
    func interruptNewImport() throws {
        let dir = try Hostile.folder()
        let input = try Self.slowInput(dir)
        let before = Hostile.listing(dir)
        let r = try Hostile.urna(
            ["import", "--db", "new.sqlite", "--max-rejects-bytes", "none", input], in: dir, signal: SIGINT, after: 0.5)
        #expect(r.code == 130, "\(r.stderr)")
        #expect(r.stderr == "interrupted: nothing was changed\n")
        #expect(Hostile.listing(dir) == before)
        #expect(r.seconds < 30)
    }

    @Test("SIGTERM during an import into an existing file: exit 143, the file byte-identical")
    func terminateExistingImport() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let input = try Self.slowInput(dir)
        let before = Hostile.bytes(dir, db)
        let listing = Hostile.listing(dir)
        let r = try Hostile.urna(
            ["import", "--db", db, "--max-rejects-bytes", "none", input], in: dir, signal: SIGTERM, after: 0.5)
        #expect(r.code == 143, "\(r.stderr)")
        #expect(r.stderr.contains("interrupted: nothing was changed"))
        #expect(Hostile.bytes(dir, db) == before)
        #expect(Hostile.listing(dir).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == listing)
    }

    @Test("SIGINT during a migration: exit 130, the file byte-identical at its old version, no backup left")
    func interruptMigration() throws {
        let dir = try Hostile.folder()
        #expect(
            try Hostile.urna(["init", "--db", "p.sqlite", "--family", "people", "--version", "0"], in: dir).code == 0)
        try Hostile.sql(
            dir.appendingPathComponent("p.sqlite").path,
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) "
                + "INSERT INTO Person(firstName, lastName, age) SELECT 'First' || x, 'Last' || x, x % 90 FROM c")
        let before = Hostile.bytes(dir, "p.sqlite")
        let listing = Hostile.listing(dir)
        let r = try Hostile.urna(["migrate", "--db", "p.sqlite"], in: dir, signal: SIGINT, after: 0.5)
        #expect(r.code == 130, "\(r.stderr)")
        #expect(r.stderr.contains("interrupted: nothing was changed"))
        #expect(Hostile.bytes(dir, "p.sqlite") == before)
        #expect(Hostile.listing(dir).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == listing)
    }

    @Test("SIGTERM during an export: exit 143, no output file and no temporary file left")
    func terminateExport() throws {
        let dir = try Hostile.folder()
        let zip = try Hostile.sample("consulta_cand_2018_BRASIL.zip", into: dir)
        #expect(try Hostile.urna(["import", "--db", "db.sqlite", "--quiet", zip], in: dir).code == 0)
        let listing = Hostile.listing(dir)
        let r = try Hostile.urna(
            ["export", "--db", "db.sqlite", "--format", "xml", "--out", "out.xml"], in: dir, signal: SIGTERM, after: 0.3
        )
        #expect(r.code == 143, "\(r.stderr)")
        #expect(Hostile.listing(dir).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") } == listing)
    }

    @Test("A hot journal on a read-only mount is explained with the command that recovers it (needs root to mount)")
    func hotJournalExplainedWhenTheFileCannotBeWritten() throws {
        let dir = try Hostile.folder()
        let crashed = try Self.crashedCopy(in: dir)
        let mountPoint = try Hostile.folder()
        guard try Hostile.tool("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", mountPoint.path]) == 0 else {
            try Test.cancel("skipped: cannot mount a tmpfs (needs root, CAP_SYS_ADMIN)")
        }
        defer { _ = try? Hostile.tool("/bin/umount", ["-l", mountPoint.path]) }
        for name in [crashed, crashed + "-journal"] {
            try FileManager.default.copyItem(
                at: dir.appendingPathComponent(name), to: mountPoint.appendingPathComponent(name))
        }
        #expect(try Hostile.tool("/bin/mount", ["-o", "remount,ro", mountPoint.path]) == 0)
        let r = try Hostile.urna(["status", "--db", crashed], in: mountPoint)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.contains("was left mid-write") && r.stderr.contains("sqlite3 \(crashed) 'PRAGMA integrity_check'"),
            "\(r.stderr)")
    }
}
