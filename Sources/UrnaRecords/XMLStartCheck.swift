/// The first four bytes of an XML input, looked at before libxml2 sees any: UTF-16, UCS-4 and EBCDIC text
/// is refused (candidate dumps are UTF-8 or a one-byte encoding; anything else is almost surely not one).
///
/// The bytes are held back until four have arrived (or the input ended), then handed on in one piece.
struct XMLStartCheck {
    /// The first bytes, while fewer than four have been seen.
    private(set) var head: [UInt8] = []
    /// True once the first bytes were judged (accepted or refused).
    private(set) var isDecided = false
    /// Why the input is refused, if it is.
    private(set) var failure: (message: String, line: Int, column: Int, kind: XMLReadError.Kind)?

    /// Keeps bytes of `chunk` until four are known; returns how many it took.
    mutating func take(from chunk: UnsafeRawBufferPointer) -> Int {
        let n = min(4 - head.count, chunk.count)
        head += chunk.prefix(n)
        return n
    }

    /// Judges the bytes taken so far (at most four; fewer only at the end of a short input); false when refused.
    mutating func decide() -> Bool {
        isDecided = true
        let b = head + [0x20, 0x20, 0x20, 0x20]  // pad a tiny input with bytes no pattern uses
        switch (b[0], b[1], b[2], b[3]) {
        case (0xFE, 0xFF, _, _), (0xFF, 0xFE, _, _), (0x00, 0x3C, _, _), (0x3C, 0x00, _, _), (0x00, 0x00, _, _):
            failure = (
                "UTF-16 and UCS-4 XML are not accepted: re-encode the file as UTF-8", 1, 1, .unsupportedEncoding
            )
        case (0x4C, 0x6F, 0xA7, 0x94):
            failure = ("EBCDIC XML is not accepted: re-encode the file as UTF-8", 1, 1, .unsupportedEncoding)
        default:
            break
        }
        return failure == nil
    }
}
