import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What runs killed before their cleanup (SIGKILL, a crash, a power cut) left behind, and a later run removed:
/// temporary files, partial outputs, dry runs' private copies, half-written backups, lock files. The removal
/// itself is each owner's (it knows its names); this only reports it, so that nothing disappears without a word.
/// The library never prints: a program installs a handler (the command line prints a note on stderr).
///
/// ```swift
/// LeftoverNotes.setHandler { print("removed \($0.path) (process \($0.pid))") }
/// ```
public enum LeftoverNotes {
    /// One removed leftover.
    public struct Removed: Sendable, Equatable {
        /// The file or folder that was removed.
        public let path: String
        /// The process that made it and no longer runs.
        public let pid: Int32
        /// Its size (a folder: the files in it), measured before it was removed.
        public let bytes: Int64

        package init(path: String, pid: Int32, bytes: Int64) {
            self.path = path
            self.pid = pid
            self.bytes = bytes
        }
    }

    private final class Box: @unchecked Sendable {
        let lock = NSLock()
        var handler: (@Sendable (Removed) -> Void)?
    }

    private static let box = Box()

    /// Installs (or, with nil, removes) the function told of each removal, from whichever thread removed it.
    public static func setHandler(_ handler: (@Sendable (Removed) -> Void)?) {
        box.lock.lock()
        box.handler = handler
        box.lock.unlock()
    }

    /// Removes `path` left by the dead process `pid` (a regular file, or with `folder` a folder with what it holds),
    /// and reports it when something was there to remove. Returns whether it is gone. Only what this user owns and
    /// is of the kind the caller made is touched: a symlink, another kind of file or another user's file under a
    /// leftover's name is not this program's (in a shared folder such as /tmp, another user's folder could be
    /// swapped for a link while it is emptied), and is left alone (false).
    @discardableResult
    package static func remove(_ path: String, leftBy pid: Int32, folder: Bool = false) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return true }
        guard st.st_uid == getuid(), st.st_mode & S_IFMT == (folder ? S_IFDIR : S_IFREG) else { return false }
        let bytes = size(path)
        let gone: Bool
        if folder {
            gone = (try? FileManager.default.removeItem(atPath: path)) != nil
        } else {
            gone = unlink(path) == 0 || errno == ENOENT
        }
        if gone { report(Removed(path: path, pid: pid, bytes: bytes)) }
        return gone
    }

    /// The process id a leftover's name gives, from what follows its prefix: exactly `<pid>` and one of `endings`
    /// (the file itself, or SQLite's -wal, -shm or -journal of it). A name that only starts like a leftover's
    /// (`urna.sqlite.tmp-2024-notes.txt`) is someone's file, and nil.
    package static func pid(inNameEnd rest: Substring, endings: [String] = ["", "-wal", "-shm", "-journal"]) -> Int32? {
        let digits = rest.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty, endings.contains(String(rest.dropFirst(digits.count))), let pid = Int32(digits), pid > 0
        else { return nil }
        return pid
    }

    /// The process id in a private folder's name after its prefix: exactly `<pid>-<UUID>`, as the folder was made.
    package static func pid(inFolderNameEnd rest: Substring) -> Int32? {
        guard let dash = rest.firstIndex(of: "-"), UUID(uuidString: String(rest[rest.index(after: dash)...])) != nil
        else { return nil }
        return pid(inNameEnd: rest[..<dash], endings: [""])
    }

    /// Reports a removal done by the caller.
    package static func report(_ removed: Removed) {
        box.lock.lock()
        let handler = box.handler
        box.lock.unlock()
        handler?(removed)
    }

    /// Bytes of a file, or of the files under a folder (symlinks not followed).
    private static func size(_ path: String) -> Int64 {
        var st = stat()
        guard lstat(path, &st) == 0 else { return 0 }
        guard st.st_mode & S_IFMT == S_IFDIR else { return Int64(st.st_size) }
        var total: Int64 = 0
        guard let entries = FileManager.default.enumerator(atPath: path) else { return 0 }
        for case let name as String in entries {
            var s = stat()
            if lstat((path as NSString).appendingPathComponent(name), &s) == 0, s.st_mode & S_IFMT == S_IFREG {
                total += Int64(s.st_size)
            }
        }
        return total
    }
}
