import UrnaStore

/// Binds the fields of one COPY text line, as the server sends it, to an INSERT's parameters straight from the
/// line's bytes: text is unescaped into a scratch buffer and bound from there, whole numbers are parsed from
/// their digits, NULL is bound as NULL; dates, floats, bytea and anything the fast paths do not take go
/// through `PostgresColumnKind.sqliteValue` (which refuses what the store cannot hold, naming the column).
/// The values bound are the ones `CopyText.decodeLine` + `sqliteValue` give.
final class CopyLineBinder {
    private let kinds: [PostgresColumnKind]
    private let labels: [String]
    private let table: String
    private var scratch: UnsafeMutablePointer<UInt8>
    private var scratchCapacity: Int
    /// Per field: start and end in `scratch`; a start of -1 marks NULL.
    private let bounds: UnsafeMutablePointer<Int>

    init(_ t: PostgresTable) {
        kinds = t.columns.map(\.kind)
        labels = t.columns.map { "\(t.name).\($0.name)" }
        table = t.name
        scratchCapacity = 1 << 12
        scratch = .allocate(capacity: scratchCapacity)
        bounds = .allocate(capacity: 2 * max(t.columns.count, 1))
    }

    deinit {
        scratch.deallocate()
        bounds.deallocate()
    }

    /// Binds parameters 1...n of `insert` from one line (the statement must have been reset).
    func bind(_ line: UnsafeRawBufferPointer, to insert: Statement) throws {
        var end = line.count
        if end > 0, line[end - 1] == 10 { end -= 1 }
        if scratchCapacity < end {  // unescaped, a line never grows
            scratch.deallocate()
            scratchCapacity = max(end, scratchCapacity * 2)
            scratch = .allocate(capacity: scratchCapacity)
        }
        let out = scratch
        let columns = kinds.count
        var n = 0
        var fields = 0
        var fieldStart = 0
        var isNull = false
        var i = 0
        while true {
            if i == end || line[i] == 9 {
                if fields < columns {
                    bounds[2 * fields] = isNull ? -1 : fieldStart
                    bounds[2 * fields + 1] = n
                }
                fields += 1
                fieldStart = n
                isNull = false
                if i == end { break }
            } else if line[i] == 92, i + 1 < end {
                i += 1
                switch line[i] {
                case 78: isNull = true
                case 116: out[n] = 9
                case 110: out[n] = 10
                case 114: out[n] = 13
                case 98: out[n] = 8
                case 102: out[n] = 12
                case 118: out[n] = 11
                default: out[n] = line[i]
                }
                if line[i] != 78 { n += 1 }
            } else {
                out[n] = line[i]
                n += 1
            }
            i += 1
        }
        guard fields == columns else {
            throw PostgresTransferError.badValue(
                column: table, value: "\(fields) fields", expected: "\(columns) fields")
        }
        for f in 0..<columns {
            let start = bounds[2 * f]
            let index = Int32(f + 1)
            if start < 0 {
                insert.bindNull(at: index)
                continue
            }
            let bytes = UnsafeRawBufferPointer(start: out + start, count: bounds[2 * f + 1] - start)
            switch kinds[f] {
            case .integer, .boolean, .numeric:
                if let v = Self.wholeNumber(bytes) {
                    insert.bindInt(v, at: index)
                    continue
                }
            case .text, .uuid, .json:
                try insert.bindText(bytes: bytes, at: index)
                continue
            default: break
            }
            try insert.bind(kinds[f].sqliteValue(String(decoding: bytes, as: UTF8.self), column: labels[f]), at: index)
        }
    }

    /// An optional '-' and decimal digits that fit in an Int64; nil for anything else (the slow path decides).
    static func wholeNumber(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var i = 0
        let negative = bytes.count > 0 && bytes[0] == 45
        if negative { i = 1 }
        guard i < bytes.count else { return nil }
        var value: Int64 = 0
        while i < bytes.count {
            let d = bytes[i] &- 48
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            // Accumulated as a negative number, so Int64.min fits.
            let (s, o2) = m.subtractingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            value = s
            i += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }
}
