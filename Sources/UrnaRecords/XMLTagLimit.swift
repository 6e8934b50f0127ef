#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bounds what one start tag may carry, on the bytes about to be handed to libxml2: at most
/// `maximumAttributes` attributes and `maximumBytes` bytes.
///
/// libxml2 2.9 compares each attribute of a start tag with every earlier one, before any callback runs:
/// 100,000 attributes in one tag took 8.9 s and 200,000 took 35 s (a 2.4 MB file). Candidate dumps use a
/// handful of attributes.
///
/// A small state machine follows the markup across chunk boundaries: text (end tags with it), a start tag and
/// its quoted values, comments, CDATA sections and processing instructions, so that quotes and `>` inside
/// those are not taken for attributes. An attribute is counted at the quote that opens its value (every
/// attribute has one). After `<!` followed by anything but `--` or `[CDATA[` (a DOCTYPE, which the reader
/// refuses, or markup libxml2 refuses as malformed) the machine stops looking: libxml2 stops there.
///
/// Positions are those libxml2 gives: lines count line feeds, columns count characters (UTF-8 lead bytes;
/// the reader hands libxml2 UTF-8 unless the file declares another encoding libxml2 converts itself).
struct XMLTagLimit {
    /// Attributes one start tag may carry.
    static let maximumAttributes = 1_000
    /// Bytes one start tag may span, from its `<` to its `>`. A backstop: libxml2's push parser keeps a start
    /// tag in memory until its `>` arrives, and its own 10,000,000-byte lookup limit refuses a longer one first
    /// (with the reader's message about that limit).
    static let maximumBytes = 16 << 20

    /// Where the machine stands after the bytes scanned so far.
    private enum State: UInt8 {
        /// Text, or between markup in the prolog.
        case text
        /// Just after `<`.
        case open
        /// Inside a start tag, outside quotes.
        case startTag
        /// Inside a quoted attribute value (`quote` says which quote closes it).
        case quoted
        /// Just after `<!`, then `<!-`.
        case bang, bangDash
        /// Inside `<!--`; `run` counts the dashes just seen.
        case comment
        /// Matching `<![CDATA[` (`run` bytes matched so far), then inside it (`run` counts `]` just seen).
        case cdataOpen, cdata
        /// Inside `<?`; `run` is 1 just after a `?`.
        case instruction
        /// After `<!` and a letter (a DOCTYPE) or anything libxml2 refuses: nothing more is looked at.
        case declaration
    }

    /// Why a start tag is refused, and where its `<` is.
    struct Refusal {
        let message: String
        let line: Int
        let column: Int
        /// The tag's `<` in the bytes last scanned: what comes before it may still be parsed. Zero when
        /// the tag began in earlier bytes.
        let cut: Int
    }

    private var state = State.text
    private var quote: UInt8 = 0
    private var run = 0
    /// Bytes scanned before the current buffer.
    private var scanned = 0
    /// Line and column (characters before it on its line) where the current buffer begins.
    private var line = 1
    private var charactersOnLine = 0
    /// The `<` of the markup being read: its offset from the start of the input, and its line and column
    /// once the buffer holding it is left.
    private var markupOffset = 0
    private var markupPosition: (line: Int, column: Int)?
    private var attributes = 0

    /// A start tag and what follows it up to the next `<`, shorter than this, holds fewer attributes than the
    /// limit (each takes at least five bytes: ` a=""`) and fewer bytes than `maximumBytes`.
    private static let shortSpan = 5 * maximumAttributes

