/// The encoding a caller asks for when opening a file.
///
/// `.auto` looks at the bytes: a UTF-8 byte-order mark means UTF-8; otherwise, if the first 64 KiB
/// contain non-ASCII bytes and all of them form valid UTF-8, the file is UTF-8; anything else is
/// Latin-1 (what TSE ships). The other cases force an encoding.
///
/// ```swift
/// let reader = try TSEFileReader(path: "consulta_cand_2018_MG.csv", encoding: .auto)
/// print(reader.encoding)  // latin1
/// ```
public enum TextEncodingChoice: String, Sendable, CaseIterable {
    /// Detect from the first 64 KiB (BOM, then UTF-8 validity, else Latin-1).
    case auto
    /// Force ISO-8859-1: every byte is the code point of the same value.
    case latin1
    /// Force Windows-1252: like Latin-1 except 0x80-0x9F (see `TextEncoding.cp1252`).
    case cp1252
    /// Force UTF-8 (a leading byte-order mark is skipped).
    case utf8

    /// The encoding this choice stands for once the first bytes of the file are known.
    ///
    /// `prefix` is the start of the file (64 KiB are enough); `atEnd` says whether the prefix is
    /// the whole file, so a multi-byte sequence cut at its end is not taken as invalid UTF-8.
    /// Returns the encoding and the length of a UTF-8 byte-order mark to skip (0 or 3).
    public func resolve(prefix: UnsafeBufferPointer<UInt8>, atEnd: Bool) -> (encoding: TextEncoding, bomLength: Int) {
        let bom = TextEncoding.hasUTF8ByteOrderMark(prefix) ? 3 : 0
        switch self {
        case .latin1: return (.latin1, 0)
        case .cp1252: return (.cp1252, 0)
        case .utf8: return (.utf8, bom)
        case .auto:
            if bom > 0 { return (.utf8, bom) }
            let sample = UnsafeBufferPointer(rebasing: prefix.prefix(TextEncoding.detectionWindow))
            let cutShort = !atEnd || prefix.count > TextEncoding.detectionWindow
            guard TextEncoding.containsNonASCII(sample) else { return (.latin1, 0) }
            let valid = TextEncoding.firstInvalidUTF8(in: sample, allowTruncatedEnd: cutShort) == nil
            return (valid ? .utf8 : .latin1, 0)
        }
    }
}

/// A text encoding the readers decode, byte by byte, into Swift strings.
///
/// Decoding never fails: Latin-1 and Windows-1252 give every byte a character, and UTF-8 that is
/// not valid is caught per row by the CSV reader (the row becomes a `MalformedRow`); where a caller
/// decodes invalid UTF-8 directly, invalid sequences become U+FFFD.
public enum TextEncoding: String, Sendable, CustomStringConvertible {
    /// ISO-8859-1: byte value = code point. What TSE files use.
    case latin1
    /// Windows-1252: Latin-1 with printable characters in 0x80-0x9F (0x80 is €, 0x93/0x94 are “ ”).
    /// The five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) decode to the C1 control
    /// of the same value, as the WHATWG encoding standard and Windows do, so no byte is ever lost.
    case cp1252
    /// UTF-8.
    case utf8

    /// How many leading bytes `.auto` looks at.
    public static let detectionWindow = 64 * 1024

    /// A readable name, for progress lines and messages.
    public var description: String {
        switch self {
        case .latin1: return "ISO-8859-1 (Latin-1)"
        case .cp1252: return "Windows-1252"
        case .utf8: return "UTF-8"
        }
    }

