import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads of this process that have a write open on each file, across `Store`s. A second `Store`'s write on a
/// thread already writing the same file through another `Store` can never get SQLite's write lock (that thread
/// holds it): it waited out the 5 s busy timeout and threw "database is locked"; it is now refused at once.
final class FileWriters: @unchecked Sendable {
    static let shared = FileWriters()

    /// A file by device and inode, so that two spellings of one path are one file.
    struct FileID: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
    }

    // `writing` is only touched while `lock` is held.
    private let lock = NSLock()
    private var writing: [FileID: [UInt]] = [:]

    /// The identity of the file at `path`, or nil when it cannot be stat'ed (in-memory stores).
    static func identity(of path: String) -> FileID? {
        var st = stat()
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file::memory:"), stat(path, &st) == 0 else {
            return nil
        }
        return FileID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Whether `thread` has a write open on `file` (through any store).
    func isWriting(_ file: FileID, thread: UInt) -> Bool {
        lock.withLock { writing[file]?.contains(thread) ?? false }
    }

    func begin(_ file: FileID, thread: UInt) {
        lock.withLock { writing[file, default: []].append(thread) }
    }

    func end(_ file: FileID, thread: UInt) {
        lock.withLock {
            guard var threads = writing[file], let i = threads.firstIndex(of: thread) else { return }
            threads.remove(at: i)
            writing[file] = threads.isEmpty ? nil : threads
        }
    }
}

extension Store {
    /// Whether the calling thread has a write open on the file at `path` through any `Store`: SQLite's write lock
    /// is then this thread's own, so anything on this thread that waits for it (a migration) would wait forever.
    public static func callingThreadIsWriting(path: String) -> Bool {
        guard let file = FileWriters.identity(of: path) else { return false }
        return FileWriters.shared.isWriting(file, thread: currentThreadID())
    }
}
