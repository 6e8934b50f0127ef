import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `/dev/fd/N` and `/proc/self/fd/N` as output paths: a descriptor the caller opened is written through; one
/// that is not open is refused, since urna's own files (the database, its -wal and -shm) get such numbers.
@Suite struct DescriptorPathTests {
    /// Closes descriptors 3 to 9 for urna, whatever the test process lets it inherit.
    static let closed = "3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&-"

    @Test("--rejects, export --out and datasette-metadata --out /dev/fd/N not open: exit 64, database untouched")
    func unopenedDescriptorsRefused() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let bad = try OutputPathAttackTests.badRows(dir, rows: 3)
        let before = Hostile.bytes(dir, db)
        for n in 3...8 {
            for target in ["/dev/fd/\(n)", "/proc/self/fd/\(n)"] {
                // `--rejects /dev/fd/4` used to write the CSV over the database (exit 0, "file is not a database"
                // afterwards); 5 and 6 sent the rows into its -wal/-shm, and exports went there, exit 0.
                for args in [
                    ["import", "--db", db, "--rejects", target, bad],
                    ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", target],
                    ["datasette-metadata", "--db", db, "--out", target],
                ] {
                    let r = try Hostile.urna(args, in: dir, redirections: Self.closed)
                    #expect(r.code == 64, "\(args): \(r.stderr)")
                    #expect(r.stderr.contains("names descriptor \(n), which is not open"), "\(args): \(r.stderr)")
                    #expect(Hostile.bytes(dir, db) == before, "\(args)")
                }
            }
        }
        #expect(try Hostile.sql(dir.appendingPathComponent(db).path, "PRAGMA integrity_check") == ["ok"])
    }

    @Test("A descriptor the shell opened (3>file) receives the rejects and the export")
    func openDescriptorWrittenThrough() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let bad = try OutputPathAttackTests.badRows(dir, rows: 3)
        let r = try Hostile.urna(
            ["import", "--db", db, "--rejects", "/dev/fd/3", bad], in: dir, redirections: "3>rows.csv")
        #expect(r.code == 0, "\(r.stderr)")
        let rows = String(decoding: Hostile.bytes(dir, "rows.csv") ?? Data(), as: UTF8.self)
        #expect(rows.split(separator: "\n").count == 4, "\(rows)")
        let e = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "/proc/self/fd/7"], in: dir,
            redirections: "7>coalitions.csv")
        #expect(e.code == 0, "\(e.stderr)")
        #expect((Hostile.bytes(dir, "coalitions.csv") ?? Data()).count > 1000)
        // The database opened on a descriptor is still refused, as any other name for it.
        let same = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "/dev/fd/3"], in: dir,
            redirections: "3<>\(db)")
        #expect(same.code == 64, "\(same.stderr)")
        #expect(same.stderr.contains("writing there would destroy it"), "\(same.stderr)")
    }
}
