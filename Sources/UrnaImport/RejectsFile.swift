import UrnaRecords
import UrnaStore

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
/// so a fixed row can be pasted back. Those bytes can be personal data, so the file is written to a new
/// temporary file in the target's folder (`O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600 whatever the umask)
/// and given its name when it is closed, only when a row was rejected:
/// - a name that is taken (a file, a symlink, anything) is never replaced or followed: the rows go to the
///   first free numbered name instead (`x.rejects.csv` taken: `x.rejects.1.csv`, `x.rejects.2.csv`, ...);
/// - a FIFO, a device (`/dev/null`, `/dev/stderr`) or `-` (standard output) is written through as it is, when
///   the name was asked for (`streamsAllowed`); at the default name one is a taken name like any other.
///
/// A flood of bad rows stops at `rowLimit` rows or `byteLimit` bytes with an error (the import rolls back).
final class RejectsFile {
    /// The name the rows go to (once a row was rejected: the free name chosen).
    private(set) var path: String
    private let rowLimit: Int?
    private let byteLimit: Int64?
    /// Whether a FIFO or device at `path` is written through: only at a name someone asked for. At the default
    /// name (`<db>.rejects.csv`), a FIFO planted by someone else got every rejected row (personal data among
    /// them: 5 MB from one goods file), and one that was never drained hung the import for good.
    private let streamsAllowed: Bool
    private var descriptor: Int32 = -1
    /// The temporary file the rows go to, nil when writing through a FIFO, a device or standard output.
    private var temporaryPath: String?
    private var buffer: [UInt8] = []
    private var bytesWritten: Int64 = 0
    private(set) var count = 0
    /// Cells a spreadsheet opening the file would run as formulas (the rows keep their bytes; the summary
    /// warns).
    private(set) var formulas = SpreadsheetFormula.Tally()
    /// Whether anything was written (the file exists only then).
    private(set) var wasCreated = false

    init(path: String, rowLimit: Int? = nil, byteLimit: Int64? = nil, streamsAllowed: Bool = true) {
        self.path = path
        self.streamsAllowed = streamsAllowed
        self.rowLimit = rowLimit
        self.byteLimit = byteLimit
    }

    deinit { try? close() }

    /// Appends one rejected row.
    func write(location: SourceLocation, reason: String, original: [UInt8]) throws {
        if let rowLimit, count >= rowLimit {
            throw limitReached("\(rowLimit) rows, the bound set by --max-rejects-rows")
        }
        if descriptor < 0 { try open() }
        let before = buffer.count
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
        if let byteLimit, bytesWritten + Int64(buffer.count) > byteLimit {
            buffer.removeSubrange(before...)
            throw limitReached("\(byteLimit) bytes, the bound set by --max-rejects-bytes")
        }
        count += 1
        let place = "line \(location.line)"
        formulas.note(location.file, place: "\(place), column file")
        formulas.note(reason, place: "\(place), column reason")
        if let first = original.first, SpreadsheetFormula.leadingBytes.contains(first) {  // decoded only then
            formulas.note(String(decoding: original, as: UTF8.self), place: "\(place), column original")
        }
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func limitReached(_ bound: String) -> ImportError {
        try? flush()
        return ImportError.database(
            path: path,
            reason: "too many rejected rows: the rejects file reached \(bound), after \(count) rows; the import "
                + "stopped and was rolled back, nothing was imported. The first rejected rows are in \(path): fix the "
                + "input, or raise the bound (--max-rejects-rows N, --max-rejects-bytes N, 'none' for no bound)",
            exitCode: 65)
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
        bytesWritten += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes every buffered row and syncs the file, before the import commits: a rejects file the disk cannot
    /// hold then fails the import, rolled back, instead of failing after the commit with the list of the rows it
    /// did not keep gone (a full disk ended in "cannot write the rejects file", exit 1, the other rows committed).
    func secure() throws {
        do {
            try flush()
            if descriptor >= 0, temporaryPath != nil, fsync(descriptor) != 0 {
                throw ImportError.database(path: path, reason: String(cString: strerror(errno)), exitCode: 74)
            }
        } catch let e as ImportError {
            let why = if case .database(_, let reason, _) = e { reason } else { "\(e)" }
            throw ImportError.database(
                path: path,
                reason:
                    "cannot write the rejects file (\(why.replacingOccurrences(of: "cannot write the rejects file: ", with: ""))); "
                    + "the import was rolled back, nothing was imported: free space there, or give --rejects another place",
                exitCode: 74)
        }
    }

    /// Closes without publishing: the rows written so far go (an attempt that is run again).
    func discard() {
        if descriptor >= 0 { _ = posixClose(descriptor) }
        descriptor = -1
        buffer.removeAll()
        if let temporaryPath { OutputFileName.remove(temporaryPath) }
        temporaryPath = nil
        wasCreated = false
    }

    /// Flushes, closes, and gives the temporary file its name.
    func close() throws {
        guard descriptor >= 0 else { return }
        var failure: Error?
        do {
            try flush()
        } catch {
            failure = error
        }
        _ = posixClose(descriptor)
        descriptor = -1
        guard let temporaryPath else {
            if let failure { throw failure }
            return
        }
        self.temporaryPath = nil
        defer { OutputFileName.remove(temporaryPath) }
        if let failure { throw failure }
        guard !CreatedFiles.isStopping else { return }  // interrupted: a partial list helps nobody
        path = try OutputFileName.publish(temporaryPath, as: path)
    }

    private func open() throws {
        if streamsAllowed, let target = try OutputFileName.streamTarget(path) {
            descriptor = try OutputFileName.openStream(
                target, naming: path, what: "the rejects file", option: "--rejects")
        } else {
            path = OutputFileName.freeName(for: path)
            let (fd, temporary) = try OutputFileName.createTemporary(
                next: path, private: true, what: "the rejects file", option: "--rejects")
            descriptor = fd
            temporaryPath = temporary
        }
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
