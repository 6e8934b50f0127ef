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
        appendField(location.file)
        buffer.append(0x2C)
        buffer += String(location.line).utf8
        buffer.append(0x2C)
        buffer += String(location.column).utf8
        buffer.append(0x2C)
        appendField(reason)
        buffer.append(0x2C)
        original.withUnsafeBufferPointer { appendField($0) }
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

    private func appendField(_ text: String) {
        var text = text
        text.withUTF8 { appendField($0) }
    }

    /// A CSV field, quoted when it needs to be: counted first, then written straight into the buffer (no
    /// array per field, no check per byte).
    private func appendField(_ bytes: UnsafeBufferPointer<UInt8>) {
        var quotes = 0
        var special = false
        for b in bytes {
            if b == 0x22 { quotes += 1 } else if b == 0x2C || b == 0x0A || b == 0x0D { special = true }
        }
        guard quotes > 0 || special else {
            buffer.append(contentsOf: bytes)
            return
        }
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0x22, count: bytes.count + quotes + 2))
        buffer.withUnsafeMutableBufferPointer { out in
            guard let o = out.baseAddress else { return }
            var j = start + 1  // after the opening quote; a doubled quote's first half is already there
            for b in bytes {
                if b == 0x22 { j += 1 }
                o[j] = b
                j += 1
            }
        }
    }
}

// The class's own `write`, `open` and `close` shadow the C functions of the same names inside it.
private func posixWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
private func posixClose(_ fd: Int32) -> Int32 { close(fd) }
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
