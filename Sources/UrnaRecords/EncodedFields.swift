/// The fields of one CSV row, kept as the row's original bytes plus where each field lies in them.
///
/// Nothing is decoded until a field is asked for, so a reader that uses ten columns of a
/// fifty-eight-column file never builds the other forty-eight strings. The same bytes are the
/// row's `rawBytes`, so a reject costs no second copy.
final class EncodedFields: Sendable {
    /// The row as read, without its line terminator.
    let bytes: [UInt8]
    /// Two entries per field: start offset (top bit set when the field had `""` escapes) and end offset.
    let spans: [UInt32]
    let encoding: TextEncoding
    /// The quote byte whose doubling is collapsed in fields flagged as escaped.
    let quote: UInt8

    static let escapedFlag: UInt32 = 0x8000_0000

    init(bytes: [UInt8], spans: [UInt32], encoding: TextEncoding, quote: UInt8) {
        self.bytes = bytes
        self.spans = spans
        self.encoding = encoding
        self.quote = quote
    }

    var count: Int { spans.count / 2 }

    /// The byte range of a field (quotes removed, escapes still doubled) and whether it has escapes.
    @inline(__always)
    func span(_ index: Int) -> (start: Int, end: Int, escaped: Bool) {
        let s = spans[2 * index]
        return (Int(s & ~Self.escapedFlag), Int(spans[2 * index + 1]), s & Self.escapedFlag != 0)
    }

    /// Decodes one field.
    func string(at index: Int) -> String {
        let (start, end, escaped) = span(index)
        return bytes.withUnsafeBufferPointer { all in
            let slice = UnsafeBufferPointer(rebasing: all[start..<end])
            return encoding.decode(slice, collapsingDoubled: escaped ? quote : nil)
        }
    }

    /// Calls `body` with the field's bytes as stored (quotes removed, `""` escapes not collapsed).
    func withFieldBytes<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let (start, end, _) = span(index)
        return try bytes.withUnsafeBufferPointer { all in try body(UnsafeBufferPointer(rebasing: all[start..<end])) }
    }
}
