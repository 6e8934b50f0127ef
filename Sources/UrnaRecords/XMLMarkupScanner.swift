import Foundation

/// A byte-level pass over the XML text before libxml2 sees it: refuses DTDs and non-ASCII-compatible
/// encodings, and notes the line where each `<candidato` / `<bem` start tag begins.
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

    private var state = State.start
    private(set) var line = 1
    /// Absolute byte offset of the first byte of `line` (for error columns).
    private var lineStart: Int64 = 0
    private var offset: Int64 = 0
    private var tagLine = 1
    private var tagColumn = 1
    private var nameLength = 0
    /// The first bytes of the current tag's local name, packed; enough to tell `candidato` and `bem` apart.
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
        let end = bytes.count
        var i = 0
        if state == .start {
            while startBytes.count < 4 && i < end {
                startBytes.append(base[i])
                i += 1
            }
            if startBytes.count < 4 { return true }  // `finish` decides for inputs this short
            guard scanStartBytes() else { return false }
        }
        while i < end {
            switch state {
            case .text:
                // Fast path: jump to the next '<', counting line feeds on the way.
                let rest = UnsafeRawPointer(base + i)
                guard let found = memchr(rest, 0x3C, end - i) else {
                    countLines(base + i, end - i)
                    offset += Int64(end - i)
                    i = end
                    continue
                }
                let lt = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                countLines(base + i, lt - i)
                offset += Int64(lt - i)
                tagLine = line
                tagColumn = Int(offset - lineStart) + 1
                offset += 1
                i = lt + 1
                if let resume = skipTagName(base, from: i, end: end) {
                    offset += Int64(resume - i)
                    i = resume
                } else {
                    state = .afterLessThan
                }
            default:
                let byte = base[i]
                if !step(byte) { return false }
                // Back in text, the text state re-reads this byte (a name can end at a line feed).
                if state == .text { continue }
                advance(byte)
                i += 1
            }
        }
        return failure == nil
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

    /// Fast path for the common case, an element tag whose name ends inside this chunk: notes a record
    /// start tag and returns where the text state resumes (at the byte after the name). Returns nil for
    /// anything else (comments, CDATA, PIs, a name cut by the chunk end): the byte-wise states handle it.
    @inline(__always)
    private mutating func skipTagName(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) -> Int? {
        guard start < end else { return nil }
        let first = base[start]
        if first == 0x2F { return start + 1 }  // an end tag: nothing in it matters
        if first == 0x21 || first == 0x3F { return nil }
        var k = start
        var local = start
        while k < end {
            let byte = base[k]
            if byte <= 0x20 || byte == 0x3E || byte == 0x2F { break }
            if byte == 0x3A { local = k + 1 }
            k += 1
        }
        guard k < end else { return nil }
        let length = k - local
        if length == 9 {
            if memcmp(base + local, "candidato", 9) == 0 { recordLines.append(tagLine) }
        } else if length == 3 {
            if base[local] == 0x62 && base[local + 1] == 0x65 && base[local + 2] == 0x6D { recordLines.append(tagLine) }
        }
        return k
    }

    @inline(__always) private mutating func advance(_ byte: UInt8) {
        offset += 1
        if byte == 0x0A {
            line += 1
            lineStart = offset
        }
    }

    private mutating func countLines(_ p: UnsafePointer<UInt8>, _ count: Int) {
        var lineFeeds = 0
        for k in 0..<count where p[k] == 0x0A { lineFeeds += 1 }
        guard lineFeeds > 0 else { return }
        line += lineFeeds
        var last = count - 1
        while p[last] != 0x0A { last -= 1 }
        lineStart = offset + Int64(last) + 1
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
        let b = startBytes + [0, 0, 0, 0]
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
        offset = Int64(skip)
        lineStart = offset
        let buffered = startBytes
        startBytes = []
        return buffered.withUnsafeBytes { scan(UnsafeRawBufferPointer(rebasing: $0[skip...])) }
    }

    /// Call at end of input: an input shorter than four bytes still gets its encoding check.
    mutating func finish() -> Bool {
        if state == .start && !startBytes.isEmpty { return scanStartBytes() }
        return failure == nil
    }
}
