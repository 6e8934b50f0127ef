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

    /// Removes `path` (a file, or a folder with what it holds) left by the dead process `pid`, and reports it
    /// when something was there to remove. Returns whether it is gone.
    @discardableResult
    package static func remove(_ path: String, leftBy pid: Int32) -> Bool {
        let bytes = size(path)
        var st = stat()
        guard lstat(path, &st) == 0 else { return true }
        let gone: Bool
        if st.st_mode & S_IFMT == S_IFDIR {
            gone = (try? FileManager.default.removeItem(atPath: path)) != nil
        } else {
            gone = unlink(path) == 0 || errno == ENOENT
        }
        if gone { report(Removed(path: path, pid: pid, bytes: bytes)) }
        return gone
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
