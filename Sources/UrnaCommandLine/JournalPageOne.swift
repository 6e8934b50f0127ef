import Foundation

/// Whether a hot rollback journal whose page size differs from its database file's is still the file's own.
/// SQLite journals a page before it writes it, and the page size lives in page 1's header: a file whose header
/// already gives another page size than its journal's (a `PRAGMA page_size` then `VACUUM` cut short) had page 1
/// copied into that journal first, as it was. So the journal's page 1 is compared with the file's header: the
/// text encoding, `application_id` and `user_version` are kept by `VACUUM`, and every write transaction in
/// rollback mode raises the change counter (offset 24) by one. Anything else is another database's journal;
/// when the journal cannot be read as one (no page 1 because the database was empty), SQLite's own rule holds.
enum JournalPageOne {
    /// True when the journal at `journal` clearly belongs to a database other than `file`.
    static func belongsElsewhere(journal: String, file: String) -> Bool {
        let header = InputChecks.firstBytes(file, 100)
        guard header.count == 100 else { return false }
        let fd = open(journal, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        let first = bytes(fd, at: 0, count: 28)
        guard first.count == 28, Int(ForeignCompanion.bigEndian(first, 16)) > 0 else { return false }
        guard let image = pageOne(fd, size: Int(st.st_size)) else {
            // The file's header was written (its page size changed) without page 1 journaled first.
            return true
        }
        return differs(image: image, file: header)
    }

    /// The first 100 bytes of page 1's record in the journal, read segment by segment; nil when it holds none.
    static func pageOne(_ fd: Int32, size: Int) -> [UInt8]? {
        var offset = 0
        while offset + 28 <= size {
            let head = bytes(fd, at: offset, count: 28)
            guard head.count == 28, head.starts(with: ForeignCompanion.journalMagic) else { return nil }
            let count = ForeignCompanion.bigEndian(head, 8)
            let sector = Int(ForeignCompanion.bigEndian(head, 20))
            let page = Int(ForeignCompanion.bigEndian(head, 24))
            guard sector >= 28, page >= 512 else { return nil }
            var at = offset + sector
            // 0 and 0xffffffff: the count was not written, SQLite reads records to the end of the file.
            let records = count == 0 || count == 0xffff_ffff ? Int.max : Int(count)
            var read = 0
            while read < records, at + page + 8 <= size {
                let number = bytes(fd, at: at, count: 4)
                guard number.count == 4 else { return nil }
                if ForeignCompanion.bigEndian(number, 0) == 1 { return bytes(fd, at: at + 4, count: 100) }
                at += page + 8
                read += 1
            }
            guard records != Int.max else { return nil }
            // The next segment's header starts at the next sector boundary.
            offset = (at + sector - 1) / sector * sector
        }
        return nil
    }

    /// True when the journal's page 1 `image` cannot be the earlier state of the header `file`.
    static func differs(image: [UInt8], file: [UInt8]) -> Bool {
        guard image.count == 100, image.starts(with: InputChecks.sqliteMagic) else { return true }
        func field(_ bytes: [UInt8], _ offset: Int) -> UInt32 { ForeignCompanion.bigEndian(bytes, offset) }
        // Text encoding (56), user_version (60), application_id (68).
        for offset in [56, 60, 68] where field(image, offset) != field(file, offset) { return true }
        return field(file, 24) != field(image, 24) &+ 1
    }

    private static func bytes(_ fd: Int32, at offset: Int, count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        return n == count ? buffer : []
    }
}
