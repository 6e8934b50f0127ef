import UrnaRecords

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The CSV file rejected rows go to: `file,line,column,reason,original` with a header row.
///
/// `original` holds the row's bytes exactly as read (in the source file's encoding, quotes doubled),
/// so a fixed row can be pasted back. Those bytes can be personal data: the file is created with
/// mode 0600 and only when the first row is rejected.
final class RejectsFile {
    let path: String
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []
    private(set) var count = 0
    /// Whether anything was written (the file exists only then).
    private(set) var wasCreated = false

    init(path: String) {
        self.path = path
    }

    deinit { try? close() }

    /// Appends one rejected row.
    func write(location: SourceLocation, reason: String, original: [UInt8]) throws {
        if descriptor < 0 { try open() }
        appendField(Array(location.file.utf8))
        buffer.append(0x2C)
        buffer += Array(String(location.line).utf8)
        buffer.append(0x2C)
        buffer += Array(String(location.column).utf8)
        buffer.append(0x2C)
        appendField(Array(reason.utf8))
        buffer.append(0x2C)
        appendField(original)
        buffer.append(0x0A)
        count += 1
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes what is buffered.
    func flush() throws {
        guard descriptor >= 0, !buffer.isEmpty else { return }
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ImportError.database(
                    path: path, reason: "cannot write the rejects file: \(String(cString: strerror(errno)))",
                    exitCode: 74)
            }
            offset += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes.
    func close() throws {
        guard descriptor >= 0 else { return }
        defer {
            _ = posixClose(descriptor)
            descriptor = -1
        }
        try flush()
    }

    private func open() throws {
        let fd = posixOpen(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw ImportError.database(
                path: path,
                reason: "cannot create the rejects file: \(String(cString: strerror(errno))); "
                    + "choose another place with --rejects", exitCode: 73)
        }
        // An existing file keeps its mode through O_CREAT: tighten it, the rows may hold personal data.
        _ = fchmod(fd, 0o600)
        descriptor = fd
        wasCreated = true
        buffer += Array("file,line,column,reason,original\n".utf8)
    }

    /// A CSV field, quoted when it needs to be. Built in a local array and appended once: byte-by-byte
    /// appends to the stored property paid an exclusivity check per byte (a tenth of an import with
    /// many rejects).
    private func appendField(_ bytes: [UInt8]) {
        let needsQuotes = bytes.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else {
            buffer += bytes
            return
        }
        var quoted: [UInt8] = []
        quoted.reserveCapacity(bytes.count + 8)
        quoted.append(0x22)
        for b in bytes {
            if b == 0x22 { quoted.append(0x22) }
            quoted.append(b)
        }
        quoted.append(0x22)
        buffer += quoted
    }
}

// The class's own `write`, `open` and `close` shadow the C functions of the same names inside it.
private func posixWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
private func posixClose(_ fd: Int32) -> Int32 { close(fd) }
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
