#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A byte-level pass over the XML text before libxml2 sees it: refuses DTDs and non-ASCII-compatible
/// encodings, and notes the line where each `<candidato` / `<bem` / `<coligacao` start tag begins.
///
/// Why: libxml2 keeps element line numbers in 16 bits (they stop at 65535) and its parser runs ahead of
/// the reader, so neither gives a record's line in a large file; and refusing `<!DOCTYPE` here means
/// libxml2 never parses a DTD at all (no entity expansion, no external fetch, whatever its options).
/// The scan follows comments, CDATA sections and processing instructions so that markup inside them is
/// not mistaken for tags. `<` cannot occur inside an attribute value in well-formed XML, so after a tag's
/// name nothing more of the tag needs reading. Lines are counted as libxml2 counts them: one per LF byte.
struct XMLMarkupScanner {
    private enum State {
        case start, text, afterLessThan, name, bang, comment, cdata, processingInstruction
    }

    private enum TagStart {
        case recordElement(resume: Int)
        case otherElement(resume: Int)
        case needsByteScan
    }

    private var state = State.start
    private(set) var line = 1
    /// Absolute byte offset of the first byte of `line` (for error columns).
    private var lineStart: Int64 = 0
    /// Absolute offset of the next byte to scan.
    private var consumed: Int64 = 0
    /// Absolute offset of the current chunk's first byte, and how far into it line feeds are counted:
    /// lines are counted in bulk, only up to where one is needed, and at the chunk's end.
    private var chunkStart: Int64 = 0
    private var countedUpTo = 0
    private var tagLine = 1
    private var tagColumn = 1
    private var nameLength = 0
    /// The first bytes of the current tag's local name, packed; enough to tell `candidato`, `coligacao` and
    /// `bem` apart.
    private var nameBytes: (UInt64, UInt64) = (0, 0)
    private var bangBytes: UInt64 = 0
    private var bangLength = 0
    private var runLength = 0
    private var startBytes: [UInt8] = []
    /// Lines of record start tags seen but not yet claimed by the reader, oldest first.
    private var recordLines: [Int] = []
    private var recordLinesHead = 0

    /// Why the input is refused; once set, the scan stops.
    private(set) var failure: (message: String, line: Int, column: Int, kind: XMLReadError.Kind)?

