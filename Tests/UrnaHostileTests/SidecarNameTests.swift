import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A path named as another database's companion file (`b.sqlite-wal`, `-shm`, `-journal` beside an SQLite
/// file `b.sqlite`): SQLite finds those files by name alone and deletes or rewrites what it finds there the next
/// time `b.sqlite` is opened. A database or an output created under such a name was lost without a word.
@Suite struct SidecarNameTests {
    /// A folder holding `b.sqlite`, a people file in WAL mode (no -wal or -shm left once urna exits).
    static func folderWithDatabase() throws -> URL {
        let dir = try Hostile.folder()
        let r = try Hostile.urna(["init", "--db", "b.sqlite", "--family", "people"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        return dir
    }

    @Test("import --db b.sqlite-wal beside b.sqlite: exit 64, nothing created (the imported file was deleted later)")
    func importIntoAnotherDatabasesLog() throws {
        let dir = try Self.folderWithDatabase()
        let cand = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "cand.txt")
        let listing = Hostile.listing(dir)
        // Before: exit 0, b.sqlite-wal held every candidacy, and the next `sqlite3 b.sqlite` deleted it.
        let r = try Hostile.urna(["import", "--db", "b.sqlite-wal", "--quiet", cand], in: dir)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(
            r.stderr.contains("--db b.sqlite-wal has the name SQLite gives b.sqlite's write-ahead log"), "\(r.stderr)")
        #expect(Hostile.listing(dir) == listing)
    }

    @Test("init --db b.sqlite-shm and --db b.sqlite-journal beside b.sqlite: exit 64, nothing created")
    func initAsAnotherDatabasesCompanion() throws {
        let dir = try Self.folderWithDatabase()
        let listing = Hostile.listing(dir)
        for (name, what) in [("b.sqlite-shm", "shared-memory index"), ("b.sqlite-journal", "rollback journal")] {
            let r = try Hostile.urna(["init", "--db", name, "--family", "people"], in: dir)
            #expect(r.code == 64, "\(name): \(r.stderr)")
            #expect(r.stderr.contains("has the name SQLite gives b.sqlite's \(what)"), "\(r.stderr)")
        }
        #expect(Hostile.listing(dir) == listing)
    }

    @Test("An existing database named b.sqlite-wal is refused with the way out (move it), never written")
    func existingFileUnderACompanionName() throws {
        let dir = try Self.folderWithDatabase()
        #expect(try Hostile.urna(["init", "--db", "kept.sqlite", "--family", "people"], in: dir).code == 0)
        try FileManager.default.moveItem(
            at: dir.appendingPathComponent("kept.sqlite"), to: dir.appendingPathComponent("b.sqlite-wal"))
        let before = Hostile.bytes(dir, "b.sqlite-wal")
        let r = try Hostile.urna(["sql", "--db", "b.sqlite-wal", "--write", "CREATE TABLE mine(x)"], in: dir)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(r.stderr.contains("move it to one first, such as b.sqlite-wal.sqlite"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, "b.sqlite-wal") == before)
    }

    @Test("export --out, datasette-metadata --out, --rejects and --backup named as another database's -wal: exit 64")
    func outputsUnderACompanionName() throws {
        let dir = try Self.folderWithDatabase()
        let cand = try Hostile.sample("consulta_cand_2016_AC.txt", into: dir, as: "cand.txt")
        let old = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        #expect(try Hostile.urna(["import", "--db", "e.sqlite", "--quiet", cand], in: dir).code == 0)
        let listing = Hostile.listing(dir)
        let oldBytes = Hostile.bytes(dir, old)
        for (args, option) in [
            (
                ["export", "--db", "e.sqlite", "--format", "csv", "--type", "Coalition", "--out", "b.sqlite-wal"],
                "--out"
            ),
            (["datasette-metadata", "--db", "e.sqlite", "--out", "b.sqlite-journal"], "--out"),
            (["import", "--db", "e.sqlite", "--rejects", "b.sqlite-wal", cand], "--rejects"),
            (["migrate", "--db", old, "--backup", "b.sqlite-wal"], "--backup"),
        ] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("\(option) b.sqlite-"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains("has the name SQLite gives b.sqlite's"), "\(args): \(r.stderr)")
        }
        #expect(Hostile.listing(dir) == listing)
        #expect(Hostile.bytes(dir, old) == oldBytes)
    }