    /// Decodes bytes to a string.
    ///
    /// When `collapsingDoubled` is a byte (the CSV quote), each pair of that byte is written once:
    /// this is how a quoted CSV field's `""` escapes become `"` in the same pass.
    public func decode(_ bytes: UnsafeBufferPointer<UInt8>, collapsingDoubled quote: UInt8? = nil) -> String {
        let count = bytes.count
        if count == 0 { return "" }
        guard let base = bytes.baseAddress else { return "" }
        switch self {
        case .utf8:
            guard let quote else { return String(decoding: bytes, as: UTF8.self) }
            return TextEncoding.decodeUTF8(base, count, collapsing: quote)
        case .latin1, .cp1252:
            // Exact UTF-8 length first, so short fields become small (inline) strings.
            let q = quote.map { Int($0) } ?? 256
            var extra = 0
            var quotes = 0
            if self == .latin1 {
                for i in 0..<count {
                    let b = base[i]
                    extra &+= Int(b >> 7)
                    if Int(b) == q { quotes &+= 1 }
                }
            } else {
                let threeByte = TextEncoding.cp1252ThreeByteMask
                for i in 0..<count {
                    let b = base[i]
                    if b >= 0x80 {
                        extra &+= b < 0xA0 && (threeByte >> UInt32(b &- 0x80)) & 1 == 1 ? 2 : 1
                    } else if Int(b) == q {
                        quotes &+= 1
                    }
                }
            }
            if extra == 0 && quotes == 0 { return String(decoding: bytes, as: UTF8.self) }
            return String(unsafeUninitializedCapacity: count + extra - quotes / 2) { out in
                self.transcodeSingleByte(base, count, into: out.baseAddress!, collapsing: quote)
            }
        }
    }

    /// Decodes bytes held in an array slice (see `decode(_:collapsingDoubled:)`).
    public func decode(_ bytes: ArraySlice<UInt8>, collapsingDoubled quote: UInt8? = nil) -> String {
        bytes.withUnsafeBufferPointer { decode($0, collapsingDoubled: quote) }
    }

