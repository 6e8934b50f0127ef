/// The record being built by `XMLRecordAssembler` (a draft: its columns and their texts) and the table of
/// which columns a draft already has.
extension XMLRecordAssembler {
    /// One column of a draft: where its text lies in the draft's `text`, and its names.
    struct Column {
        /// Start and end of the text, both flagged when there is no value, as in `EncodedFields.spans`.
        var start: UInt32
        var end: UInt32
        var canonical: Int32
        /// The name the column had in the file; negative `-1 - c` for a column inherited as canonical `c`.
        var raw: Int32

        /// A column holding `text[start..<end]` of its draft (no value when empty).
        init(canonical: Int32, raw: Int32, start: Int, end: Int) {
            self.start = 0
            self.end = 0
            self.canonical = canonical
            self.raw = raw
            setText(start, end)
        }

        var hasValue: Bool { end & EncodedFields.absentFlag == 0 }

        /// Makes the column hold `text[start..<end]` of its draft (no value when empty).
        mutating func setText(_ start: Int, _ end: Int) {
            if end > start {
                self.start = UInt32(start)
                self.end = UInt32(end)
            } else {
                self.start = UInt32(start) | EncodedFields.escapedFlag
                self.end = UInt32(start) | EncodedFields.absentFlag
            }
        }
    }

    struct Draft {
        var kind: RecordKind
        var line: Int
        /// One entry per column: a single append per column, the spans and names built once at the end.
        var columns: [Column] = []
        /// The columns' texts (UTF-8) back to back; a column's text may be followed by the open column's.
        var text: [UInt8] = []
        var problem: String?

        var columnCount: Int { columns.count }

        /// The bytes of column `slot`; nil when it has no value.
        func value(_ slot: Int) -> ArraySlice<UInt8>? {
            let column = columns[slot]
            guard column.hasValue else { return nil }
            return text[Int(column.start)..<Int(column.end)]
        }

        /// Appends `bytes` to `text` as the value of a new column.
        mutating func appendColumn(canonical: Int32, raw: Int32, _ bytes: ArraySlice<UInt8>) {
            let start = text.count
            text.append(contentsOf: bytes)
            columns.append(Column(canonical: canonical, raw: raw, start: start, end: text.count))
        }

        /// Makes column `slot` hold `bytes`, appended to `text`.
        mutating func setValue(_ slot: Int, _ bytes: ArraySlice<UInt8>) {
            let start = text.count
            text.append(contentsOf: bytes)
            columns[slot].setText(start, text.count)
        }

        /// Two entries per column, as `EncodedFields.spans`.
        var spans: [UInt32] {
            [UInt32](unsafeUninitializedCapacity: 2 * columns.count) { out, count in
                for (k, column) in columns.enumerated() {
                    out[2 * k] = column.start
                    out[2 * k + 1] = column.end
                }
                count = 2 * columns.count
            }
        }

        var rawIds: [Int32] { columns.map(\.raw) }
        var canonicalIds: [Int32] { columns.map(\.canonical) }

        /// True when the columns' file names are `ids`, in order.
        func hasRawIds(_ ids: [Int32]) -> Bool {
            ids.count == columns.count && !zip(ids, columns).contains { $0 != $1.raw }
        }

        /// True when the columns' canonical names are `ids`, in order.
        func hasCanonicalIds(_ ids: [Int32]) -> Bool {
            ids.count == columns.count && !zip(ids, columns).contains { $0 != $1.canonical }
        }

        /// Drops text appended after `count` bytes (a column not kept).
        mutating func truncateText(to count: Int) {
            if text.count > count { text.removeSubrange(count...) }
        }
    }

    /// Which canonical columns the current draft of one nesting level already has, and where.
    struct Seen {
        var serial: UInt32 = 0
        /// Per canonical column: the serial of the draft that last had it (high half) and its position there.
        var entries: [UInt64] = []

        mutating func reset() {
            serial &+= 1
            if serial == 0 {
                entries = []
                serial = 1
            }
        }

        /// The column's position when the current draft has it (growing the table for new names).
        mutating func slot(of c: Int) -> Int? {
            if entries.count <= c { entries += repeatElement(0, count: c + 1 - entries.count) }
            let entry = entries[c]
            return UInt32(truncatingIfNeeded: entry >> 32) == serial ? Int(UInt32(truncatingIfNeeded: entry)) : nil
        }

        mutating func record(_ c: Int, at position: Int) {
            entries[c] = UInt64(serial) << 32 | UInt64(UInt32(position))
        }
    }
}
