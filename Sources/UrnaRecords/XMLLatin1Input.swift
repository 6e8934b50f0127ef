/// Turns an XML document declared ISO-8859-1 into UTF-8 before libxml2 sees it, so libxml2 parses UTF-8
/// (told to ignore the declaration) instead of converting byte by byte itself: most of a TSE dump is
/// ASCII, which is copied eight bytes at a time.
///
/// libxml2 parses the converted text exactly as it would have parsed its own conversion (it converts to
/// UTF-8 before parsing too), so records, line and column numbers are the same. Only a declaration this
/// type recognises for certain is taken over (`<?xml` at the very start, a Latin-1 name, all of it in the
/// first bytes); anything else is left to libxml2.
struct XMLLatin1Input {
    /// Encoding names libxml2 reads as ISO-8859-1 (compared without case).
    static let names: Set<String> = ["ISO-8859-1", "ISO_8859-1", "ISO-LATIN-1", "LATIN1"]
    /// How far into the input the whole declaration must lie.
    static let declarationWindow = 256

    /// True when `start` (the first bytes of the input) begins with an XML declaration whose encoding is
    /// ISO-8859-1 under one of `names`.
    static func isDeclared(in start: UnsafeRawBufferPointer) -> Bool {
        guard let name = declaredEncoding(in: start) else { return false }
        return names.contains(name.uppercased())
    }

    /// The `encoding` of an XML declaration at the very start of `start`; nil when there is none, or it
    /// does not end within `declarationWindow` bytes.
    static func declaredEncoding(in start: UnsafeRawBufferPointer) -> String? {
        let bytes = Array(start.prefix(declarationWindow))
        guard bytes.starts(with: Array("<?xml".utf8)), bytes.count > 5, isSpace(bytes[5]) else { return nil }
        guard let close = firstIndex(of: Array("?>".utf8), in: bytes) else { return nil }
        let declaration = Array(bytes[..<close])
        guard let keyword = firstIndex(of: Array("encoding".utf8), in: declaration), isSpace(declaration[keyword - 1])
        else { return nil }
        var k = keyword + 8
        while k < declaration.count && isSpace(declaration[k]) { k += 1 }
        guard k < declaration.count, declaration[k] == UInt8(ascii: "=") else { return nil }
        k += 1
        while k < declaration.count && isSpace(declaration[k]) { k += 1 }
        guard k < declaration.count, declaration[k] == UInt8(ascii: "\"") || declaration[k] == UInt8(ascii: "'")
        else { return nil }
        let quote = declaration[k]
        guard let end = declaration[(k + 1)...].firstIndex(of: quote) else { return nil }
        return String(decoding: declaration[(k + 1)..<end], as: UTF8.self)
    }

    /// Bytes of UTF-8 that `count` bytes of Latin-1 need at most.
    static func capacity(for count: Int) -> Int { 2 * count }

    /// Writes `input` (Latin-1) as UTF-8 to `output` (at least `capacity(for: input.count)` bytes);
    /// returns how many bytes were written.
    static func transcode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>) -> Int {
        guard let source = input.baseAddress else { return 0 }
        let count = input.count
        var i = 0
        var o = 0
        while i < count {
            // Eight ASCII bytes at a time while they last.
            while i + 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 { break }
                UnsafeMutableRawPointer(output + o).storeBytes(of: word, as: UInt64.self)
                i += 8
                o += 8
            }
            guard i < count else { break }
            let byte = source.load(fromByteOffset: i, as: UInt8.self)
            if byte < 0x80 {
                output[o] = byte
                o += 1
            } else {
                o = TextEncoding.writeLatin1High(byte, to: output, at: o)
            }
            i += 1
        }
        return o
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for k in 0...(bytes.count - needle.count) where bytes[k..<(k + needle.count)].elementsEqual(needle) {
            return k
        }
        return nil
    }
}