    private func transcodeSingleByte(
        _ base: UnsafePointer<UInt8>, _ count: Int, into out: UnsafeMutablePointer<UInt8>, collapsing quote: UInt8?
    ) -> Int {
        var o = 0
        var i = 0
        let q = Int(quote ?? 0xFF)  // 0xFF is never a quote byte: it is not ASCII.
        while i < count {
            let b = base[i]
            if b < 0x80 {
                out[o] = b
                o += 1
                if Int(b) == q { i += 1 }
            } else if self == .cp1252 && b < 0xA0 {
                let scalar = TextEncoding.cp1252High[Int(b) - 0x80]
                if scalar < 0x800 {
                    out[o] = UInt8(0xC0 | (scalar >> 6))
                    out[o + 1] = UInt8(0x80 | (scalar & 0x3F))
                    o += 2
                } else {
                    out[o] = UInt8(0xE0 | (scalar >> 12))
                    out[o + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
                    out[o + 2] = UInt8(0x80 | (scalar & 0x3F))
                    o += 3
                }
            } else {
                o = Self.writeLatin1High(b, to: out, at: o)
            }
            i += 1
        }
        return o
    }

    /// Writes a Latin-1 byte from 0x80 up as its two UTF-8 bytes at `out[o]`; returns the next offset.
    @inline(__always)
    static func writeLatin1High(_ b: UInt8, to out: UnsafeMutablePointer<UInt8>, at o: Int) -> Int {
        out[o] = 0xC0 | (b >> 6)
        out[o + 1] = 0x80 | (b & 0x3F)
        return o + 2
    }

    private static func decodeUTF8(_ base: UnsafePointer<UInt8>, _ count: Int, collapsing quote: UInt8) -> String {
        var unescaped = [UInt8]()
        unescaped.reserveCapacity(count)
        var i = 0
        while i < count {
            let b = base[i]
            unescaped.append(b)
            i += b == quote ? 2 : 1
        }
        return String(decoding: unescaped, as: UTF8.self)
    }

    // MARK: - Byte-level facts

    /// True when the bytes start with the UTF-8 byte-order mark EF BB BF.
    public static func hasUTF8ByteOrderMark(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
    }

    /// The offset and length of the first UTF-8 character that Latin-1 text would not hold: two bytes for
    /// U+0080...U+00FF (0xC2 or 0xC3, then 0x80...0xBF: Portuguese letters, ç is 0xC3 0xA7), three bytes
    /// (0xE0...0xEF, then two of 0x80...0xBF: dashes, curly quotes, €) or four (0xF0...0xF4, then three: emoji),
    /// not followed by a further continuation byte. In Latin-1 the same bytes read as 'Ã', 'Â' or 'â' followed by controls or symbols (§, ª, º, ...),
    /// which no name or text in these files holds. 'Ã' or 'Â' before a no-break space (0xA0) is left alone:
    /// IRMÃ + NBSP is real Latin-1 text. Nil when there is none.
    public static func firstUTF8Character(in bytes: UnsafeBufferPointer<UInt8>) -> (offset: Int, length: Int)? {
        guard bytes.count >= 2 else { return nil }
        @inline(__always) func isContinuation(_ c: UInt8) -> Bool { c >= 0x80 && c <= 0xBF }
        var i = 0
        let count = bytes.count
        while i + 1 < count {
            // Eight bytes at a time while none of them can start a sequence (every lead byte is 0xC0 or above:
            // both top bits set), straight to the first one that may.
            if i &+ 8 <= count {
                let word = UnsafeRawPointer(bytes.baseAddress! + i).loadUnaligned(as: UInt64.self)
                let leads = word & (word << 1) & 0x8080_8080_8080_8080
                if leads == 0 {
                    i &+= 8
                    continue
                }
                i &+= leads.trailingZeroBitCount &>> 3
                if i + 1 >= count { break }
            }
            let b = bytes[i]
            if b == 0xC2 || b == 0xC3 {
                let next = bytes[i + 1]
                let after = i + 2 < bytes.count ? bytes[i + 2] : 0
                if isContinuation(next) && next != 0xA0 && !isContinuation(after) { return (i, 2) }
            } else if b >= 0xE0 && b <= 0xEF, i + 2 < bytes.count {
                let after = i + 3 < bytes.count ? bytes[i + 3] : 0
                if isContinuation(bytes[i + 1]) && isContinuation(bytes[i + 2]) && !isContinuation(after) {
                    return (i, 3)
                }
            } else if b >= 0xF0 && b <= 0xF4, i + 3 < bytes.count {  // four bytes: emoji and other planes
                let after = i + 4 < bytes.count ? bytes[i + 4] : 0
                if isContinuation(bytes[i + 1]) && isContinuation(bytes[i + 2]) && isContinuation(bytes[i + 3])
                    && !isContinuation(after)
                {
                    return (i, 4)
                }
            }
            i += 1
        }
        return nil
    }

    /// True when some byte is 0x80 or above.
    public static func containsNonASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        var i = 0
        // Eight bytes at a time: the high bits of a word are zero exactly when all its bytes are ASCII.
        while i + 8 <= count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { return true }
            i += 8
        }
        while i < count {
            if base[i] >= 0x80 { return true }
            i += 1
        }
        return false
    }

    /// The offset of the first byte that does not belong to a valid UTF-8 sequence, or nil.
    ///
    /// With `allowTruncatedEnd`, a sequence that is only cut by the end of the buffer (its bytes so
    /// far are valid) is accepted: the buffer is a prefix of something longer.
    public static func firstInvalidUTF8(in bytes: UnsafeBufferPointer<UInt8>, allowTruncatedEnd: Bool = false) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var i = 0
        while i < count {
            let b = base[i]
            if b < 0x80 {
                i += 1
                continue
            }
            let need: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch b {
            case 0xC2...0xDF: need = 1
            case 0xE0:
                need = 2
                low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED:
                need = 2
                high = 0x9F
            case 0xF0:
                need = 3
                low = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4:
                need = 3
                high = 0x8F
            default: return i
            }
            for k in 1...need {
                if i + k >= count { return allowTruncatedEnd ? nil : i }
                let c = base[i + k]
                let (lo, hi): (UInt8, UInt8) = k == 1 ? (low, high) : (0x80, 0xBF)
                if c < lo || c > hi { return i }
            }
            i += need + 1
        }
        return nil
    }

    /// Bit n set when Windows-1252 byte 0x80+n takes three UTF-8 bytes (its code point is >= U+0800).
    static let cp1252ThreeByteMask: UInt32 = {
        var mask: UInt32 = 0
        for (n, scalar) in cp1252High.enumerated() where scalar >= 0x800 { mask |= 1 << UInt32(n) }
        return mask
    }()

    /// Code points of Windows-1252 bytes 0x80-0x9F; undefined bytes keep their C1 code point.
    static let cp1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]
}
