import UrnaRecords

/// Remembers one value computed from some raw fields of a record, and tells whether the next record's
/// fields are the same (so the value can be reused), mostly without decoding them.
///
/// The fields are compared as the file's bytes first (same bytes in the same encoding are the same texts);
/// only when the bytes differ, or a field is not lent as bytes (`""` escapes, records built from strings),
/// are they decoded and compared as strings, which is exactly the comparison this memo replaces (String's
/// `==`, canonical equivalence included). Rows of one election come together, so the string path runs
/// about once per election while the byte path costs a copy and a `memcmp` of some hundred bytes.
final class RawFieldsMemo<Value> {
    /// The remembered value, nil until `store` is called.
    private(set) var value: Value?
    /// The raw fields the value came from, as strings (nil: the layout lacks the column or it has no value).
    private var strings: [String?] = []
    /// The same fields as the file's bytes, each prefixed by its length (nil when some field was not lent).
    private var bytes: [UInt8]?
    private var encoding: TextEncoding = .utf8
    /// The key of the record being looked at (filled by `matches`, kept by `store`).
    private var scratch: [UInt8] = []
    private var scratchValid = false

    /// Whether the fields at `positions` (-1: the layout lacks the column) of `r`, and `extra`, are those
    /// of the remembered value; prepares `store` for this record either way.
    func matches(_ r: FieldReader, _ positions: [Int], extra: String? = nil) -> Bool {
        scratchValid = fillScratch(r, positions, extra: extra)
        guard value != nil else { return false }
        if scratchValid, let bytes, encoding == r.row?.encoding, bytes == scratch { return true }
        return rawStrings(r, positions, extra: extra) == strings
    }

    /// Remembers `value` for the fields last passed to `matches`.
    func store(_ value: Value, _ r: FieldReader, _ positions: [Int], extra: String? = nil) {
        self.value = value
        strings = rawStrings(r, positions, extra: extra)
        if scratchValid, let row = r.row {
            bytes = scratch
            encoding = row.encoding
        } else {
            bytes = nil
        }
    }

    /// The fields as `FieldReader.raw` reads them, `extra` first.
    private func rawStrings(_ r: FieldReader, _ positions: [Int], extra: String?) -> [String?] {
        var out: [String?] = []
        out.reserveCapacity(positions.count + 1)
        if let extra { out.append(extra) }
        for p in positions { out.append(p >= 0 ? r.raw(at: p) : nil) }
        return out
    }

    /// The byte key of the record's fields; false when some present field is not lent as bytes.
    private func fillScratch(_ r: FieldReader, _ positions: [Int], extra: String?) -> Bool {
        guard let row = r.row else { return false }
        scratch.removeAll(keepingCapacity: true)
        if var extra {
            extra.withUTF8 { appendField($0) }
        }
        for p in positions {
            if p < 0 {
                appendLength(UInt32.max)
                continue
            }
            guard let field = row.field(p) else { return false }
            appendField(field)
        }
        return true
    }

    @inline(__always) private func appendField(_ field: UnsafeBufferPointer<UInt8>) {
        appendLength(UInt32(truncatingIfNeeded: field.count))
        scratch.append(contentsOf: field)
    }

    @inline(__always) private func appendLength(_ n: UInt32) {
        scratch.append(UInt8(truncatingIfNeeded: n))
        scratch.append(UInt8(truncatingIfNeeded: n >> 8))
        scratch.append(UInt8(truncatingIfNeeded: n >> 16))
        scratch.append(UInt8(truncatingIfNeeded: n >> 24))
    }
}
