import UrnaStore

/// Writes the rows of one stored table in COPY's binary format straight from SQLite's values, for the tables
/// whose every column is text, a whole number, exact money, a boolean or a date: the server then stores the
/// values without parsing them (its text input of dates is the costly part of a refill).
///
/// It only ever writes a value whose binary form is exactly what the server would store from
/// `CopyRowEncoder`'s text: a value it cannot vouch for (another storage class than its column's, a whole
/// number out of a smaller column's range, a date not in the store's own `YYYY-MM-DDTHH:MM:SS.sssZ`) makes
/// `encodeRow` throw `Refusal`, and the caller copies the table again as text, where the server gives its own
/// verdict.
struct CopyBinaryEncoder {
    /// A value whose binary form is not certain to equal the server's reading of its text.
    struct Refusal: Error {
        let column: String
    }

    private enum Plan {
        case text
        case int2
        case int4
        case int8
        case numeric(scale: Int)
        case boolean
        case timestamp
    }

    private let plans: [Plan]
    private let labels: [String]

    /// COPY's binary header: the signature, no flags, no header extension.
    static let header: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 13, 10, 0] + [0, 0, 0, 0] + [0, 0, 0, 0]
    /// The end of the data: a field count of -1.
    static let trailer: [UInt8] = [0xFF, 0xFF]

    /// nil when a column has a kind this encoder does not write (floats, bytes, UUIDs, embedded objects).
    init?(_ table: PostgresTable) {
        var plans: [Plan] = []
        for column in table.columns {
            switch column.kind {
            case .text: plans.append(.text)
            case .integer("smallint"): plans.append(.int2)
            case .integer("integer"): plans.append(.int4)
            case .integer("bigint"): plans.append(.int8)
            case .numeric(let scale) where scale >= 0 && scale <= 1000: plans.append(.numeric(scale: scale))
            case .boolean: plans.append(.boolean)
            case .timestamp: plans.append(.timestamp)
            default: return nil
            }
        }
        guard plans.count < Int(Int16.max) else { return nil }
        self.plans = plans
        labels = table.columns.map { "\(table.name).\($0.name)" }
    }

    /// Appends the current row of `select` (its columns in the table's order) as one binary tuple.
    func encodeRow(of select: Statement, into out: inout CopyBuffer) throws {
        out.appendBigEndian(Int16(plans.count))
        for i in 0..<plans.count {
            let storage = select.storageClass(at: i)
            if storage == 5 {
                out.appendBigEndian(Int32(-1))
                continue
            }
            switch (plans[i], storage) {
            case (.text, 3):
                select.withText(at: i) { bytes in
                    out.appendBigEndian(Int32(bytes.count))
                    out.append(contentsOf: bytes)
                }
            case (.int8, 1):
                out.appendBigEndian(Int32(8))
                out.appendBigEndian(select.int(at: i))
            case (.int4, 1):
                guard let v = Int32(exactly: select.int(at: i)) else { throw Refusal(column: labels[i]) }
                out.appendBigEndian(Int32(4))
                out.appendBigEndian(v)
            case (.int2, 1):
                guard let v = Int16(exactly: select.int(at: i)) else { throw Refusal(column: labels[i]) }
                out.appendBigEndian(Int32(2))
                out.appendBigEndian(v)
            case (.numeric(let scale), 1):
                Self.appendNumeric(select.int(at: i), scale: scale, into: &out)
            case (.boolean, 1):
                out.appendBigEndian(Int32(1))
                out.append(select.int(at: i) != 0 ? 1 : 0)
            case (.timestamp, 3):
                let micros = select.withText(at: i) { Self.microseconds(isoUTC: $0) }
                guard let micros else { throw Refusal(column: labels[i]) }
                out.appendBigEndian(Int32(8))
                out.appendBigEndian(micros)
            default:
                throw Refusal(column: labels[i])
            }
        }
    }

    /// `value / 10^scale` as PostgreSQL's binary numeric: base-10000 digits aligned on the decimal point,
    /// the weight of the first, the sign and the display scale (the column's, as the server's own input gives).
    static func appendNumeric(_ value: Int64, scale: Int, into out: inout CopyBuffer) {
        // Decimal digits of the magnitude, most significant first, with the point `scale` digits from the right.
        var decimal: [UInt8] = []
        var m = value.magnitude
        repeat {
            decimal.append(UInt8(m % 10))
            m /= 10
        } while m > 0
        decimal.reverse()
        if decimal.count < scale + 1 {
            decimal.insert(contentsOf: repeatElement(0, count: scale + 1 - decimal.count), at: 0)
        }
        let integerDigits = decimal.count - scale
        // Pad the integer part on the left and the fraction on the right to whole groups of four.
        let leftPad = (4 - integerDigits % 4) % 4
        let rightPad = (4 - scale % 4) % 4
        let padded = [UInt8](repeating: 0, count: leftPad) + decimal + [UInt8](repeating: 0, count: rightPad)
        var groups: [Int16] = []
        groups.reserveCapacity(padded.count / 4)
        var i = 0
        while i < padded.count {
            groups.append(
                Int16(padded[i]) * 1000 + Int16(padded[i + 1]) * 100 + Int16(padded[i + 2]) * 10 + Int16(padded[i + 3]))
            i += 4
        }
        var weight = (integerDigits + leftPad) / 4 - 1
        // Leading and trailing zero groups carry nothing (the server strips them too).
        var first = 0
        while first < groups.count && groups[first] == 0 {
            first += 1
            weight -= 1
        }
        var last = groups.count
        while last > first && groups[last - 1] == 0 { last -= 1 }
        let digits = groups[first..<last]
        if digits.isEmpty { weight = 0 }
        out.appendBigEndian(Int32(8 + 2 * digits.count))
        out.appendBigEndian(Int16(digits.count))
        out.appendBigEndian(Int16(weight))
        out.appendBigEndian(UInt16(value < 0 && !digits.isEmpty ? 0x4000 : 0))
        out.appendBigEndian(Int16(scale))
        for d in digits { out.appendBigEndian(d) }
    }

    /// Microseconds since 2000-01-01 00:00:00 UTC (PostgreSQL's epoch) of exactly `YYYY-MM-DDTHH:MM:SS.sssZ`
    /// with a real calendar date and time (years 1 to 9999); nil for any other text.
    static func microseconds(isoUTC t: UnsafeRawBufferPointer) -> Int64? {
        guard t.count == 24, t[4] == 45, t[7] == 45, t[10] == 84, t[13] == 58, t[16] == 58, t[19] == 46, t[23] == 90
        else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            var n = 0
            for k in from..<(from + count) {
                let c = t[k]
                guard c >= 48 && c <= 57 else { return nil }
                n = n * 10 + Int(c - 48)
            }
            return n
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2), let millis = number(20, 3)
        else { return nil }
        guard year >= 1, (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day >= 1 && day <= monthDays[month - 1] else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day) - daysFromCivil(year: 2000, month: 1, day: 1)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return seconds * 1_000_000 + Int64(millis) * 1000
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the usual era-based count).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
