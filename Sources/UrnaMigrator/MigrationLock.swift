import Foundation
import UrnaStore

/// Held by a run for the whole time it writes a file, so a second migrator of the same file is told
/// "another migration is running" at once instead of waiting on SQLite's lock and failing with "database is
/// locked". A `flock(2)` on a small file in the temporary folder named by the database's device and inode
/// (never on the database itself: closing a second descriptor of it would drop SQLite's POSIX locks).
final class MigrationLock {
    private let fd: Int32
    private let lockPath: String

    /// Takes the lock of the database at `path`, or throws `migrationRunning` naming the process holding it.
    /// Where no lock file can be made (a read-only temporary folder), runs go without one (SQLite's own lock
    /// still keeps them apart). The lock file is removed when the lock is released, so normal runs leave nothing
    /// in the temporary folder; a run that took the lock on a name someone removed meanwhile takes it again on
    /// the new file (two runs never hold locks on two different files of one name).
    init?(path: String) throws {
        // The store looks for this file too, to tell a running migration from another holder of SQLite's lock.
        guard let lockPath = MigrationMarker.lockPath(forDatabase: path) else { return nil }
        self.lockPath = lockPath
        for _ in 0..<20 {
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
                    ? Int32(
                        String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                    : nil
                throw MigrationError.migrationRunning(path: path, pid: pid)
            }
            // The holder before us removes the name as it lets go: a lock on a removed file keeps nobody out.
            var named = stat()
            guard lstat(lockPath, &named) == 0, named.st_ino == own.st_ino, named.st_dev == own.st_dev else {
                close(fd)
                continue
            }
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = pwrite(fd, text, text.count, 0)
            self.fd = fd
            return
        }
        return nil
    }

    /// Removes the lock file a killed run left for the database at `path`, when nobody holds it: a dry run, which
    /// takes no lock, otherwise leaves it in the temporary folder until the next real run. A lock someone holds
    /// (a run in progress), or a name that is not our own plain file, is left alone.
    static func removeStale(path: String) {
        guard let lockPath = MigrationMarker.lockPath(forDatabase: path) else { return }
        let fd = open(lockPath, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var own = stat()
        guard fstat(fd, &own) == 0, (own.st_mode & S_IFMT) == S_IFREG, own.st_uid == geteuid(), own.st_nlink == 1,
            flock(fd, LOCK_EX | LOCK_NB) == 0
        else { return }
        var named = stat()
        // Removed while held (as a run releasing it does), and only if the name is still this file.
        if lstat(lockPath, &named) == 0, named.st_ino == own.st_ino, named.st_dev == own.st_dev, unlink(lockPath) == 0 {
            // The pid the dead run wrote into it (0 when it was killed before it wrote one).
            var bytes = [UInt8](repeating: 0, count: 16)
            let n = pread(fd, &bytes, 16, 0)
            let pid = n > 0 ? Int32(String(decoding: bytes[0..<n], as: UTF8.self).prefix { $0.isNumber }) ?? 0 : 0
            LeftoverNotes.report(.init(path: lockPath, pid: pid, bytes: Int64(own.st_size)))
        }
        flock(fd, LOCK_UN)
    }

    deinit {
        // Removed while still held, so nobody can take a lock on this file after it lost its name.
        unlink(lockPath)
        flock(fd, LOCK_UN)
        close(fd)
    }
}