    @Test("A name ending in -wal with no SQLite file under the shorter name is an ordinary name")
    func ordinaryNameEndingLikeACompanion() throws {
        let dir = try Hostile.folder()
        try Data("notes\n".utf8).write(to: dir.appendingPathComponent("b.sqlite"))  // not a database
        let r = try Hostile.urna(["init", "--db", "b.sqlite-wal", "--family", "people"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(try Hostile.urna(["status", "--db", "b.sqlite-wal"], in: dir).code == 0)
    }

    /// The other order: a database made at `c.sqlite-wal` while no `c.sqlite` existed is deleted by SQLite as
    /// soon as a database `c.sqlite` is opened beside it (SQLite takes it for a log).
    @Test("A database under c.sqlite's companion name stops urna opening c.sqlite (exit 65), and keeps its bytes")
    func databaseUnderTheCompanionNameOfANewOne() throws {
        let dir = try Hostile.folder()
        #expect(try Hostile.urna(["init", "--db", "c.sqlite-wal", "--family", "people"], in: dir).code == 0)
        let before = Hostile.bytes(dir, "c.sqlite-wal")
        for args in [["init", "--db", "c.sqlite", "--family", "people"], ["status", "--db", "c.sqlite"]] {
            let r = try Hostile.urna(args, in: dir)
            #expect(r.code == 65 || r.code == 66, "\(args): \(r.stderr)")
            if args[0] == "init" {
                #expect(r.code == 65 && r.stderr.contains("c.sqlite-wal is an SQLite database"), "\(r.stderr)")
            }
        }
        #expect(Hostile.bytes(dir, "c.sqlite-wal") == before)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("c.sqlite").path))
    }

    /// A new output beside a WAL database, named as its -shm: refused (the check compared the name with itself
    /// and could never refuse; SQLite deleted the 108,894 bytes written there at the next opening).
    @Test("export --out b.sqlite-shm beside a WAL database: exit 64, nothing written")
    func newOutputNamedAsTheShm() throws {
        let dir = try Self.folderWithDatabase()
        #expect(try Hostile.urna(["init", "--db", "e.sqlite", "--family", "people"], in: dir).code == 0)
        let listing = Hostile.listing(dir)
        let r = try Hostile.urna(
            ["export", "--db", "e.sqlite", "--format", "json", "--type", "Person", "--out", "b.sqlite-shm"], in: dir)
        #expect(r.code == 64, "\(r.stderr)")
        #expect(r.stderr.contains("has the name SQLite gives b.sqlite's shared-memory index"), "\(r.stderr)")
        #expect(Hostile.listing(dir) == listing)
    }

    @Test("A symbolic link planted as the database's -wal, -shm or -journal: exit 1 naming the link and the fix")
    func plantedSidecarLink() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        try Data("precious\n".utf8).write(to: dir.appendingPathComponent("victim.txt"))
        let before = Hostile.bytes(dir, db)
        for suffix in ["-wal", "-shm", "-journal"] {
            let link = dir.appendingPathComponent(db + suffix).path
            try? FileManager.default.removeItem(atPath: link)
            #expect(symlink("victim.txt", link) == 0)
            // Before: "cannot open the database (unable to open database file): its folder must exist and be
            // writable", or "SQLite error 14" for a query: nothing said where the trouble was.
            for args in [["query", "--db", db, "Party", "--count"], ["import", "--db", db, "--quiet", "bens.csv"]] {
                let r = try Hostile.urna(args, in: dir)
                #expect(r.code == 1, "\(args) \(suffix): \(r.stderr)")
                #expect(
                    r.stderr.contains("\(db)\(suffix) is a symbolic link (to victim.txt)")
                        && r.stderr.contains("rm \(db)\(suffix)"), "\(args) \(suffix): \(r.stderr)")
            }
            try FileManager.default.removeItem(atPath: link)
        }
        #expect(Hostile.bytes(dir, "victim.txt") == Data("precious\n".utf8))
        #expect(Hostile.bytes(dir, db) == before)
    }
}
