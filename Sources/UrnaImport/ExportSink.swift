import Foundation
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an export's bytes go: a file descriptor behind a 256 KiB buffer, with text encoded (Latin-1 or
/// UTF-8) and escaped for the format on the way, byte by byte, so memory stays flat whatever is written.
final class ExportSink {
    /// How a value is escaped.
    enum Escaping {
        /// As is (names, numbers, markup).
        case plain
        /// XML character data: `& < > " '` as entities, CR as `&#13;` (a parser would turn it into LF).
        case xml
        /// Inside a double-quoted CSV field: `"` doubled.
        case csv
        /// Inside a JSON string.
        case json
    }

    /// A character the output cannot carry.
    struct Unencodable: Error {
        let scalar: UInt32
        /// What to tell the user: why, and what to do instead.
        let hint: String
    }

    let encoding: ExportEncoding
    let path: String
    private let fd: Int32
    private var buffer: UnsafeMutableBufferPointer<UInt8>
    private var count = 0
    private(set) var bytesWritten: Int64 = 0
    /// Whether a full disk lets the export run on, counting its bytes without writing them, so the error can
    /// give the export's true size (a temporary file, which is emptied at once and removed afterwards).
    private let measuresWhenFull: Bool
    /// Set when the disk filled: the free bytes there once the partial output was emptied.
    private(set) var diskFull: (errno: Int32, freeBytes: Int64)?

    /// A sink writing to `fd` (not closed here); `path` names it in errors. `measuresWhenFull`: see above.
    init(
        fd: Int32, path: String, encoding: ExportEncoding, capacity: Int = 256 * 1024, measuresWhenFull: Bool = false
    ) {
        self.fd = fd
        self.path = path
        self.encoding = encoding
        self.measuresWhenFull = measuresWhenFull
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// Bytes accepted so far (written or buffered).
    var bytesAccepted: Int64 { bytesWritten + Int64(count) }

    // MARK: - Markup and plain ASCII

    @inline(__always) func byte(_ b: UInt8) throws {
        if count == buffer.count { try flush() }
        buffer[count] = b
        count += 1
    }

    /// ASCII markup known at compile time.
    func ascii(_ s: StaticString) throws {
        try reserve(s.utf8CodeUnitCount)
        let p = s.utf8Start
        for i in 0..<s.utf8CodeUnitCount { buffer[count + i] = p[i] }
        count += s.utf8CodeUnitCount
    }

    /// Pre-rendered bytes (tags).
    func bytes(_ b: [UInt8]) throws {
        try reserve(b.count)
        b.withUnsafeBufferPointer { src in
            for i in 0..<src.count { buffer[count + i] = src[i] }
        }
        count += b.count
    }

    /// Text known to be ASCII without anything to escape (column names, numbers, dates).
    func ascii(_ s: String) throws {
        var s = s
        try s.withUTF8 { u in
            try reserve(u.count)
            for i in 0..<u.count { buffer[count + i] = u[i] }
            count += u.count
        }
    }

    // MARK: - Text

    /// Writes `s` encoded and escaped; throws `Unencodable` (having written part of it) when a character
    /// cannot be carried.
    func text(_ s: String, _ escaping: Escaping) throws {
        var s = s
        try s.withUTF8 { u in
            // Worst case per input byte: "&quot;" (6), or 10 bytes for a 4-byte scalar as "&#1114111;".
            try reserve(u.count * 6 + 8)
            var i = 0
            while i < u.count {
                let b = u[i]
                if b < 0x80 {
                    try putASCII(b, escaping)
                    i += 1
                    continue
                }
                let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                var scalar = UInt32(b) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                for k in 1..<length { scalar = scalar << 6 | (UInt32(u[i + k]) & 0x3F) }
                if escaping == .xml && (scalar == 0xFFFE || scalar == 0xFFFF) {
                    throw Unencodable(scalar: scalar, hint: "XML 1.0 cannot carry at all: use --format csv or json")
                }
                if encoding == .utf8 {
                    for k in 0..<length { buffer[count + k] = u[i + k] }
                    count += length
                } else if scalar <= 0xFF {
                    buffer[count] = UInt8(scalar)
                    count += 1
                } else if escaping == .xml {
                    putDecimalReference(scalar)
                } else {
                    throw Unencodable(
                        scalar: scalar, hint: "Latin-1 (ISO-8859-1) cannot carry: export with --encoding utf8")
                }
                i += length
            }
        }
    }

    @inline(__always) private func putASCII(_ b: UInt8, _ escaping: Escaping) throws {
        switch escaping {
        case .plain:
            put(b)
        case .csv:
            put(b)
            if b == 0x22 { put(b) }
        case .xml:
            switch b {
            case 0x26: put("&amp;")
            case 0x3C: put("&lt;")
            case 0x3E: put("&gt;")
            case 0x22: put("&quot;")
            case 0x27: put("&apos;")
            case 0x0D: put("&#13;")
            case 0x09, 0x0A: put(b)
            case ..<0x20:
                throw Unencodable(scalar: UInt32(b), hint: "XML 1.0 cannot carry at all: use --format csv or json")
            default: put(b)
            }
        case .json:
            switch b {
            case 0x22: put("\\\"")
            case 0x5C: put("\\\\")
            case 0x0A: put("\\n")
            case 0x0D: put("\\r")
            case 0x09: put("\\t")
            case ..<0x20:
                put("\\u00")
                put(Self.hexDigit(b >> 4))
                put(Self.hexDigit(b & 0x0F))
            default: put(b)
            }
        }
    }

    // MARK: - Buffer

    /// Makes room for `n` more bytes (growing the buffer for a value larger than it).
    @inline(__always) func reserve(_ n: Int) throws {
        if count + n <= buffer.count { return }
        try flush()
        if n > buffer.count {
            buffer.deallocate()
            buffer = .allocate(capacity: n)
        }
    }

    /// Writes the buffered bytes out.
    func flush() throws {
        var done = 0
        while diskFull == nil, done < count {
            let n = write(fd, buffer.baseAddress! + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                guard measuresWhenFull, code == ENOSPC || code == EDQUOT || code == EFBIG else {
                    throw ExportError.output(path: path, message: String(cString: strerror(code)))
                }
                // The partial output is given back to the disk now; what follows is only counted.
                _ = ftruncate(fd, 0)
                var s = statvfs()
                let free = fstatvfs(fd, &s) == 0 ? Int64(s.f_bavail) * Int64(s.f_frsize) : -1
                diskFull = (code, free)
                break
            }
            done += n
        }
        bytesWritten += Int64(count)
        count = 0
    }

    @inline(__always) private func put(_ b: UInt8) {
        buffer[count] = b
        count += 1
    }

    @inline(__always) private func put(_ s: StaticString) {
        let p = s.utf8Start
        for i in 0..<s.utf8CodeUnitCount { buffer[count + i] = p[i] }
        count += s.utf8CodeUnitCount
    }

    private func putDecimalReference(_ scalar: UInt32) {
        put("&#")
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0)
        var n = 0
        var v = scalar
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                d[n] = UInt8(0x30 + v % 10)
                v /= 10
                n += 1
            } while v > 0
            for k in stride(from: n - 1, through: 0, by: -1) { put(d[k]) }
        }
        put(0x3B)
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }
}

