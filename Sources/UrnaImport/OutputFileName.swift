import Foundation
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How Urna's output files (rejects, exports) come to exist without clobbering anything: a new temporary
/// file in the target's folder, created `O_CREAT | O_EXCL | O_NOFOLLOW` (a planted file or symlink under
/// that name makes the open fail instead of being written through), then given its name. Targets that are
/// not regular files (a FIFO, a terminal, `/dev/null`, `/dev/stdout`, `/proc/self/fd/N`, `-`) are
/// written through as they are and never replaced.
public enum OutputFileName {
    /// Where the bytes of a written-through target go.
    public enum StreamTarget: Equatable {
        /// An already open descriptor of this process (`-`, `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`).
        case descriptor(Int32)
        /// A FIFO or character device, opened for writing.
        case device(String)
    }

    /// The stream `path` names, or nil when it is (or will be) a regular file.
    public static func streamTarget(_ path: String) throws -> StreamTarget? {
        if path == "-" || path == "/dev/stdout" { return .descriptor(STDOUT_FILENO) }
        if path == "/dev/stderr" { return .descriptor(STDERR_FILENO) }
        if let n = descriptorNumber(path) { return .descriptor(n) }
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: throw OutputPathError(path: path, reason: "is a folder: give a file name")
        case S_IFIFO, S_IFCHR: return .device(path)
        default:
            throw OutputPathError(path: path, reason: "is a block device or a socket, which Urna does not write to")
        }
    }

    /// The descriptor `/dev/fd/N` or `/proc/self/fd/N` names, or nil.
    public static func descriptorNumber(_ path: String) -> Int32? {
        for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
            if let n = Int32(path.dropFirst(prefix.count)), n >= 0 { return n }
        }
        return nil
    }

    /// Opens a stream target for writing: a FIFO nobody reads is refused at once instead of hanging.
    static func openStream(_ target: StreamTarget, naming path: String, what: String, option: String) throws -> Int32 {
        switch target {
        case .descriptor(let n):
            let fd = fcntl(n, F_DUPFD_CLOEXEC, 0)
            guard fd >= 0 else {
                throw OutputPathError(path: path, reason: "cannot be written (\(String(cString: strerror(errno))))")
            }
            return fd
        case .device(let device):
            let fd = open(device, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                let reason =
                    errno == ENXIO
                    ? "is a FIFO that no process is reading: start the reader first, or give \(option) a file"
                    : "cannot be opened for \(what) (\(String(cString: strerror(errno))))"
                throw OutputPathError(path: path, reason: reason)
            }
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
            return fd
        }
    }

    /// `path` when nothing has that name (not even a dangling symlink), else the first free numbered name:
    /// `x.rejects.csv` -> `x.rejects.1.csv`, `x.rejects.2.csv`, ...
    public static func freeName(for path: String, startingAt first: Int = 1) -> String {
        if first <= 1, !exists(path) { return path }
        let folder = PathText.folder(of: path)
        let name = (path as NSString).lastPathComponent
        let ext = (name as NSString).pathExtension
        let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        var n = max(first, 1)
        while true {
            let candidate = stem + ".\(n)" + (ext.isEmpty ? "" : "." + ext)
            let full = folder.isEmpty ? candidate : (folder as NSString).appendingPathComponent(candidate)
            if !exists(full) { return full }
            n += 1
        }
    }

    /// Whether anything (a file, a folder, a symlink, even a dangling one) has this name.
    static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Creates the temporary file the bytes for `final` go to, next to it: (descriptor, path). `private`:
    /// mode 0600 whatever the umask (personal data); else 0644 as the umask allows.
    static func createTemporary(next final: String, private isPrivate: Bool, what: String, option: String) throws
        -> (Int32, String)
    {
        removeStalePartials(of: final)
        var attempt = 0
        while true {
            let temporary = final + ".partial-\(getpid())" + (attempt == 0 ? "" : "-\(attempt)")
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, isPrivate ? 0o600 : 0o644)
            if fd >= 0 {
                if isPrivate { _ = fchmod(fd, 0o600) }  // our own new file: the umask cannot loosen 0600
                CreatedFiles.register(temporary)
                return (fd, temporary)
            }
            if errno == EEXIST && attempt < 100 {
                attempt += 1
                continue
            }
            throw OutputPathError(
                path: final,
                reason:
                    "cannot create \(what) (\(String(cString: strerror(errno)))): choose another place with \(option)")
        }
    }

    /// Removes what runs killed with SIGKILL (which no cleanup can catch) left beside `final`: regular files
    /// named `<name>.partial-<pid>` or `<name>.partial-<pid>-<n>`, owned by this user, of a process that no
    /// longer exists. Symlinks and anything else under such names are left alone.
    static func removeStalePartials(of final: String) {
        let folder = PathText.folder(of: final)
        let prefix = (final as NSString).lastPathComponent + ".partial-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else {
            return
        }
        for name in names where name.hasPrefix(prefix) {
            let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count),
                parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }),
                let pid = Int32(parts[0]), pid > 0, pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let path = folder.isEmpty ? name : (folder as NSString).appendingPathComponent(name)
            var st = stat()
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == getuid() else { continue }
            LeftoverNotes.remove(path, leftBy: pid)
        }
    }

    /// Writes `bytes` to `path` whole: a FIFO, a device or standard output is written through (never
    /// replaced); anything else gets a new temporary file next to it (`O_EXCL | O_NOFOLLOW`) renamed over the
    /// name at the end, so a symlink there is replaced, never the file it points to, and an interrupted or
    /// failed write leaves the old file as it was.
    public static func writeWhole(_ bytes: [UInt8], to path: String, what: String, option: String) throws {
        let fd: Int32
        var temporary: String?
        if let target = try streamTarget(path) {
            fd = try openStream(target, naming: path, what: what, option: option)
        } else {
            (fd, temporary) = try createTemporary(next: path, private: false, what: what, option: option)
        }
        func fail(_ reason: String, closing: Bool = true) -> OutputPathError {
            if closing { close(fd) }
            if let temporary { remove(temporary) }
            return OutputPathError(path: path, reason: "cannot be written (\(reason))")
        }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail(String(cString: strerror(errno)))
            }
            done += n
        }
        guard let temporary else {
            close(fd)
            return
        }
        if fsync(fd) != 0 { throw fail(String(cString: strerror(errno))) }
        guard close(fd) == 0 else { throw fail(String(cString: strerror(errno)), closing: false) }
        guard rename(temporary, path) == 0 else { throw fail(String(cString: strerror(errno)), closing: false) }
        CreatedFiles.unregister(temporary)
    }

    /// Removes a temporary file this process created.
    static func remove(_ temporary: String) {
        unlink(temporary)
        CreatedFiles.unregister(temporary)
    }

    /// Gives the closed temporary file `temporary` the name `final` without ever replacing what has it:
    /// `link(2)` fails when the name is taken, and then the next numbered name is tried. Returns the name used;
    /// the caller removes `temporary`.
    static func publish(_ temporary: String, as final: String) throws -> String {
        var name = final
        var next = 1
        while true {
            if link(temporary, name) == 0 { return name }
            switch errno {
            case EEXIST:
                name = freeName(for: final, startingAt: next)
                next += 1
            case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV, EMLINK:
                // A file system without hard links: rename, after checking the name is still free.
                if exists(name) {
                    name = freeName(for: final, startingAt: next)
                    next += 1
                    continue
                }
                if rename(temporary, name) == 0 { return name }
                throw OutputPathError(path: final, reason: "cannot be created (\(String(cString: strerror(errno))))")
            default:
                throw OutputPathError(path: final, reason: "cannot be created (\(String(cString: strerror(errno))))")
            }
        }
    }
}

/// An output path Urna will not write, and why.
public struct OutputPathError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// sysexits' EX_CANTCREAT.
    public var exitCode: Int32 { 73 }
    public var description: String { "\(path) \(reason); nothing was written" }
}
