import Foundation

/// Held by a run for the whole time it writes a file, so a second migrator of the same file is told
/// "another migration is running" at once instead of waiting on SQLite's lock and failing with "database is
/// locked". A `flock(2)` on a small file in the temporary folder named by the database's device and inode
/// (never on the database itself: closing a second descriptor of it would drop SQLite's POSIX locks).
final class MigrationLock {
    private let fd: Int32

    /// Takes the lock of the database at `path`, or throws `migrationRunning` naming the process holding it.
    /// Where no lock file can be made (a read-only temporary folder), runs go without one (SQLite's own lock
    /// still keeps them apart).
    init?(path: String) throws {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let name = "urna-migrate-\(st.st_dev)-\(st.st_ino).lock"
        let lockPath = (NSTemporaryDirectory() as NSString).appendingPathComponent(name)
        // The temporary folder is shared: a name planted there (a symlink, a hard link to another file, someone
        // else's file) is never followed or written; the run then goes without this lock.
        let fd = open(lockPath, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        var own = stat()
        guard fstat(fd, &own) == 0, (own.st_mode & S_IFMT) == S_IFREG, own.st_uid == geteuid(), own.st_nlink == 1
        else {
            close(fd)
            return nil
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var buffer = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &buffer, 31, 0)
            close(fd)
            let pid =
                n > 0
                ? Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                : nil
            throw MigrationError.migrationRunning(path: path, pid: pid)
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
        self.fd = fd
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
