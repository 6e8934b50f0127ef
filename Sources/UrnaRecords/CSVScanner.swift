/// Finds the fields of one row in a byte buffer: the hot loop of `CSVReader`.
///
/// Restartable rather than resumable: when the row runs past the bytes at hand it answers
/// `.needMore` and the reader scans the row again from its start once more bytes are in. A row
/// crosses a chunk boundary once per chunk, so the rescan costs a fraction of a percent and keeps
/// this loop free of saved state.
///
/// Quoting rules: a field that starts with the quote is quoted and ends at the next lone quote;
/// `""` inside it is one quote; newlines inside it belong to the field. After the closing quote
/// only the separator or a line end may follow, anything else makes the row malformed (the rest of
/// that field is skipped as unquoted text so the row still ends where a reader would expect). A
/// quote inside an unquoted field is an ordinary character. Line ends are LF, CRLF or CR.
struct CSVScanner {
    enum Outcome {
        /// A row of `length` bytes (without terminator); `consumed` includes the terminator.
        /// `lineBreaks` counts newlines inside quoted fields.
        case row(length: Int, consumed: Int, lineBreaks: Int)
        /// An empty line (no bytes before its terminator): skipped, but it counts as a line.
        case blank(consumed: Int)
        /// The row goes past the end of the bytes at hand. `resume` is where scanning stopped, in the
        /// middle of the field that started at `fieldStart`, in `state`; `field` is its index.
        case needMore(resume: Int, fieldStart: Int, field: Int, lineBreaks: Int, state: SkipState)
        /// No bytes left at all.
        case end
    }

    /// Where the scanner was inside a row, for skipping the rest of a row too long to buffer.
    enum SkipState {
        case fieldStart, unquoted, quoted
    }

    let separator: UInt8
    let quote: UInt8
    let maxFieldBytes: Int
    let maxFieldCount: Int
    let stopsAtNUL: Bool
    /// Per byte: nonzero when it stops the scan inside a quoted field (quote, CR, LF, NUL if rejected).
    private let quotedStops: UnsafeMutablePointer<UInt8>
    /// Per byte: nonzero when it stops the scan inside an unquoted field (separator, CR, LF, NUL if rejected).
    private let unquotedStops: UnsafeMutablePointer<UInt8>
    private var spans: UnsafeMutablePointer<UInt32>
    private var spanCapacity: Int
    /// Two per field found so far in the current row.
    private(set) var spanCount = 0
    /// The first thing wrong with the current row.
    private(set) var problem: CSVRowProblem?

    init(options: CSVOptions) {
        separator = options.separator
        quote = options.quote
        maxFieldBytes = options.maxFieldBytes
        maxFieldCount = options.maxFieldCount
        stopsAtNUL = options.nulBytes == .reject
        quotedStops = .allocate(capacity: 256)
        quotedStops.initialize(repeating: 0, count: 256)
        unquotedStops = .allocate(capacity: 256)
        unquotedStops.initialize(repeating: 0, count: 256)
        for stop in [UInt8(ascii: "\n"), UInt8(ascii: "\r")] {
            quotedStops[Int(stop)] = 1
            unquotedStops[Int(stop)] = 1
        }
        quotedStops[Int(options.quote)] = 1
        unquotedStops[Int(options.separator)] = 1
        if options.nulBytes == .reject {
            quotedStops[0] = 1
            unquotedStops[0] = 1
        }
        spanCapacity = 128
        spans = .allocate(capacity: spanCapacity)
    }

    /// Frees the tables; the owner calls this once, in its `deinit`.
    func deallocate() {
        quotedStops.deallocate()
        unquotedStops.deallocate()
        spans.deallocate()
    }

    /// The spans of the row just scanned, as `EncodedFields` wants them.
    func spanArray() -> [UInt32] { Array(UnsafeBufferPointer(start: spans, count: spanCount)) }

    var fieldCount: Int { spanCount / 2 }

    /// The index of the field whose bytes (or the separator after them) include `offset`.
    func field(containing offset: Int) -> Int {
        var k = 0
        while k + 1 < spanCount {
            if offset <= Int(spans[k + 1]) { return k / 2 }
            k += 2
        }
        return max(spanCount / 2 - 1, 0)
    }

    mutating func noteProblem(_ p: CSVRowProblem) {
        if problem == nil { problem = p }
    }

    @inline(__always)
    private mutating func pushSpan(_ start: Int, _ end: Int, escaped: Bool) {
        let field = spanCount / 2
        if end - start > maxFieldBytes { noteProblem(.fieldTooLong(field: field, limit: maxFieldBytes)) }
        if field >= maxFieldCount {
            noteProblem(.tooManyFields(limit: maxFieldCount))
            return
        }
        if spanCount + 2 > spanCapacity { growSpans() }
        spans[spanCount] = UInt32(truncatingIfNeeded: start) | (escaped ? EncodedFields.escapedFlag : 0)
        spans[spanCount + 1] = UInt32(truncatingIfNeeded: end)
        spanCount += 2
    }

    private mutating func growSpans() {
        let bigger = UnsafeMutablePointer<UInt32>.allocate(capacity: spanCapacity * 2)
        bigger.moveInitialize(from: spans, count: spanCount)
        spans.deallocate()
        spans = bigger
        spanCapacity *= 2
    }

