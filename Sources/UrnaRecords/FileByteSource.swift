#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes of a file on disk, read with POSIX `read` so no whole-file copy is ever made.
///
/// ```swift
/// let source = try FileByteSource(path: "consulta_cand_2018_BRASIL.csv")
/// print(source.size)  // 19053230
/// ```
public final class FileByteSource: ByteSource {
    /// The path as given.
    public let path: String
    /// Size in bytes when opened.
    public let size: Int64
    /// How many bytes `read(into:)` has returned so far.
    public private(set) var bytesRead: Int64 = 0
    private let descriptor: Int32

    /// Opens a file for reading; throws `RecordFileError.io` when it cannot.
    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RecordFileError.posix(file: path, operation: "open it for reading") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = RecordFileError.posix(file: path, operation: "stat it")
            close(fd)
            throw error
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw RecordFileError.io(file: path, operation: "read it", code: EISDIR, message: "it is a directory")
        }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Reads the next bytes; retries when interrupted by a signal.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let n = posixRead(descriptor, base, buffer.count)
            if n >= 0 {
                bytesRead += Int64(n)
                return n
            }
            if errno == EINTR { continue }
            throw RecordFileError.posix(file: path, operation: "read it")
        }
    }

    /// Reads `count` bytes at `offset` without moving the read position (for random access, as in zip).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw RecordFileError.posix(file: path, operation: "read it")
            }
            done += n
        }
        return done
    }
}

/// `read` is shadowed by the method of the same name inside the classes above.
@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

extension RecordFileError {
    /// An `io` error from the current `errno`.
    static func posix(file: String, operation: String) -> RecordFileError {
        let code = errno
        return .io(file: file, operation: operation, code: code, message: String(cString: strerror(code)))
    }
}
