import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock file a running migration of a database holds (UrnaMigrator's `MigrationLock` takes it; the name is
/// kept here so the store, a lower layer, can tell that a migration is what holds the file's write lock).
package enum MigrationMarker {
    /// `urna-migrate-<device>-<inode>.lock` in the temporary folder, or nil when `path` cannot be stat'ed.
    package static func lockPath(forDatabase path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "urna-migrate-\(st.st_dev)-\(st.st_ino).lock")
    }

    /// Whether a migration of the database at `path` is running: its lock file exists and names a live process
    /// (or names none yet: the migrator writes its pid just after taking the lock, so an empty file counts only in
    /// its first seconds). A file left by a process that died is not a running migration: one killed before it
    /// named itself left an empty file, and a write waiting for "the migration" waited forever.
    ///
    /// The temporary folder is shared, so only a file the migrator itself could have made counts: our own plain
    /// file with one name, never followed through a symlink. A name someone else planted there (naming process 1,
    /// which always runs) kept a write that met a busy file waiting for "the migration" for as long as it stayed.
    package static func isRunning(forDatabase path: String) -> Bool {
        guard let lockPath = lockPath(forDatabase: path) else { return false }
        let fd = open(lockPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_nlink == 1 else {
            return false
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, 31, 0)
        let text = String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let pid = Int32(text), pid > 0 else {
            guard text.isEmpty else { return false }
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            return Date().timeIntervalSince1970 - modified < 5
        }
        return kill(pid, 0) == 0 || errno != ESRCH
    }
}
