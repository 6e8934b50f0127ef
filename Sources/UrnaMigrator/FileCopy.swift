import CSQLite
import Foundation
import UrnaStore

/// Copies of database files: the backup and the private copy a dry run works on, both consistent snapshots
/// taken through SQLite's online backup API (one read transaction for the whole copy, so a writer committing
/// meanwhile never tears them). Both are written under a temporary name that carries this process's id,
/// synced, then renamed into place; leftovers of a killed process are removed by the next run.
public enum FileCopy {
    /// The files that make up a database on disk besides the main file.
    static let sidecars = ["-wal", "-journal"]

    /// The name a copy is written under before it is complete: `<final>.tmp-<pid>`.
    public static func temporaryName(for path: String) -> String { "\(path).tmp-\(getpid())" }

    /// Copies the database at `sourcePath` into `path` as one consistent snapshot. With `replacing`, a file
    /// already at `path` is replaced (atomically, by rename) once the copy is complete; without, the copy
    /// never overwrites anything. The copy gets the source's permission bits.
    /// `progress(copied, total)` (pages), called before the copy starts and after each 1,024 pages, may stop it
    /// by returning false: the copy is removed and `MigrationError.cancelled` thrown. The caller must hold the
    /// file's write lock then (the runner does): steps of a backup restart when another connection commits.
    ///
    /// Returns where an earlier backup at `path` was kept when it held other data than the new one (replacing it
    /// would lose the only copy of that data): `<name>.1.bak`, `.2.bak`, ... beside it. An earlier backup equal
    /// byte for byte to the new one is simply kept (a rerun after a failed run); nil then, and when none was there.
    @discardableResult
    static func backup(
        sourcePath: String, to path: String, replacing: Bool = false, progress: ((Int, Int) -> Bool)? = nil
    ) throws -> String? {
        removeStaleTemporaries(near: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw MigrationError.backupFailed(path: path, reason: "a folder is there, not a backup")
        }
        if !replacing, FileManager.default.fileExists(atPath: path) {
            throw MigrationError.backupFailed(path: path, reason: "a file is already there")
        }
        if sameFile(sourcePath, path) {
            throw MigrationError.backupFailed(
                path: path, reason: "that name is the database itself (a hard or symbolic link to it), not a backup")
        }
        // SQLite reads a file through whatever -wal or -journal has its name: one left there (another database's
        // log, a copy's) made the new backup read as that other database ("not an Urna file"), exit 0.
        for suffix in ["-wal", "-journal"] {
            var st = stat()
            if lstat(path + suffix, &st) == 0, st.st_size > 0 || st.st_mode & S_IFMT != S_IFREG {
                throw MigrationError.backupFailed(
                    path: path,
                    reason: "\(path)\(suffix) is already there, and SQLite would read the backup through it as "
                        + "another database's \(suffix == "-wal" ? "write-ahead log" : "rollback journal"); move it away "
                        + "(or give --backup another name)")
            }
        }
        let temporary = temporaryName(for: path)
        do {
            // A backup is one self-contained file (rollback journal): nothing to lose beside it.
            try snapshot(sourcePath, into: temporary, singleFile: true, progress: progress)
            try syncFile(temporary)
            var keptAside: String?
            if replacing {
                if FileManager.default.fileExists(atPath: path) {
                    if FileManager.default.contentsEqual(atPath: temporary, andPath: path) {
                        removeWithSidecars(temporary)
                        return nil
                    }
                    let aside = freeNumberedName(for: path)
                    guard link(path, aside) == 0 else { throw posixError("link") }
                    keptAside = aside
                }
                guard rename(temporary, path) == 0 else { throw posixError("rename") }
            } else {
                // link(2) fails when the name is taken: a backup never replaces a file someone made meanwhile.
                guard link(temporary, path) == 0 else { throw posixError("link") }
                unlink(temporary)
            }
            syncFolder(of: path)
            return keptAside
        } catch {
            removeWithSidecars(temporary)
            if let e = error as? MigrationError { throw e }
            throw MigrationError.backupFailed(path: path, reason: (error as? SQLiteError)?.message ?? "\(error)")
        }
    }

