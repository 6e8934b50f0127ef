import CSQLite
import Foundation
import UrnaStore

/// Putting a file back as a migration backup holds it.
///
/// ```swift
/// let restored = try MigrationBackup.restore(path: "library.sqlite")   // from library.sqlite.v<N>.bak
/// ```
public enum MigrationBackup {
    /// What a restore did.
    public struct Restored: Sendable, Equatable {
        public let backupPath: String
        public let family: String
        public let version: Int
        /// Where the file was copied, as it was, before the backup replaced it (`<path>.before-restore.bak`, or
        /// the first free `.1.bak`, `.2.bak`, ...).
        public var keptAs: String? = nil
    }

    /// The backups next to `path` (`<path>.v<N>.bak`, regular files), newest first.
    public static func backups(of path: String) -> [String] {
        let folder = PathText.folder(of: path)
        let dir = folder.isEmpty ? "." : folder
        let prefix = (path as NSString).lastPathComponent + ".v"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        // Regular files only (through a symlink too): a FIFO under a backup's name made restore wait forever.
        let found = names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".bak") }.map {
            folder.isEmpty ? $0 : (folder as NSString).appendingPathComponent($0)
        }.filter { path in
            var st = stat()
            return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
        }
        func modified(_ p: String) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: p))?[.modificationDate] as? Date) ?? .distantPast
        }
        return found.sorted { modified($0) > modified($1) }
    }

    /// Copies the backup (default: the newest next to the file) into the file at `path` through SQLite's backup
    /// API, in one transaction of the file (another reader sees the old or the restored state, nothing between).
    /// The backup must pass `PRAGMA integrity_check` and record a schema of the file's own family (when the file
    /// records one); it is kept. So is the file as it was: copied first to `<path>.before-restore.bak` (or the first
    /// free numbered name beside it), so that a restore from the wrong backup loses nothing.
    @discardableResult
    public static func restore(path: String, from backup: String? = nil) throws -> Restored {
        guard FileManager.default.fileExists(atPath: path) else { throw MigrationError.fileNotFound(path: path) }
        guard let source = backup ?? backups(of: path).first else {
            throw MigrationError.restoreRefused(
                path: path, backup: "\(path).v<N>.bak",
                reason: "no backup of it was found next to it: give the backup's path")
        }
        if FileCopy.sameFile(source, path) {
            throw MigrationError.restoreRefused(
                path: path, backup: source, reason: "the backup is the file itself (the same path, or a link to it)")
        }
        let b = try RecordedFile.open(source, readOnly: true)
        let schema = try RecordedFile.schema(in: b, path: source)
        let problems = try b.rows("PRAGMA integrity_check").compactMap { r -> String? in
            if case .text(let s) = r[0], s != "ok" { return s }
            return nil
        }
        guard problems.isEmpty else {
            throw MigrationError.restoreRefused(
                path: path, backup: source,
                reason: "the backup fails its integrity check (\(problems.prefix(3).joined(separator: "; ")))")
        }
        let lock = try MigrationLock(path: path)
        defer { withExtendedLifetime(lock) {} }
        let target = try RecordedFile.open(path, readOnly: false)
        if let current = try? Store.recordedSchema(in: target), current.family != schema.family {
            throw MigrationError.restoreRefused(
                path: path, backup: source,
                reason:
                    "the backup holds the '\(schema.family)' family and the file the '\(current.family)' family: it is "
                    + "not a backup of that file")
        }
        // One page would be copied and committed by the first step below, before the file is kept: an Urna file
        // (sqlite_master and the _urna_schema table at least) always has more.
        guard try b.integer("PRAGMA page_count") > 1 else {
            throw MigrationError.restoreRefused(
                path: path, backup: source, reason: "the backup holds a single page, not an Urna file")
        }
        let wal = try target.rows("PRAGMA journal_mode").first.map({ "\($0[0])".lowercased() == "wal" }) ?? false
        try checkRoom(path: path, source: source, target: target, backup: b, wal: wal)
        // The file's header read directly (its change counter, bytes 24-27, moves with every commit in rollback
        // journal mode). The descriptor is closed only after SQLite's transaction ended: closing any descriptor of
        // a file drops this process's locks on it.
        let raw = open(path, O_RDONLY | O_CLOEXEC)
        defer { if raw >= 0 { close(raw) } }
        func changeCounter() -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: 4)
            return raw >= 0 && pread(raw, &bytes, 4, 24) == 4 ? bytes : nil
        }
        guard let h = sqlite3_backup_init(target.handle, "main", b.handle, "main") else {
            throw MigrationError.storage(
                SQLiteError(
                    code: sqlite3_errcode(target.handle), message: String(cString: sqlite3_errmsg(target.handle))))
        }
        var finished = false
        defer { if !finished { sqlite3_backup_finish(h) } }  // unfinished: the file's transaction rolls back
        func check(_ rc: Int32, done: Bool) throws {
            guard rc == (done ? SQLITE_DONE : SQLITE_OK) else {
                if rc & 0xFF == SQLITE_BUSY || rc & 0xFF == SQLITE_LOCKED { throw MigrationError.busy(path: path) }
                throw MigrationError.storage(SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc))))
            }
        }
        var keep = "\(path).before-restore.bak"
        if FileManager.default.fileExists(atPath: keep) { keep = FileCopy.freeNumberedName(for: keep) }
        // The copy of the file as it was is only worth keeping if the restore replaces the file.
        var kept = false
        var restored = false
        defer { if kept && !restored { FileCopy.removeWithSidecars(keep) } }
        // A commit landing between the copy of the file as it was and the restore was in neither, lost without a
        // word (50 to 1,220 of 1,220 rows of a writer in the trial).
        if wal {
            // WAL: the first page opens the file's write transaction, held to the last; readers still read, so the
            // copy is taken inside it.
            try check(sqlite3_backup_step(h, 1), done: false)
            try FileCopy.backup(sourcePath: path, to: keep)
            kept = true
        } else {
            // A rollback journal: the backup's transaction is exclusive and would shut the copy's reader out. The
            // copy first, then the lock; a commit in between moved the change counter: busy, nothing changed.
            let counter = changeCounter()
            try FileCopy.backup(sourcePath: path, to: keep)
            kept = true
            try check(sqlite3_backup_step(h, 1), done: false)
            guard let counter, changeCounter() == counter else { throw MigrationError.busy(path: path) }
        }
        let rc = sqlite3_backup_step(h, -1)
        sqlite3_backup_finish(h)
        finished = true
        try check(rc, done: true)
        restored = true
        return Restored(backupPath: source, family: schema.family, version: schema.version, keptAs: keep)
    }

    /// Refuses, before anything is written, a restore the file's disk cannot hold: the copy of the file as it was,
    /// plus the backup's pages and their journal (a rollback journal keeps about as many old pages as the backup
    /// writes; a WAL holds all of them, and the file grows at the checkpoint when the backup is larger).
    static func checkRoom(path: String, source: String, target: Connection, backup: Connection, wal: Bool) throws {
        func bytes(_ c: Connection) throws -> Int64 {
            Int64(try c.integer("PRAGMA page_size")) * Int64(try c.integer("PRAGMA page_count"))
        }
        let fileBytes = try bytes(target)
        let backupBytes = try bytes(backup)
        let restoring = (wal ? backupBytes + max(0, backupBytes - fileBytes) : backupBytes) + 262_144
        let needed = fileBytes + restoring
        guard let free = Migrator.freeBytes(near: path), free < needed else { return }
        throw MigrationError.noRoom(
            path: path, task: "restore it from \(source)", needed: needed, available: free,
            detail: "\(SpaceNeed.megabytes(fileBytes)) for the copy of the file as it was, "
                + "\(SpaceNeed.megabytes(restoring)) for the restored pages and their journal")
    }
}
