import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The lock one download holds on its zip's name (`.NAME.lock` beside it, `flock(2)`) while it fills the partial
/// file, renames it into place and extracts members: two runs fetching one URL into one folder shared the hidden
/// `.NAME.partial` (the second emptied it under the first, or renamed the first's half file into place) and
/// the members' `.NAME.extracting` files. The second run now waits for the first, then finds the zip whole.
/// The lock file is removed when released; a run killed with SIGKILL leaves it, unlocked, for the next run.
public final class DownloadLock {
    /// The lock file's path (`.NAME.lock` beside the zip).
    public let path: String
    /// False when the folder's file system refused `flock(2)` for another reason than another holder (ENOLCK on
    /// some network file systems, EOPNOTSUPP): the download then went on unguarded, as the notice said.
    public private(set) var isHeld = false
    private var descriptor: Int32

    /// Takes the lock for the zip at `zipPath`, waiting while another process holds it. `notice` is told once,
    /// before the wait, or when the folder cannot be locked at all (the download then goes on without the lock).
    /// A symbolic link or anything but a file of its own at the lock's name is refused.
    public convenience init(for zipPath: String, notice: ((String) -> Void)? = nil) throws {
        try self.init(for: zipPath, notice: notice, lock: { flock($0, $1) })
    }

    /// As above, with `lock` standing for `flock(2)` (it sets `errno` when it fails): tests give a failing one.
    init(for zipPath: String, notice: ((String) -> Void)?, lock: (Int32, Int32) -> Int32) throws {
        path = Downloader.sidecar(of: zipPath, suffix: "lock")
        let name = (zipPath as NSString).lastPathComponent
        var told = false
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                let code = errno
                if let what = PartialFile.notOwnFile(path) {
                    throw DownloadError.localFile(path: path, reason: PartialFile.refusal(what))
                }
                throw DownloadError.localFile(
                    path: path, reason: "the download's lock cannot be made: \(String(cString: strerror(code)))")
            }
            var st = stat()
            guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
                close(fd)
                throw DownloadError.localFile(
                    path: path,
                    reason: PartialFile.refusal(PartialFile.notOwnFile(path) ?? "something other than a file"))
            }
            var failure: Int32 = 0
            if lock(fd, LOCK_EX | LOCK_NB) != 0 {
                failure = errno
                // Only EWOULDBLOCK says another run holds it; then the wait, which may itself fail.
                if failure == EWOULDBLOCK {
                    if !told {
                        told = true
                        notice?("another download of \(name) into this folder is running: waiting for it to finish")
                    }
                    failure = 0
                    while lock(fd, LOCK_EX) != 0 {
                        guard errno == EINTR else {
                            failure = errno
                            break
                        }
                    }
                }
            }
            if failure != 0 {
                notice?(
                    "\(name): this folder cannot be locked (\(String(cString: strerror(failure)))): downloading without "
                        + "the lock; do not run another download of it into this folder at the same time")
                descriptor = fd
                return
            }
            // The holder before us removes the file as it releases it: a lock on a removed (or replaced) file
            // guards nothing, so it is taken again on the file now at the name.
            var now = stat()
            if lstat(path, &now) == 0, now.st_ino == st.st_ino, now.st_dev == st.st_dev {
                descriptor = fd
                isHeld = true
                return
            }
            close(fd)
        }
    }

    /// Removes the lock file and releases the lock (also done when the lock is dropped).
    public func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
