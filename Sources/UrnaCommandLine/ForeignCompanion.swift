import Foundation

/// A write-ahead log or rollback journal beside a database that cannot be the database's own: SQLite finds
/// them by name alone and takes their pages for the file's. A `-wal` left by another database (a file copied
/// over `a.sqlite` while `a.sqlite-wal` stayed, or a folder someone prepared) made `import` say "already holds
/// tables that Urna did not create" while the checkpoint at its close wrote the other database over the file
/// (2,388 candidacies gone, exit 65); a foreign `-journal` was "rolled back" into the file by `status`, leaving
/// it malformed. A -wal carries the page size of its database, which cannot change in WAL mode (`PRAGMA
/// page_size` then `VACUUM` leaves it as it was): another page size means another database. A rollback journal
/// is written at the page size the file had when its transaction began, and a `VACUUM` that changes the page
/// size and is cut short leaves the file's header at the new size beside its own journal at the old one: there
/// the journal's copy of page 1 (the file's header before the transaction) decides, see ``JournalPageOne``.
enum ForeignCompanion {
    /// What is wrong with `path`'s -wal or -journal, said for a message; nil when they are absent or may be its own.
    static func problem(_ path: String) -> String? {
        // SQLite names the -wal and -journal after the file a symbolic link leads to: both names are checked.
        if let resolved = realPath(path), resolved != path, let found = problem(resolvedFile: resolved) {
            return found
        }
        return problem(resolvedFile: path)
    }

    static func realPath(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    private static func problem(resolvedFile path: String) -> String? {
        guard let own = pageSize(ofDatabase: path) else { return nil }
        let wal = InputChecks.firstBytes(path + "-wal", 32)
        if wal.count == 32, [0x377f_0682, 0x377f_0683].contains(bigEndian(wal, 0)) {
            let size = Int(bigEndian(wal, 8))
            if size != own { return refusal(path, suffix: "-wal", what: "write-ahead log", size: size, own: own) }
        }
        let journal = InputChecks.firstBytes(path + "-journal", 28)
        if journal.count == 28, journal.starts(with: journalMagic) {
            let size = Int(bigEndian(journal, 24))
            // A header not yet written (zeros) is no journal to SQLite either.
            if size != 0, size != own, JournalPageOne.belongsElsewhere(journal: path + "-journal", file: path) {
                return refusal(path, suffix: "-journal", what: "rollback journal", size: size, own: own)
            }
        }
        return nil
    }

    static let journalMagic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]

    /// The page size an SQLite file's header gives (offset 16, big-endian; 1 means 65536), nil when `path` is
    /// not an SQLite file with a whole header.
    static func pageSize(ofDatabase path: String) -> Int? {
        let header = InputChecks.firstBytes(path, 100)
        guard header.count == 100, header.starts(with: InputChecks.sqliteMagic) else { return nil }
        let size = Int(header[16]) << 8 | Int(header[17])
        return size == 1 ? 65536 : size
    }

    static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func refusal(_ path: String, suffix: String, what: String, size: Int, own: Int) -> String {
        let copy = "cp \(path) \(path).copy && cp \(path)\(suffix) \(path)\(suffix).copy"
        return "\(path)\(suffix) is the \(what) of another database (its pages are \(size) bytes, \(path)'s are "
            + "\(own)): SQLite finds it by name and would write its pages over \(path)'s own; nothing was changed: "
            + "keep a copy of both files first (\(copy)), then move it away (mv \(path)\(suffix) "
            + "\(path)\(suffix).other) or put back the file it belongs to"
    }
}