    /// Writes a snapshot of `sourcePath` into the new file `target` (created exclusively). With `singleFile`,
    /// the copy is switched to a rollback journal, so it is complete without a -wal.
    static func snapshot(
        _ sourcePath: String, into target: String, singleFile: Bool = false, progress: ((Int, Int) -> Bool)? = nil
    ) throws {
        let mode = sourceMode(sourcePath)
        let fd = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        guard fd >= 0 else { throw posixError("create \(target)") }
        close(fd)
        _ = chmod(target, mode)
        let source: Connection
        do {
            source = try Connection(path: sourcePath, readOnly: true, create: false)
        } catch let e as SQLiteError where e.code == 776 || e.isReadOnly {  // SQLITE_READONLY_ROLLBACK
            // A hot journal (a writer died mid-transaction): only a writer may roll it back. Nobody holds the
            // file, so its bytes with the journal make a copy that rolls itself back when opened.
            try copyWithJournal(sourcePath, into: target)
            return
        }
        let destination = try Connection(path: target, readOnly: false, create: false)
        guard let b = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw SQLiteError(
                code: sqlite3_errcode(destination.handle), message: String(cString: sqlite3_errmsg(destination.handle)))
        }
        var rc: Int32
        var attempts = 0
        // Without `progress`, all pages in one step: one read transaction on the source, so the copy is one
        // commit's state even while others write. With it (the runner, holding the write lock, so nobody can
        // commit between steps), 1,024 pages a step, reporting and checking for a cancel between them.
        let pagesPerStep: Int32 = progress == nil ? -1 : 1024
        if let progress, !progress(0, 0) {
            sqlite3_backup_finish(b)
            throw MigrationError.cancelled(path: sourcePath)
        }
        repeat {
            rc = sqlite3_backup_step(b, pagesPerStep)
            attempts += 1
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED { usleep(20_000) }
            if rc == SQLITE_OK, let progress {
                let total = Int(sqlite3_backup_pagecount(b))
                if !progress(total - Int(sqlite3_backup_remaining(b)), total) {
                    sqlite3_backup_finish(b)
                    throw MigrationError.cancelled(path: sourcePath)
                }
                attempts = 0
            }
        } while (rc == SQLITE_BUSY || rc == SQLITE_LOCKED || rc == SQLITE_OK) && attempts < 3000
        sqlite3_backup_finish(b)
        guard rc == SQLITE_DONE else {
            if rc & 0xFF == SQLITE_READONLY {
                try? FileManager.default.removeItem(atPath: target)
                try copyWithJournal(sourcePath, into: target)
                return
            }
            throw SQLiteError(code: rc, message: String(cString: sqlite3_errstr(rc)))
        }
        if singleFile { try destination.execute("PRAGMA journal_mode = DELETE") }
    }

    /// Byte copy of the main file and its rollback journal (only used when a hot journal stops readers).
    static func copyWithJournal(_ sourcePath: String, into target: String) throws {
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: sourcePath, toPath: target)
        if FileManager.default.fileExists(atPath: sourcePath + "-journal") {
            try FileManager.default.copyItem(atPath: sourcePath + "-journal", toPath: target + "-journal")
        }
        // Roll the copy back now, so it is a plain file at its last commit.
        let c = try Connection(path: target, readOnly: false, create: false)
        _ = try c.scalar("PRAGMA schema_version")
    }

    /// `<path>.v<version>.bak`: one backup per source version, replaced by the next run from that version.
    static func defaultBackupPath(for path: String, version: Int) -> String { "\(path).v\(version).bak" }

    /// Whether two paths lead to one file (same device and inode), both existing.
    static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        var sb = stat()
        guard stat(a, &sa) == 0, stat(b, &sb) == 0 else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    /// `people.sqlite.v0.bak` -> the first of `people.sqlite.v0.1.bak`, `.2.bak`, ... that does not exist.
    static func freeNumberedName(for path: String) -> String {
        let stem = path.hasSuffix(".bak") ? String(path.dropLast(4)) : path
        var n = 1
        while FileManager.default.fileExists(atPath: "\(stem).\(n).bak") { n += 1 }
        return "\(stem).\(n).bak"
    }

    /// Copies the database into `directory` as a consistent snapshot; returns the copy's path.
    ///
    /// A WAL-mode file that no connection holds (no -wal file) is copied byte for byte, and the copy is kept
    /// only when the file showed no sign of a writer meanwhile (still no -wal, same size, time and change
    /// counter: in WAL mode a writer writes the -wal first, and only a checkpoint of it writes the file). That
    /// way a dry run on a file nobody uses leaves no -wal or -shm behind. Otherwise, SQLite's backup API.
    static func copyForPreview(_ path: String, into directory: String) throws -> String {
        let name = (path as NSString).lastPathComponent
        let target = (directory as NSString).appendingPathComponent(name)
        if isIdleWALFile(path), let before = Fingerprint(path) {
            try FileManager.default.copyItem(atPath: path, toPath: target)
            if isIdleWALFile(path), Fingerprint(path) == before, Fingerprint(target)?.header == before.header {
                return target
            }
            removeWithSidecars(target)
        }
        try snapshot(path, into: target)
        return target
    }

    /// A WAL-mode file (header bytes 18-19 are 2) with no -wal and no -journal beside it: no connection has it
    /// open (a WAL-mode connection keeps its -wal), so reading its bytes cannot drop anyone's locks.
    static func isIdleWALFile(_ path: String) -> Bool {
        guard !FileManager.default.fileExists(atPath: path + "-wal"),
            !FileManager.default.fileExists(atPath: path + "-journal"),
            let h = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? h.close() }
        let header = (try? h.read(upToCount: 20)) ?? Data()
        return header.count == 20 && header[18] == 2 && header[19] == 2
    }

    /// What changes when anyone writes a file: its size, modification time and first 100 bytes (SQLite's
    /// header, with the change counter).
    struct Fingerprint: Equatable {
        let size: Int64
        let modified: Int
        let modifiedNanoseconds: Int
        let header: Data

        init?(_ path: String) {
            var st = stat()
            guard stat(path, &st) == 0, let h = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? h.close() }
            size = Int64(st.st_size)
            modified = st.st_mtim.tv_sec
            modifiedNanoseconds = st.st_mtim.tv_nsec
            header = (try? h.read(upToCount: 100)) ?? Data()
        }
    }

    /// The prefix of dry-run folders: `urna-dry-run-<pid>-<uuid>`.
    static let previewPrefix = "urna-dry-run-"

    /// A new private directory under the system's temporary directory, named with this process's id; the
    /// folders of dry runs whose process is gone (killed) are removed first.
    static func makeTemporaryDirectory() throws -> String {
        let base = NSTemporaryDirectory()
        removeStalePreviews(in: base)
        let dir = (base as NSString).appendingPathComponent("\(previewPrefix)\(getpid())-\(UUID().uuidString)")
        // Made with mkdir(2) itself: Foundation's error for a TMPDIR that is a file or missing was its raw
        // `Error Domain=NSCocoaErrorDomain Code=512 ...`, naming neither TMPDIR nor a fix.
        guard mkdir(dir, 0o700) == 0 else {
            let code = errno
            let reason =
                code == ENOTDIR || code == ENOENT
                ? "\(base) is not a folder (\(String(cString: strerror(code))))" : String(cString: strerror(code))
            throw MigrationError.previewCopyFailed(folder: base, reason: reason)
        }
        return dir
    }

    /// Removes `urna-dry-run-<pid>-<UUID>` folders of processes that no longer run (this user's folders only).
    static func removeStalePreviews(in base: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix(previewPrefix) {
            let rest = name.dropFirst(previewPrefix.count)
            guard let pid = LeftoverNotes.pid(inFolderNameEnd: rest), !isRunning(pid) else { continue }
            LeftoverNotes.remove((base as NSString).appendingPathComponent(name), leftBy: pid, folder: true)
        }
    }

    /// Removes `<path>.tmp-<pid>` copies (and their sidecars) left by processes that no longer run.
    public static func removeStaleTemporaries(near path: String) {
        let prefix = (path as NSString).lastPathComponent + ".tmp-"
        removeDead(besides: path, includingOwn: true) { name in
            guard name.hasPrefix(prefix) else { return nil }
            return LeftoverNotes.pid(inNameEnd: name.dropFirst(prefix.count))
        }
    }

    /// Removes, beside the database at `databasePath`, what killed runs left of its default backups
    /// (`FILE.v<N>.bak.tmp-<pid>` and their sidecars, of processes no longer running), whichever backup
    /// this run makes, if any.
    public static func removeStaleBackupTemporaries(of databasePath: String) {
        let base = (databasePath as NSString).lastPathComponent + ".v"
        // Not this process's own: another thread of it may be writing that backup now.
        removeDead(besides: databasePath, includingOwn: false) { name in
            guard name.hasPrefix(base), let tmp = name.range(of: ".bak.tmp-") else { return nil }
            let version = name[name.index(name.startIndex, offsetBy: base.count)..<tmp.lowerBound]
            guard !version.isEmpty, version.allSatisfy(\.isNumber) else { return nil }
            return LeftoverNotes.pid(inNameEnd: name[tmp.upperBound...])
        }
    }

    /// Removes the files in `path`'s folder for which `owner` names a process (by the pid in the name) that
    /// no longer runs (or, `includingOwn`, this one).
    private static func removeDead(besides path: String, includingOwn: Bool, owner: (String) -> Int32?) {
        let folder = PathText.folder(of: path)
        let dir = folder.isEmpty ? "." : folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
        for name in names {
            guard let pid = owner(name), (includingOwn && pid == getpid()) || (pid != getpid() && !isRunning(pid))
            else {
                continue
            }
            let path = (dir as NSString).appendingPathComponent(name)
            // This process's own leftovers (a failed attempt earlier in the run) are not a killed run's.
            if pid == getpid() {
                try? FileManager.default.removeItem(atPath: path)
            } else {
                LeftoverNotes.remove(path, leftBy: pid)
            }
        }
    }

    static func isRunning(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    static func removeWithSidecars(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Whether an error of a copy is a full disk (or quota): SQLite's, a POSIX one, or Foundation's.
    static func isDiskFull(_ error: Error) -> Bool {
        if let e = error as? SQLiteError { return e.isDiskFull }
        let n = error as NSError
        if n.domain == NSCocoaErrorDomain && n.code == NSFileWriteOutOfSpaceError { return true }
        if n.domain == NSPOSIXErrorDomain && (n.code == Int(ENOSPC) || n.code == Int(EDQUOT)) { return true }
        if let underlying = n.userInfo[NSUnderlyingErrorKey] as? Error { return isDiskFull(underlying) }
        return false
    }

    /// A file's size from stat(2) (0 when absent), without opening it.
    package static func size(_ path: String) -> Int64 {
        var st = stat()
        return stat(path, &st) == 0 ? Int64(st.st_size) : 0
    }

    static func sourceMode(_ path: String) -> mode_t {
        var st = stat()
        guard stat(path, &st) == 0 else { return 0o644 }
        return st.st_mode & 0o777
    }

    static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw posixError("open \(path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw posixError("fsync \(path)") }
    }

    static func syncFolder(of path: String) {
        let folder = PathText.folder(of: path)
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static func posixError(_ what: String) -> MigrationError {
        MigrationError.backupFailed(path: what, reason: String(cString: strerror(errno)))
    }
}
