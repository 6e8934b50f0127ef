import UrnaRecords

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// The encoding of the file `bytes` came from.
    private var encoding: TextEncoding = .utf8
    /// Whether the fields at `positions` (-1: the layout lacks the column) of `r`, and `extra`, are those
    /// of the remembered value.
    func matches(_ r: FieldReader, _ positions: [Int], extra: String? = nil) -> Bool {
        guard value != nil else { return false }
        if let row = r.row, row.encoding == encoding, let bytes, sameBytes(row, bytes, positions, extra: extra) {
            return true
        }
        return rawStrings(r, positions, extra: extra) == strings
    }

    /// Forgets the remembered value: the next `matches` is false.
    func forget() { value = nil }

    /// Remembers `value` for the fields at `positions` of `r` (and `extra`).
    func store(_ value: Value, _ r: FieldReader, _ positions: [Int], extra: String? = nil) {
        self.value = value
        strings = rawStrings(r, positions, extra: extra)
        bytes = r.row.flatMap { Self.key($0, positions, extra: extra) }
        if let row = r.row { encoding = row.encoding }
    }

    /// The fields as `FieldReader.raw` reads them, `extra` first.
    private func rawStrings(_ r: FieldReader, _ positions: [Int], extra: String?) -> [String?] {
        var out: [String?] = []
        out.reserveCapacity(positions.count + 1)
        if let extra { out.append(extra) }
        for p in positions { out.append(p >= 0 ? r.raw(at: p) : nil) }
        return out
    }

    /// The byte key of a row's fields: each field's length (4 bytes, all ones when the layout lacks the
    /// column) and bytes; nil when some present field is not lent as bytes.
    private static func key(_ row: EncodedRowView, _ positions: [Int], extra: String?) -> [UInt8]? {
        var out: [UInt8] = []
        func append(_ field: UnsafeBufferPointer<UInt8>) {
            appendLength(UInt32(truncatingIfNeeded: field.count))
            out.append(contentsOf: field)
        }
        func appendLength(_ n: UInt32) {
            withUnsafeBytes(of: n.littleEndian) { out.append(contentsOf: $0) }
        }
        if var extra { extra.withUTF8 { append($0) } }
        for p in positions {
            if p < 0 {
                appendLength(UInt32.max)
                continue
            }
            guard let field = row.field(p) else { return nil }
            append(field)
        }
        return out
    }

    /// Whether `key` (see `key(_:_:extra:)`) is the key of `row`'s fields, compared in place.
    private func sameBytes(_ row: EncodedRowView, _ key: [UInt8], _ positions: [Int], extra: String?) -> Bool {
        key.withUnsafeBufferPointer { k in
            var at = 0
            func same(_ field: UnsafeBufferPointer<UInt8>?, absent: Bool) -> Bool {
                guard at + 4 <= k.count else { return false }
                let n = Int(UnsafeRawPointer(k.baseAddress! + at).loadUnaligned(as: UInt32.self).littleEndian)
                at += 4
                if absent { return n == Int(UInt32.max) }
                guard let field, n == field.count, at + n <= k.count else { return false }
                defer { at += n }
                return n == 0 || memcmp(k.baseAddress! + at, field.baseAddress!, n) == 0
            }
            if var extra {
                guard extra.withUTF8({ same($0, absent: false) }) else { return false }
            }
            for p in positions {
                if p < 0 {
                    guard same(nil, absent: true) else { return false }
                } else {
                    guard let field = row.field(p), same(field, absent: false) else { return false }
                }
            }
            return at == k.count
        }
    }
}