    /// Nonzero when some byte of `word` may stop a quoted field: the quote, or any byte below 0x0E (CR, LF
    /// and NUL are among them; the others are let through by the byte loop). The lowest set bit is in the
    /// first such byte (bytes are little-endian in the word): higher bits may be false alarms.
    @inline(__always)
    private static func quotedStopBits(_ word: UInt64, quotes: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let q = word ^ quotes
        // "Some byte is zero" and "some byte is below 14", the classic word-at-a-time tests.
        return ((q &- ones) & ~q | (word &- ones &* 0x0E) & ~word) & highs
    }

    /// Scans one row starting at `p[0]`, with `n` bytes available; `atEOF` says no more will come.
    ///
    /// `p[n]` must be readable and hold a line feed: the sentinel stops the inner loops without a
    /// bounds test per byte (they check `i >= n` once they stop).
    mutating func scan(_ p: UnsafePointer<UInt8>, _ n: Int, atEOF: Bool) -> Outcome {
        spanCount = 0
        problem = nil
        let lf = UInt8(ascii: "\n")
        let cr = UInt8(ascii: "\r")
        if n == 0 {
            return atEOF ? .end : .needMore(resume: 0, fieldStart: 0, field: 0, lineBreaks: 0, state: .fieldStart)
        }
        if p[0] == lf { return .blank(consumed: 1) }
        if p[0] == cr {
            if n == 1 && !atEOF {
                return .needMore(resume: 0, fieldStart: 0, field: 0, lineBreaks: 0, state: .fieldStart)
            }
            return .blank(consumed: n > 1 && p[1] == lf ? 2 : 1)
        }
        let qStops = quotedStops
        let uStops = unquotedStops
        let quote = self.quote
        let quotes = 0x0101_0101_0101_0101 &* UInt64(quote)
        let separator = self.separator
        var breaks = 0
        var i = 0
        while true {
            let field = spanCount / 2
            if i < n && p[i] == quote {
                i += 1
                let contentStart = i
                var escaped = false
                quoted: while true {
                    // Eight bytes at a time while none of them can end the quoted run, straight to the first
                    // byte that may; a control byte that does not (a tab) is stepped over. The last few
                    // bytes of the buffer go one by one (the sentinel at p[n] stops that loop).
                    while true {
                        while i &+ 8 <= n {
                            let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                            let stops = Self.quotedStopBits(word, quotes: quotes)
                            if stops != 0 {
                                i &+= stops.trailingZeroBitCount &>> 3
                                break
                            }
                            i &+= 8
                        }
                        if qStops[Int(p[i])] != 0 { break }
                        if i &+ 8 > n {
                            while qStops[Int(p[i])] == 0 { i &+= 1 }
                            break
                        }
                        i &+= 1
                    }
                    if i >= n {
                        if !atEOF {
                            return .needMore(
                                resume: i, fieldStart: contentStart, field: field, lineBreaks: breaks, state: .quoted)
                        }
                        noteProblem(.unterminatedQuote(field: field))
                        pushSpan(contentStart, n, escaped: escaped)
                        break quoted
                    }
                    let c = p[i]
                    if c == quote {
                        if i + 1 >= n {
                            if !atEOF {
                                return .needMore(
                                    resume: i, fieldStart: contentStart, field: field, lineBreaks: breaks,
                                    state: .quoted)
                            }
                        } else if p[i + 1] == quote {
                            escaped = true
                            i += 2
                            continue quoted
                        }
                        pushSpan(contentStart, i, escaped: escaped)
                        i += 1
                        break quoted
                    } else if c == lf {
                        breaks += 1
                        i += 1
                    } else if c == cr {
                        if i + 1 >= n && !atEOF {
                            return .needMore(
                                resume: i, fieldStart: contentStart, field: field, lineBreaks: breaks, state: .quoted)
                        }
                        breaks += 1
                        i += (i + 1 < n && p[i + 1] == lf) ? 2 : 1
                    } else {
                        noteProblem(.nulByte(field: field))
                        i += 1
                    }
                }
                if i < n {
                    let c = p[i]
                    if c != separator && c != lf && c != cr {
                        noteProblem(.textAfterClosingQuote(field: field, byte: c))
                        while true {
                            while uStops[Int(p[i])] == 0 { i &+= 1 }
                            if i < n && p[i] == 0 {
                                i += 1
                                continue
                            }
                            break
                        }
                        if i >= n && !atEOF {
                            return .needMore(
                                resume: i, fieldStart: contentStart, field: field, lineBreaks: breaks, state: .unquoted)
                        }
                    }
                }
            } else {
                let fieldStart = i
                while true {
                    while uStops[Int(p[i])] == 0 { i &+= 1 }
                    if i < n && p[i] == 0 {
                        noteProblem(.nulByte(field: field))
                        i += 1
                        continue
                    }
                    break
                }
                if i >= n && !atEOF {
                    return .needMore(
                        resume: i, fieldStart: fieldStart, field: field, lineBreaks: breaks, state: .unquoted)
                }
                pushSpan(fieldStart, i, escaped: false)
            }
            if i >= n { return .row(length: n, consumed: n, lineBreaks: breaks) }
            let c = p[i]
            if c == separator {
                i += 1
                continue
            }
            if c == lf { return .row(length: i, consumed: i + 1, lineBreaks: breaks) }
            if i + 1 >= n {
                if !atEOF {
                    return .needMore(resume: i, fieldStart: i, field: field, lineBreaks: breaks, state: .unquoted)
                }
                return .row(length: i, consumed: i + 1, lineBreaks: breaks)
            }
            return .row(length: i, consumed: p[i + 1] == lf ? i + 2 : i + 1, lineBreaks: breaks)
        }
    }
}