    /// The offset of the next `<` at or after `start`, or `count`: eight bytes at a time.
    @inline(__always) private static func nextLessThan(_ base: UnsafePointer<UInt8>, from start: Int, count: Int)
        -> Int
    {
        var k = start
        while k + 8 <= count {
            let x = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self) ^ 0x3C3C_3C3C_3C3C_3C3C
            // The lowest byte of x that is zero sets the lowest bit here (bits above it may be wrong).
            let found = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if found != 0 { return k + found.trailingZeroBitCount / 8 }
            k += 8
        }
        while k < count && base[k] != 0x3C { k += 1 }
        return k
    }

    private static let cdataOpening: [UInt8] = Array("[CDATA[".utf8)

    /// Scans the next bytes of the input; nil when every start tag in them is within the limits.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Refusal? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let count = bytes.count
        var i = 0
        while i < count {
            switch state {
            case .text:
                let lt = Self.nextLessThan(base, from: i, count: count)
                if lt == count {
                    i = count
                    continue
                }
                i = lt + 1
                markupOffset = scanned + lt
                markupPosition = nil
                state = .open
            case .open:
                switch base[i] {
                case 0x2F: state = .text  // an end tag holds no `<`, quote or comment: skipped like text
                case 0x3F:
                    state = .instruction
                    run = 0
                case 0x21: state = .bang
                default:
                    // A start tag, and the text after it, end at the next `<`: when that is near and in this
                    // buffer, the tag cannot reach either limit.
                    let tag = markupOffset - scanned
                    if tag >= 0 {
                        let next = Self.nextLessThan(base, from: i, count: count)
                        if next < count && next - tag < Self.shortSpan {
                            i = next + 1
                            markupOffset = scanned + next
                            continue  // still .open, at the next markup
                        }
                    }
                    attributes = 0
                    state = .startTag
                    continue  // the byte is the tag's name (or libxml2's error)
                }
                i += 1
            case .startTag:
                while i < count {
                    let byte = base[i]
                    i += 1
                    if byte == 0x3E {
                        state = .text
                        break
                    }
                    if byte == 0x22 || byte == 0x27 {
                        attributes += 1
                        if attributes > Self.maximumAttributes {
                            return refusal(
                                base, count,
                                "a start tag carries more than 1,000 attributes (candidate dumps use a handful, and "
                                    + "libxml2 slows down with the square of their number): it is not a candidate dump")
                        }
                        quote = byte
                        state = .quoted
                        break
                    }
                }
                if let refused = checkLength(base, count, at: i) { return refused }
            case .quoted:
                if let end = memchr(base + i, Int32(quote), count - i) {
                    i = UnsafeRawPointer(end) - UnsafeRawPointer(base) + 1
                    state = .startTag
                } else {
                    i = count
                }
                if let refused = checkLength(base, count, at: i) { return refused }
            case .bang:
                switch base[i] {
                case 0x2D: state = .bangDash
                case 0x5B:
                    state = .cdataOpen
                    run = 1
                default: state = .declaration
                }
                i += 1
            case .bangDash:
                state = base[i] == 0x2D ? .comment : .declaration
                run = 0
                i += 1
            case .comment:
                let byte = base[i]
                if byte == 0x3E && run >= 2 { state = .text }
                run = byte == 0x2D ? run + 1 : 0
                i += 1
            case .cdataOpen:
                if base[i] != Self.cdataOpening[run] {
                    state = .declaration
                } else {
                    run += 1
                    if run == Self.cdataOpening.count {
                        state = .cdata
                        run = 0
                    }
                }
                i += 1
            case .cdata:
                let byte = base[i]
                if byte == 0x3E && run >= 2 { state = .text }
                run = byte == 0x5D ? run + 1 : 0
                i += 1
            case .instruction:
                let byte = base[i]
                if byte == 0x3E && run == 1 { state = .text }
                run = byte == 0x3F ? 1 : 0
                i += 1
            case .declaration:
                i = count
            }
        }
        if (state == .open || state == .startTag || state == .quoted) && markupPosition == nil {
            markupPosition = position(base, upTo: markupOffset - scanned)
        }
        advance(base, count)
        return nil
    }

    /// Moves the position past the current buffer: two counting loops the compiler vectorises.
    private mutating func advance(_ base: UnsafePointer<UInt8>, _ count: Int) {
        var lineFeeds = 0
        for k in 0..<count where base[k] == 0x0A { lineFeeds += 1 }
        var start = 0
        if lineFeeds > 0 {
            start = count
            while base[start - 1] != 0x0A { start -= 1 }
            line += lineFeeds
            charactersOnLine = 0
        }
        for k in start..<count where base[k] & 0xC0 != 0x80 { charactersOnLine += 1 }
        scanned += count
    }

    private func checkLength(_ base: UnsafePointer<UInt8>, _ count: Int, at i: Int) -> Refusal? {
        guard scanned + i - markupOffset > Self.maximumBytes else { return nil }
        return refusal(
            base, count,
            "a start tag is longer than 16,777,216 bytes (candidate dumps' tags are a few hundred bytes): it is "
                + "not a candidate dump")
    }

    private func refusal(_ base: UnsafePointer<UInt8>, _ count: Int, _ message: String) -> Refusal {
        let cut = max(markupOffset - scanned, 0)
        let at = markupPosition ?? position(base, upTo: cut)
        return Refusal(message: message, line: at.line, column: at.column, cut: cut)
    }

    /// Line and column of byte `offset` of the current buffer.
    private func position(_ base: UnsafePointer<UInt8>, upTo offset: Int) -> (line: Int, column: Int) {
        var line = self.line
        var characters = charactersOnLine
        for k in 0..<offset {
            let byte = base[k]
            if byte == 0x0A {
                line += 1
                characters = 0
            } else if byte & 0xC0 != 0x80 {
                characters += 1
            }
        }
        return (line, characters + 1)
    }
}
