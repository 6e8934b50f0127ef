import Foundation
import Testing

/// A `PRAGMA page_size` then `VACUUM` cut short in rollback-journal mode leaves the file's header at the new page
/// size beside its own hot journal at the old one. `status` called that journal "another database's" (exit 65)
/// and advised moving it away, which leaves the file malformed; SQLite rolls it back whole.
@Suite struct OwnHotJournalTests {
    /// The hot journal SQLite writes before replacing every page of a database whose bytes were `original`
    /// (header, then one record per page: number, page, checksum over every 200th byte from the end).
    static func journal(of original: Data, pageSize: Int) -> Data {
        func be(_ v: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
        let pages = original.count / pageSize
        var out: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
        out += be(UInt32(pages)) + be(0) + be(UInt32(pages)) + be(512) + be(UInt32(pageSize))
        out += [UInt8](repeating: 0, count: 512 - out.count)
        let bytes = [UInt8](original)
        for number in 1...pages {
            let page = bytes[(number - 1) * pageSize..<number * pageSize]
            var sum: UInt32 = 0
            var i = pageSize - 200
            while i > 0 {
                sum &+= UInt32(page[page.startIndex + i])
                i -= 200
            }
            out += be(UInt32(number)) + page + be(sum)
        }
        return Data(out)
    }

    static func pageSize(_ path: String) -> Int {
        let h = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: path)).prefix(18)) ?? Data())
        return h.count == 18 ? Int(h[16]) << 8 | Int(h[17]) : 0
    }

    @Test("status beside the file's own hot journal from a page-size VACUUM rolls it back; nothing is refused")
    func ownJournalAtTheOldPageSize() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "PRAGMA journal_mode = DELETE")
        let old = Self.pageSize(path)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let new = old == 4096 ? 8192 : 4096
        try Hostile.sql(path, "PRAGMA page_size = \(new); VACUUM")
        #expect(Self.pageSize(path) == new)
        // The crash: the file already rewritten at the new size, its journal still there.
        try Self.journal(of: original, pageSize: old).write(to: URL(fileURLWithPath: path + "-journal"))
        let r = try Hostile.urna(["query", "--db", db, "Candidate", "--count"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "2388\n", "\(r.stdout)")
        #expect(Self.pageSize(path) == old, "rolled back to the page size it had")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        #expect(try Hostile.sql(path, "PRAGMA integrity_check") == ["ok"])
    }

    @Test("a hot journal without page 1 beside a file at another page size is refused, with copies advised first")
    func journalWithoutPageOne() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try Hostile.importedDatabase(in: dir)
        let path = dir.appendingPathComponent(db).path
        try Hostile.sql(path, "PRAGMA journal_mode = DELETE")
        let old = Self.pageSize(path)
        var original = try Data(contentsOf: URL(fileURLWithPath: path))
        original = original.prefix(old * 3)
        try Hostile.sql(path, "PRAGMA page_size = \(old == 4096 ? 8192 : 4096); VACUUM")
        var journal = Self.journal(of: original, pageSize: old)
        // Page 1's record renumbered: the journal no longer holds the file's header as it was.
        journal[512 + 3] = 7
        try journal.write(to: URL(fileURLWithPath: path + "-journal"))
        let before = Hostile.bytes(dir, db)
        let r = try Hostile.urna(["status", "--db", db], in: dir)
        #expect(r.code == 65, "\(r.stderr)")
        #expect(r.stderr.contains("\(db)-journal is the rollback journal of another database"), "\(r.stderr)")
        #expect(r.stderr.contains("keep a copy of both files first"), "\(r.stderr)")
        #expect(Hostile.bytes(dir, db) == before)
    }
}
