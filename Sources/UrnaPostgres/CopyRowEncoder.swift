import UrnaStore

/// Writes the rows of one stored table in COPY's text format straight from SQLite's column bytes: text is
/// copied (escaped only where it holds a tab, newline, CR or backslash), whole numbers and exact money are
/// printed digit by digit, NULL is `\N`, and only the rare cases (floats, blobs, a value of another storage
/// class than its column's) go through `PostgresColumnKind.postgresText`, which also refuses a value that
/// cannot be its column's type, naming the column. The output is byte for byte what that conversion gives.
struct CopyRowEncoder {
    private enum Plan {
        case text
        case integer
        case numeric(scale: Int)
        case boolean
        case converted
    }

    private let plans: [Plan]
    private let kinds: [PostgresColumnKind]
    /// `Table.column`, for messages (made once, not per value).
    private let labels: [String]

    init(_ table: PostgresTable) {
        kinds = table.columns.map(\.kind)
        labels = table.columns.map { "\(table.name).\($0.name)" }
        plans = table.columns.map { column in
            switch column.kind {
            case .text, .json, .uuid, .timestamp: .text
            case .integer: .integer
            case .numeric(let scale): .numeric(scale: scale)
            case .boolean: .boolean
            case .real, .bytea: .converted
            }
        }
    }

    /// Appends the current row of `select` (its columns in the table's order) as one COPY line.
    func encodeRow(of select: Statement, into out: inout CopyBuffer) throws {
        for i in 0..<plans.count {
            if i > 0 { out.append(9) }
            let storage = select.storageClass(at: i)
            if storage == 5 {
                out.append(92)
                out.append(78)
                continue
            }
            switch (plans[i], storage) {
            case (.text, 3):
                select.withText(at: i) { out.appendEscaped($0) }
            case (.integer, 1):
                out.appendDecimal(select.int(at: i), scale: 0)
            case (.numeric(let scale), 1):
                out.appendDecimal(select.int(at: i), scale: scale)
            case (.boolean, 1):
                out.append(select.int(at: i) != 0 ? 116 : 102)
            default:
                if var text = try kinds[i].postgresText(select.value(at: i), column: labels[i]) {
                    text.withUTF8 { out.appendEscaped(UnsafeRawBufferPointer($0)) }
                } else {
                    out.append(92)
                    out.append(78)
                }
            }
        }
        out.append(10)
    }
}

/// A growable byte buffer for COPY data, written through a raw pointer: appending a byte costs no
/// uniqueness or exclusivity check at run time (as a `[UInt8]` held by a class does).
struct CopyBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far, valid only inside `body`.
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    mutating func removeAll() { count = 0 }

    @inline(__always) private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(capacity * 2, count + extra)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = grown
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Text field bytes with COPY's escapes for backslash, tab, newline and CR.
    @inline(__always) mutating func appendEscaped(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count * 2)
        var n = count
        for b in bytes {
            if b > 13 && b != 92 {
                base[n] = b
                n += 1
                continue
            }
            switch b {
            case 92:
                base[n] = 92
                base[n + 1] = 92
                n += 2
            case 9:
                base[n] = 92
                base[n + 1] = 116
                n += 2
            case 10:
                base[n] = 92
                base[n + 1] = 110
                n += 2
            case 13:
                base[n] = 92
                base[n + 1] = 114
                n += 2
            default:
                base[n] = b
                n += 1
            }
        }
        count = n
    }

    /// `value / 10^scale` in decimal, as `PostgresColumnKind.decimalText` writes it (`-0.05`, `123.45`, `7`).
    @inline(__always) mutating func appendDecimal(_ value: Int64, scale: Int) {
        // 20 digits at most, plus the sign, the point and the leading zeros a small fraction needs.
        reserve(23 + scale)
        if value < 0 {
            base[count] = 45
            count += 1
        }
        var digitCount = 0
        var v = value.magnitude
        repeat {
            digitCount += 1
            v /= 10
        } while v > 0
        // At least scale + 1 digits, so a fraction gets its leading "0.".
        let width = max(digitCount, scale + 1)
        let total = width + (scale > 0 ? 1 : 0)
        var position = count + total - 1  // written from the right
        v = value.magnitude
        for written in 0..<width {
            if scale > 0 && written == scale {
                base[position] = 46
                position -= 1
            }
            base[position] = UInt8(48 + v % 10)
            v /= 10
            position -= 1
        }
        count += total
    }
}