/// The output file of an export: a new temporary file next to the target (`O_EXCL | O_NOFOLLOW`, so a file
/// or symlink planted under its name is never written through), renamed over the target only when the
/// export succeeded, so an interrupted export never leaves a truncated file under the name asked for.
/// `rename(2)` replaces a symlink at the target, never the file it points to. A FIFO, a device or `-` is
/// written through as it is, never replaced.
final class ExportOutputFile {
    let path: String
    /// nil when writing through a FIFO, a device or standard output.
    let temporaryPath: String?
    let fd: Int32
    private var finished = false

    /// Creates the temporary file; `private` makes it readable by the owner only (personal data), whatever
    /// the umask.
    init(path: String, private isPrivate: Bool) throws {
        self.path = path
        do {
            if let target = try OutputFileName.streamTarget(path) {
                fd = try OutputFileName.openStream(target, naming: path, what: "the export", option: "--out")
                temporaryPath = nil
            } else {
                (fd, temporaryPath) = try OutputFileName.createTemporary(
                    next: path, private: isPrivate, what: "the export", option: "--out")
            }
        } catch let e as OutputPathError {
            throw ExportError.output(path: path, message: e.reason)
        }
    }

    /// Closes the file and gives it its name.
    func commit() throws {
        finished = true
        guard let temporaryPath else {
            guard close(fd) == 0 || errno == EINTR else {
                throw ExportError.output(path: path, message: String(cString: strerror(errno)))
            }
            return
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let message = String(cString: strerror(errno))
            OutputFileName.remove(temporaryPath)
            throw ExportError.output(path: path, message: message)
        }
        guard rename(temporaryPath, path) == 0 else {
            let message = String(cString: strerror(errno))
            OutputFileName.remove(temporaryPath)
            throw ExportError.output(path: path, message: message)
        }
        CreatedFiles.unregister(temporaryPath)
    }

    /// Closes and removes the temporary file.
    func discard() {
        guard !finished else { return }
        finished = true
        close(fd)
        if let temporaryPath { OutputFileName.remove(temporaryPath) }
    }

    deinit { discard() }
}
