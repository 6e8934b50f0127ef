import Foundation
import UrnaPaths

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The hidden file a download fills (`.NAME.partial`): opened only as a regular file of its own, never
/// through a symbolic link, and checked against the disk before a byte is written.
enum PartialFile {
    /// What is at `path` when it is there and is not a regular file of its own (a symbolic link, a FIFO, a
    /// folder), said for a message; nil when it is a regular file or nothing is there.
    static func notOwnFile(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        guard st.st_mode & S_IFMT == S_IFLNK else { return Downloader.kind(ofMode: st.st_mode) }
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
        return "a symbolic link (to \(target))"
    }

    /// Opens `path` for writing at `offset`: created (or emptied) when `offset` is 0, cut to `offset` otherwise.
    /// `O_NOFOLLOW` and `O_NONBLOCK`: a symbolic link planted at the name is never written through (a resumed
    /// download wrote the server's bytes into the file a planted `.NAME.partial` link pointed to), and a FIFO
    /// never blocks; only a regular file is accepted.
    static func openForWriting(_ path: String, at offset: Int64) throws -> Int32 {
        let flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (offset == 0 ? O_CREAT | O_TRUNC : 0)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP || code == EMLINK, let what = notOwnFile(path) {
                throw TransferRefusal(refusal(what))
            }
            throw TransferRefusal("it cannot be opened for writing: \(String(cString: strerror(code)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw TransferRefusal(refusal(notOwnFile(path) ?? "something other than a file"))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        guard ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            let code = errno
            close(fd)
            throw TransferRefusal("it cannot be cut to \(offset) bytes: \(String(cString: strerror(code)))")
        }
        return fd
    }

    /// The refusal of a partial file that is not urna's own regular file.
    static func refusal(_ what: String) -> String {
        "it is \(what): urna keeps a partial download only in a file of its own and never writes through a "
            + "link; remove it and run again"
    }

    /// Refuses an answer whose length no zip urna can read has (over `maxBytes` in all), or that the disk
    /// holding `path` cannot take, before anything is written.
    static func checkRoom(for path: String, from offset: Int64, length: Int64, maxBytes: Int64) throws {
        guard offset + length <= maxBytes else {
            throw TransferRefusal(
                "the server announced \(Downloader.mib(offset + length)) (Content-Length \(length)), more than "
                    + "\(Downloader.mib(maxBytes)): no zip urna can open is that large", answerRefused: true)
        }
        let folder = folder(of: path)
        guard let available = freeBytes(in: folder) else { return }
        // A fresh answer replaces what the partial file held, so that space counts as free.
        var st = stat()
        let held: Int64 = offset == 0 && lstat(path, &st) == 0 ? Int64(st.st_size) : 0
        let free = available + held
        guard length <= free else {
            throw TransferRefusal(
                "the server announced \(Downloader.mib(length)) and the disk holding \(folder) has \(Downloader.mib(free)) free; free "
                    + "space there (or give --dir a folder on another disk) and run again", answerRefused: true)
        }
    }

    static func folder(of path: String) -> String {
        let folder = PathText.folder(of: path)
        return folder.isEmpty ? "." : folder
    }

    /// Free bytes (for this user) on the disk holding `folder`, or nil when it cannot be told.
    static func freeBytes(in folder: String) -> Int64? {
        var fs = statvfs()
        guard statvfs(folder, &fs) == 0 else { return nil }
        return Int64(fs.f_bavail) * Int64(fs.f_frsize)
    }

    static func closeDescriptor(_ fd: Int32) { _ = close(fd) }
}