    /// Scans the next chunk of input; returns false (and sets `failure`) when the input must be refused.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        var i = 0
        if state == .start {
            while startBytes.count < 4 && i < bytes.count {
                startBytes.append(base[i])
                i += 1
            }
            if startBytes.count < 4 { return true }  // `finish` decides for inputs this short
            guard scanStartBytes() else { return false }
        }
        return scanBody(base, from: i, end: bytes.count)
    }

    /// The line of the next record start tag the reader reaches, in document order.
    mutating func claimRecordLine() -> Int? {
        guard recordLinesHead < recordLines.count else { return nil }
        let line = recordLines[recordLinesHead]
        recordLinesHead += 1
        if recordLinesHead == recordLines.count {
            recordLines.removeAll(keepingCapacity: true)
            recordLinesHead = 0
        } else if recordLinesHead >= 1024 {
            recordLines.removeFirst(recordLinesHead)
            recordLinesHead = 0
        }
        return line
    }

    // MARK: - Private

    /// Scans `base[from..<end]`, where `base[from]` is the byte at absolute offset `consumed`.
    private mutating func scanBody(_ base: UnsafePointer<UInt8>, from: Int, end: Int) -> Bool {
        chunkStart = consumed - Int64(from)
        countedUpTo = from
        var i = from
        while i < end {
            if state == .text {
                // Fast path: jump to the next '<' and look at the tag's name in place.
                guard let found = memchr(base + i, 0x3C, end - i) else { break }
                let lt = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                switch tagStart(base, from: lt + 1, end: end) {
                case .otherElement(let resume):
                    i = resume
                case .recordElement(let resume):
                    countLines(base, upTo: lt)
                    recordLines.append(line)
                    i = resume
                case .needsByteScan:
                    countLines(base, upTo: lt)
                    tagLine = line
                    tagColumn = Int(chunkStart + Int64(lt) - lineStart) + 1
                    state = .afterLessThan
                    i = lt + 1
                }
            } else {
                guard step(base[i]) else { return false }
                // Back in text, the text state re-reads this byte: it may be the next '<'.
                if state != .text { i += 1 }
            }
        }
        countLines(base, upTo: end)
        consumed = chunkStart + Int64(end)
        return failure == nil
    }

    /// The common case, an element tag whose name ends inside this chunk, read in place: whether it
    /// starts a record, and where the text state resumes (after the name: nothing further in a tag
    /// matters). Comments, CDATA, PIs and names cut by the chunk's end go to the byte-wise states.
    @inline(__always)
    private func tagStart(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> TagStart {
        guard start < end else { return .needsByteScan }
        let first = base[start]
        if first == 0x2F { return .otherElement(resume: start + 1) }  // an end tag
        if first == 0x21 || first == 0x3F { return .needsByteScan }
        var k = start
        var local = start
        while k < end {
            let byte = base[k]
            if byte <= 0x20 || byte == 0x3E || byte == 0x2F { break }
            if byte == 0x3A { local = k + 1 }
            k += 1
        }
        guard k < end else { return .needsByteScan }
        let length = k - local
        let isRecord =
            (length == 9 && (memcmp(base + local, "candidato", 9) == 0 || memcmp(base + local, "coligacao", 9) == 0))
            || (length == 3 && base[local] == 0x62 && base[local + 1] == 0x65 && base[local + 2] == 0x6D)
        return isRecord ? .recordElement(resume: k) : .otherElement(resume: k)
    }

    /// Counts the line feeds of the current chunk from `countedUpTo` to `end`, as libxml2 counts lines:
    /// one per LF byte.
    private mutating func countLines(_ base: UnsafePointer<UInt8>, upTo end: Int) {
        guard end > countedUpTo else { return }
        let p = base + countedUpTo
        let count = end - countedUpTo
        countedUpTo = end
        var lineFeeds = 0
        var k = 0
        // Eight bytes at a time: the high bit of each byte of `zeros` is set exactly when that byte is LF.
        while k + 8 <= count {
            let x = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self) ^ 0x0A0A_0A0A_0A0A_0A0A
            let low7 = UInt64(0x7F7F_7F7F_7F7F_7F7F)
            let zeros = ~(((x & low7) &+ low7) | x | low7)
            lineFeeds &+= zeros.nonzeroBitCount
            k += 8
        }
        while k < count {
            if p[k] == 0x0A { lineFeeds &+= 1 }
            k += 1
        }
        guard lineFeeds > 0 else { return }
        line += lineFeeds
        var last = count - 1
        while p[last] != 0x0A { last -= 1 }
        lineStart = chunkStart + Int64(end - count + last) + 1
    }

    /// Handles one byte inside markup; returns false when the input must be refused.
    private mutating func step(_ byte: UInt8) -> Bool {
        switch state {
        case .afterLessThan:
            switch byte {
            case 0x21:  // !
                state = .bang
                bangBytes = 0
                bangLength = 0
            case 0x3F:  // ?
                state = .processingInstruction
                runLength = 0
            case 0x2F:  // / : an end tag; nothing in it matters
                state = .text
            default:
                state = .name
                nameLength = 0
                nameBytes = (0, 0)
                appendNameByte(byte)
            }
        case .name:
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F:
                if isRecordName { recordLines.append(tagLine) }
                state = .text
            case 0x3A:  // a prefix ends: only the local name counts
                nameLength = 0
                nameBytes = (0, 0)
            default:
                appendNameByte(byte)
            }
        case .bang:
            bangBytes |= UInt64(byte) << (8 * UInt64(bangLength))
            bangLength += 1
            if bangLength == 2 && bangBytes == Self.pack("--") {
                state = .comment
                runLength = 0
            } else if bangLength == 7 {
                if bangBytes == Self.pack("[CDATA[") {
                    state = .cdata
                    runLength = 0
                } else if bangBytes == Self.pack("DOCTYPE") {
                    failure = (
                        "DTDs are not accepted: remove the <!DOCTYPE ...> declaration (candidate dumps need none)",
                        tagLine, tagColumn, .dtdNotAccepted
                    )
                    return false
                } else {
                    state = .text
                }
            } else if bangLength == 1 && byte != 0x2D && byte != 0x5B && byte != 0x44 {
                state = .text  // not a comment, CDATA or DOCTYPE: libxml2 reports it
            }
        case .comment:
            if byte == 0x2D {
                runLength += 1
            } else {
                if byte == 0x3E && runLength >= 2 { state = .text }
                runLength = 0
            }
        case .cdata:
            if byte == 0x5D {
                runLength += 1
            } else {
                if byte == 0x3E && runLength >= 2 { state = .text }
                runLength = 0
            }
        case .processingInstruction:
            if byte == 0x3E && runLength > 0 { state = .text }
            runLength = byte == 0x3F ? 1 : 0
        case .start, .text:
            break
        }
        return true
    }

    @inline(__always) private mutating func appendNameByte(_ byte: UInt8) {
        if nameLength < 8 {
            nameBytes.0 |= UInt64(byte) << (8 * UInt64(nameLength))
        } else if nameLength < 16 {
            nameBytes.1 |= UInt64(byte) << (8 * UInt64(nameLength - 8))
        }
        nameLength += 1
    }

    private var isRecordName: Bool {
        (nameLength == 9 && nameBytes.0 == Self.pack("candidat") && nameBytes.1 == Self.pack("o"))
            || (nameLength == 9 && nameBytes.0 == Self.pack("coligaca") && nameBytes.1 == Self.pack("o"))
            || (nameLength == 3 && nameBytes.0 == Self.pack("bem") && nameBytes.1 == 0)
    }

    private static func pack(_ text: StaticString) -> UInt64 {
        var value: UInt64 = 0
        let p = text.utf8Start
        for k in 0..<min(text.utf8CodeUnitCount, 8) { value |= UInt64(p[k]) << (8 * UInt64(k)) }
        return value
    }

    /// Decides on the first four bytes: skips a UTF-8 byte order mark and refuses UTF-16, UCS-4 and
    /// EBCDIC, whose markup a byte scan cannot follow. Then scans those bytes like any others.
    private mutating func scanStartBytes() -> Bool {
        let b = startBytes + [0x20, 0x20, 0x20, 0x20]  // pad a tiny input with bytes no pattern uses
        let refused: String?
        switch (b[0], b[1], b[2], b[3]) {
        case (0xFE, 0xFF, _, _), (0xFF, 0xFE, _, _), (0x00, 0x3C, _, _), (0x3C, 0x00, _, _),
            (0x00, 0x00, _, _):
            refused = "UTF-16 and UCS-4 XML are not accepted: re-encode the file as UTF-8"
        case (0x4C, 0x6F, 0xA7, 0x94):
            refused = "EBCDIC XML is not accepted: re-encode the file as UTF-8"
        default:
            refused = nil
        }
        if let refused {
            failure = (refused, 1, 1, .unsupportedEncoding)
            return false
        }
        state = .text
        let skip = startBytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        lineStart = Int64(skip)
        consumed = Int64(skip)
        let buffered = startBytes
        startBytes = []
        return buffered.withUnsafeBufferPointer { scanBody($0.baseAddress!, from: skip, end: $0.count) }
    }

    /// Call at end of input: an input shorter than four bytes still gets its encoding check.
    mutating func finish() -> Bool {
        if state == .start && !startBytes.isEmpty { return scanStartBytes() }
        return failure == nil
    }
}
