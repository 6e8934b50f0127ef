#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A streaming CSV reader: bytes in, rows of fields out, with 1-based line numbers.
///
/// Works on any `ByteSource` through one buffer that starts at `CSVOptions.chunkSize` and grows
/// only while a single row is longer than it, up to about `maxRecordBytes`; a row past the limits
/// is skipped to its end without being buffered and comes out as a `MalformedRow`. Fields are found
/// by a table-driven scan over raw bytes and decoded only when read (see `CSVRow`).
///
/// Rows: LF, CRLF and CR all end a row unless inside quotes; empty lines are skipped (they still
/// count as lines); a last row without a line end is still a row. The encoding is resolved at `init`
/// from the first 64 KiB (see `TextEncodingChoice`); a UTF-8 byte-order mark is skipped. When those
/// 64 KiB are plain ASCII (they say nothing about the encoding), the first row with other bytes decides
/// instead, by the same rule applied to the bytes buffered from that row on.
///
/// ```swift
/// let reader = try CSVReader(path: "consulta_cand_2018_MG.csv")
/// while let result = try reader.next() {
///     switch result {
///     case .row(let row): print(row.location.line, row.count)
///     case .malformed(let bad): print(bad)
///     }
/// }
/// ```
public final class CSVReader {
    /// The name used in locations (by default the file name without its directory).
    public let name: String
    /// The encoding fields are decoded with (it can change once, from Latin-1 to UTF-8, at the first
    /// non-ASCII row of a file whose first 64 KiB are ASCII: see `undecided`).
    public private(set) var encoding: TextEncoding
    /// The encoding is Latin-1 or Windows-1252 because the first 64 KiB are not UTF-8 (not asked for): rows
    /// that read as UTF-8 later on are refused instead of becoming mojibake.
    private var guessedSingleByte: Bool
    /// The encoding was guessed from a first 64 KiB holding only ASCII, which fits every encoding: the first
    /// row with a non-ASCII byte decides it, from the bytes buffered from that row on.
    private var undecided: Bool
    /// The options in force (limits clamped to what the reader supports).
    public let options: CSVOptions
    /// The file is read as Latin-1 and the bytes read so far hold some in 0x80-0x9F, which Latin-1 reads as
    /// control characters: it is probably Windows-1252 (curly quotes, dashes, €), said in a warning. Complete
    /// once the file is read to its end (a byte past the first 64 KiB went unsaid).
    public var mayBeWindows1252: Bool { sawC1Bytes && encoding == .latin1 }
    private var sawC1Bytes: Bool
    /// The source being read.
    public let source: ByteSource

    /// The first bytes of an oversized row kept for its `MalformedRow.rawBytes`.
    static let rejectPrefixBytes = 64 * 1024

    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var atEOF = false
    private var nextLine = 1
    private var scanner: CSVScanner
    private let maxCapacity: Int

