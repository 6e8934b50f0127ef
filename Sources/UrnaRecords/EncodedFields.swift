/// The fields of one record, kept as bytes plus where each field lies in them: for a CSV row, the row's
/// original bytes; for an XML record, its columns' UTF-8 texts back to back.
///
/// Nothing is decoded until a field is asked for, so a reader that uses ten columns of a
/// fifty-eight-column file never builds the other forty-eight strings. A CSV row's bytes are also its
/// `rawBytes`, so a reject costs no second copy.
final class EncodedFields: Sendable {
    /// The row as read, without its line terminator (CSV), or the columns' texts (XML).
    let bytes: [UInt8]
    /// Two entries per field: start offset (top bit set when the field had `""` escapes, or has no value)
    /// and end offset (top bit set when the field has no value at all: an XML column without text).
    let spans: [UInt32]
    let encoding: TextEncoding
    /// The quote byte whose doubling is collapsed in fields flagged as escaped.
    let quote: UInt8

    static let escapedFlag: UInt32 = 0x8000_0000
    /// Set on a field's end offset when the field has no value (its start offset has `escapedFlag` too,
    /// so `EncodedRowView.field` sends readers to `Record.value(at:)`, which says nil).
    static let absentFlag: UInt32 = 0x8000_0000
    /// Offsets must stay below this (the top bit is a flag).
    static let maximumOffset = 0x7FFF_FFFF

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
        return (Int(s & ~Self.escapedFlag), Int(spans[2 * index + 1] & ~Self.absentFlag), s & Self.escapedFlag != 0)
    }

    /// True when the field has no value at all (never for a CSV field, which is at worst empty).
    @inline(__always)
    func isAbsent(_ index: Int) -> Bool { spans[2 * index + 1] & Self.absentFlag != 0 }

    /// Decodes one field (an absent one as empty: check `isAbsent` first where it matters).
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
