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
    static func isRunning(forDatabase path: String) -> Bool {
        guard let lockPath = lockPath(forDatabase: path), let data = FileManager.default.contents(atPath: lockPath)
        else { return false }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let pid = Int32(text) else {
            guard text.isEmpty, let attributes = try? FileManager.default.attributesOfItem(atPath: lockPath),
                let modified = attributes[.modificationDate] as? Date
            else { return false }
            return Date().timeIntervalSince(modified) < 5
        }
        return kill(pid, 0) == 0 || errno != ESRCH
    }
}