    /// Reads CSV from any byte source; `name` is what locations show.
    public init(
        source: ByteSource, name: String, encoding: TextEncodingChoice = .auto, options: CSVOptions = CSVOptions()
    ) throws {
        let options = options.clamped
        self.source = source
        self.name = name
        self.options = options
        self.maxCapacity = options.maxRecordBytes + options.chunkSize
        let capacity = max(options.chunkSize, TextEncoding.detectionWindow)
        // One byte more than the capacity, for the scanner's sentinel.
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
        // The encoding must be known before the first row, so the first 64 KiB are read here.
        var filled = 0
        var exhausted = false
        do {
            while filled < TextEncoding.detectionWindow && !exhausted {
                let n = try source.read(
                    into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: capacity - filled))
                if n == 0 { exhausted = true }
                filled += n
            }
        } catch {
            buffer.deallocate()
            throw error
        }
        let (resolved, bom) = encoding.resolve(
            prefix: UnsafeBufferPointer(start: buffer, count: filled), atEnd: exhausted)
        self.encoding = resolved
        self.sawC1Bytes = resolved == .latin1 && Self.holdsC1Bytes(UnsafeBufferPointer(start: buffer, count: filled))
        // A single-byte encoding guessed from the start of the file may meet UTF-8 rows further on.
        self.guessedSingleByte = encoding == .auto && resolved != .utf8
        self.undecided =
            guessedSingleByte && bom == 0
            && !TextEncoding.containsNonASCII(
                UnsafeBufferPointer(start: buffer, count: min(filled, TextEncoding.detectionWindow)))
        self.buffer = buffer
        self.capacity = capacity
        self.end = filled
        self.atEOF = exhausted
        self.start = bom
        scanner = CSVScanner(options: options)
    }

    /// Reads a file; locations show its name without the directory unless `name` is given.
    public convenience init(
        path: String, name: String? = nil, encoding: TextEncodingChoice = .auto, options: CSVOptions = CSVOptions()
    ) throws {
        let source = try FileByteSource(path: path)
        try self.init(source: source, name: name ?? CSVReader.fileName(of: path), encoding: encoding, options: options)
    }

    deinit {
        buffer.deallocate()
        scanner.deallocate()
    }

    /// The line the next row starts on (1-based).
    public var currentLine: Int { nextLine }

    /// The next row or malformed row; nil at the end of the input. Throws only for I/O failures.
    public func next() throws -> CSVReadResult? {
        while true {
            buffer[end] = UInt8(ascii: "\n")  // the sentinel CSVScanner.scan relies on
            switch scanner.scan(buffer + start, end - start, atEOF: atEOF) {
            case .end:
                return nil
            case .blank(let consumed):
                start += consumed
                nextLine += 1
            case .row(let length, let consumed, let breaks):
                let line = nextLine
                nextLine += breaks + (consumed > length ? 1 : 0)
                let row = UnsafeBufferPointer(start: buffer + start, count: length)
                if undecided && scanner.problem == nil && TextEncoding.containsNonASCII(row) { decideEncoding() }
                start += consumed
                return makeResult(row, line: line)
            case .needMore(let resume, let fieldStart, let field, let breaks, let state):
                if resume > options.maxRecordBytes {
                    let problem = CSVRowProblem.recordTooLong(field: field, limit: options.maxRecordBytes)
                    return try skipOversized(from: resume, lineBreaks: breaks, state: state, problem: problem)
                }
                if resume - fieldStart > options.maxFieldBytes {
                    let problem = CSVRowProblem.fieldTooLong(field: field, limit: options.maxFieldBytes)
                    return try skipOversized(from: resume, lineBreaks: breaks, state: state, problem: problem)
                }
                try refill()
            }
        }
    }

    /// Calls `body` for every remaining row, in order.
    public func forEach(_ body: (CSVReadResult) throws -> Void) throws {
        while let result = try next() { try body(result) }
    }

    /// The first non-ASCII row of a file whose first 64 KiB were ASCII: UTF-8 if the bytes from this row to
    /// the end of the buffer (at least the row, at most 64 KiB) are valid UTF-8, else the guess stays.
    private func decideEncoding() {
        undecided = false
        let count = min(end - start, TextEncoding.detectionWindow)
        let window = UnsafeBufferPointer(start: buffer + start, count: count)
        let (resolved, _) = TextEncodingChoice.auto.resolve(prefix: window, atEnd: atEOF && count == end - start)
        if resolved == .utf8 {
            encoding = .utf8
            guessedSingleByte = false
        }
    }

    private func makeResult(_ row: UnsafeBufferPointer<UInt8>, line: Int) -> CSVReadResult {
        var problem = scanner.problem
        if problem == nil && row.count > options.maxRecordBytes {
            problem = .recordTooLong(field: max(scanner.fieldCount - 1, 0), limit: options.maxRecordBytes)
        }
        if problem == nil && encoding == .utf8 && TextEncoding.containsNonASCII(row),
            let bad = TextEncoding.firstInvalidUTF8(in: row)
        {
            problem = .invalidUTF8(field: scanner.field(containing: bad), byte: row[bad])
        }
        if problem == nil && guessedSingleByte && TextEncoding.containsNonASCII(row),
            let (at, length) = TextEncoding.firstUTF8Character(in: row)
        {
            problem = .utf8InSingleByteFile(
                field: scanner.field(containing: at), bytes: Array(row[at..<(at + length)]), encoding: encoding)
        }
        let bytes = Array(row)
        if let problem {
            let location = SourceLocation(file: name, line: line, column: problem.column)
            return .malformed(MalformedRow(location: location, reason: problem.reason, rawBytes: bytes))
        }
        let fields = EncodedFields(bytes: bytes, spans: scanner.spanArray(), encoding: encoding, quote: options.quote)
        return .row(CSVRow(location: SourceLocation(file: name, line: line), fields: fields))
    }

    // MARK: - Buffer

    /// One read from the source into the free end of the buffer.
    private func readMore() throws {
        let n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end))
        if n == 0 { atEOF = true }
        if !sawC1Bytes && encoding == .latin1 && n > 0 {
            sawC1Bytes = Self.holdsC1Bytes(UnsafeBufferPointer(start: buffer + end, count: n))
        }
        end += n
    }

    /// Whether `bytes` hold one in 0x80-0x9F.
    static func holdsC1Bytes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var i = 0
        // Eight bytes at a time: a byte is in 0x80-0x9F when its top bit is set and the two below it are not.
        while i &+ 8 <= bytes.count {
            let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            if w & ~(w << 1) & ~(w << 2) & 0x8080_8080_8080_8080 != 0 { return true }
            i &+= 8
        }
        return bytes[i...].contains { $0 & 0xE0 == 0x80 }
    }

    /// Moves the unread bytes to the front, grows the buffer if they fill it, and reads until full or EOF.
    private func refill() throws {
        if start > 0 {
            let live = end - start
            if live > 0 { memmove(buffer, buffer + start, live) }
            end = live
            start = 0
        }
        if end == capacity {
            let bigger = min(capacity * 2, maxCapacity)
            precondition(bigger > capacity, "CSVReader: row limits should have stopped growth")
            resize(to: bigger)
        }
        while end < capacity && !atEOF { try readMore() }
    }

    private func resize(to newCapacity: Int) {
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity + 1)
        let live = end - start
        moved.update(from: buffer + start, count: live)
        buffer.deallocate()
        buffer = moved
        capacity = newCapacity
        start = 0
        end = live
    }

    /// Skips the rest of a row too long to buffer, following quotes so it stops at the row's real end.
    private func skipOversized(
        from resume: Int, lineBreaks: Int, state initial: CSVScanner.SkipState, problem: CSVRowProblem
    ) throws -> CSVReadResult {
        enum State { case fieldStart, unquoted, quoted, quoteInQuoted }
        let line = nextLine
        let prefix = Array(UnsafeBufferPointer(start: buffer + start, count: min(end - start, Self.rejectPrefixBytes)))
        let lf = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        let quote = options.quote
        let separator = options.separator
        var state: State
        switch initial {
        case .fieldStart: state = .fieldStart
        case .unquoted: state = .unquoted
        case .quoted: state = .quoted
        }
        var breaks = lineBreaks
        var lastWasCR = false
        var terminated = false
        var i = start + resume
        scanning: while true {
            if i >= end {
                if atEOF { break scanning }
                start = end
                try refill()
                i = start
                continue
            }
            let b = buffer[i]
            switch state {
            case .quoted:
                if b == quote {
                    state = .quoteInQuoted
                } else if b == lf {
                    if !lastWasCR { breaks += 1 }
                } else if b == cr {
                    breaks += 1
                }
                lastWasCR = b == cr
                i += 1
            case .quoteInQuoted:
                lastWasCR = false
                if b == quote {
                    state = .quoted
                    i += 1
                } else {
                    state = .unquoted
                }
            case .fieldStart:
                if b == quote {
                    state = .quoted
                    i += 1
                } else {
                    state = .unquoted
                }
            case .unquoted:
                i += 1
                if b == separator {
                    state = .fieldStart
                } else if b == lf {
                    terminated = true
                    break scanning
                } else if b == cr {
                    terminated = true
                    if i >= end && !atEOF {
                        start = end
                        try refill()
                        i = start
                    }
                    if i < end && buffer[i] == lf { i += 1 }
                    break scanning
                }
            }
        }
        start = i
        nextLine = line + breaks + (terminated ? 1 : 0)
        if capacity > options.chunkSize && end - start <= options.chunkSize { resize(to: options.chunkSize) }
        let location = SourceLocation(file: name, line: line, column: problem.column)
        return .malformed(MalformedRow(location: location, reason: problem.reason, rawBytes: prefix))
    }

    /// The last path component, as locations show it.
    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return shownName(path) }
        let tail = path[path.index(after: slash)...]
        return shownName(tail.isEmpty ? path : String(tail))
    }

    /// A file's or zip member's name as messages and the rejects file show it: line feeds and carriage returns
    /// escaped (`\x0A`), since each message line is read as one. A member named
    /// `consulta_cand_2018_MG.csv\nrows: 5000 inserted, nothing rejected.csv` printed that second line on its own.
    public static func shownName(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return name }
        return name.replacingOccurrences(of: "\r", with: "\\x0D").replacingOccurrences(of: "\n", with: "\\x0A")
    }
}
