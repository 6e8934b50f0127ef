/// Amounts of money in reais, kept as an exact count of cents: parsed by bytes, never through a
/// binary floating-point number, and formatted the Brazilian way.
///
/// Asset values use a decimal comma (`"3669,04"`), spending limits are whole reais up to 2020
/// (`"1000000"`) and use a decimal point from 2022 (`"1270629.01"`); all three parse here.
///
/// ```swift
/// Reais.parseCents("3669,04")      // .cents(366904)
/// Reais.parseCents("1270629.01")   // .cents(127062901)
/// Reais.format(cents: 123456)      // "R$ 1.234,56"
/// ```
public enum Reais {
    /// Result of reading a money field.
    public enum Parsed: Equatable, Sendable {
        /// A null marker (including the numeric `-1`, `-3`, `-4`) or no value.
        case null
        /// The amount in cents.
        case cents(Int64)
        /// Not an amount.
        case invalid
    }

    /// Reads an amount: digits with at most one decimal separator (`,` or `.`) followed by one or two
    /// digits. Thousands separators are accepted when both separators appear (`1.234,56`, `1,234.56`).
    public static func parseCents(_ raw: String?) -> Parsed {
        guard let text = TSEField.text(raw) else { return .null }
        if TSEField.isNumericNullMarker(text) { return .null }
        var t = text
        return t.withUTF8 { parse($0) }.map(Parsed.cents) ?? .invalid
    }

    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        var negative = false
        if i < b.count && (b[i] == 0x2D || b[i] == 0x2B) {
            negative = b[i] == 0x2D
            i += 1
        }
        // Which byte is the decimal mark: the last separator, unless it repeats (then it groups thousands).
        var lastSeparator: UInt8 = 0
        var lastSeparatorCount = 0
        for k in i..<b.count where b[k] == 0x2C || b[k] == 0x2E {
            if b[k] != lastSeparator { lastSeparatorCount = 0 }
            lastSeparator = b[k]
            lastSeparatorCount += 1
        }
        let decimalMark: UInt8? = lastSeparatorCount == 1 ? lastSeparator : nil
        let groupMark: UInt8? =
            decimalMark == nil ? (lastSeparator == 0 ? nil : lastSeparator) : (decimalMark == 0x2C ? 0x2E : 0x2C)
        var units: Int64 = 0
        var digitsInGroup = 0
        var sawDigit = false
        var sawGroup = false
        while i < b.count {
            let c = b[i]
            if c &- 0x30 <= 9 {
                let (m, o1) = units.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(c &- 0x30))
                if o1 || o2 { return nil }
                units = a
                digitsInGroup += 1
                sawDigit = true
            } else if c == groupMark {
                if !sawDigit || (sawGroup && digitsInGroup != 3) || (!sawGroup && digitsInGroup > 3) { return nil }
                sawGroup = true
                digitsInGroup = 0
            } else if c == decimalMark {
                break
            } else {
                return nil
            }
            i += 1
        }
        guard sawDigit || (i < b.count && b[i] == decimalMark) else { return nil }
        if sawGroup && digitsInGroup != 3 { return nil }
        var cents: Int64 = 0
        if i < b.count {
            // At the decimal mark: one or two digits follow, nothing else ("1.234" with a lone mark and
            // three digits could be a thousands group, so it is refused rather than guessed).
            i += 1
            let fraction = b.count - i
            guard fraction == 1 || fraction == 2 else { return nil }
            for k in i..<b.count {
                let d = b[k] &- 0x30
                guard d <= 9 else { return nil }
                cents = cents * 10 + Int64(d)
            }
            if fraction == 1 { cents *= 10 }
        }
        let (scaled, o1) = units.multipliedReportingOverflow(by: 100)
        let (total, o2) = scaled.addingReportingOverflow(cents)
        if o1 || o2 { return nil }
        return negative ? -total : total
    }

    /// `R$ 1.234,56`: thousands grouped with `.`, two decimals after `,`; negative amounts read `-R$ 5,00`.
    public static func format(cents: Int64) -> String {
        let magnitude = cents.magnitude
        let whole = String(magnitude / 100)
        var grouped = ""
        for (n, ch) in whole.enumerated() {
            if n > 0 && (whole.count - n) % 3 == 0 { grouped.append(".") }
            grouped.append(ch)
        }
        let fraction = magnitude % 100
        return (cents < 0 ? "-" : "") + "R$ " + grouped + "," + (fraction < 10 ? "0" : "") + String(fraction)
    }
}
