/// How TSE writes "no value", and the text clean-up every field gets, done on bytes.
///
/// Text is trimmed and inner runs of spaces collapse to one; then `#NULO#`, `#NULO`, `#NE#`, `#NE`,
/// the empty string and `NÃO DIVULGÁVEL` (any case) mean nil. Numeric codes also treat `-1` (blank),
/// `-3` (not collected that year) and `-4` (withheld) as nil.
///
/// ```swift
/// TSEField.text("  JOÃO   DA SILVA ")  // "JOÃO DA SILVA"
/// TSEField.text("#NULO#")              // nil
/// TSEField.code("-3")                  // nil
/// ```
public enum TSEField {
    /// Result of reading an integer field.
    public enum IntegerValue: Equatable, Sendable {
        /// A null marker (or no value at all).
        case null
        /// A whole number.
        case value(Int64)
        /// Something that is not an integer.
        case invalid
    }

    /// The cleaned text, or nil for a null marker.
    public static func text(_ raw: String?) -> String? {
        guard let raw else { return nil }
        let cleaned = clean(raw)
        return isTextNullMarker(cleaned) ? nil : cleaned
    }

    /// Text of a column that holds a numeric code or identifier (`NR_PROCESSO`, `SG_UE`): numeric null
    /// markers count too, but the text is kept as is (leading zeros matter).
    public static func code(_ raw: String?) -> String? {
        guard let text = text(raw) else { return nil }
        return isNumericNullMarker(text) ? nil : text
    }

    /// An integer column: `-1`, `-3`, `-4` and the text markers are `.null`.
    public static func integer(_ raw: String?) -> IntegerValue {
        guard let text = text(raw) else { return .null }
        if isNumericNullMarker(text) { return .null }
        guard let v = parseInteger(text) else { return .invalid }
        return .value(v)
    }

    /// Trims spaces, tabs and non-breaking spaces (U+00A0) at both ends and collapses inner runs of them
    /// to one space.
    ///
    /// Returns the same string (no copy) when there is nothing to change, which is most fields.
    public static func clean(_ raw: String) -> String {
        var raw = raw
        return raw.withUTF8 { bytes -> String? in
            let n = bytes.count
            if n == 0 { return nil }
            if !isBlank(bytes[0]) && !isBlank(bytes[n - 1]) && bytes[0] != 0xC2 {
                var previousBlank = false
                var needsWork = false
                for b in bytes {
                    let blank = isBlank(b)
                    // 0xA0 ends a non-breaking space (C2 A0) and a few letters (à is C3 A0): the slow path tells.
                    if (blank && (previousBlank || b == 0x09)) || b == 0xA0 {
                        needsWork = true
                        break
                    }
                    previousBlank = blank
                }
                if !needsWork { return nil }
            }
            var out: [UInt8] = []
            out.reserveCapacity(n)
            var pendingBlank = false
            var i = 0
            while i < n {
                let b = bytes[i]
                if isBlank(b) || (b == 0xC2 && i + 1 < n && bytes[i + 1] == 0xA0) {
                    pendingBlank = !out.isEmpty
                    i += b == 0xC2 ? 2 : 1
                    continue
                }
                if pendingBlank {
                    out.append(0x20)
                    pendingBlank = false
                }
                out.append(b)
                i += 1
            }
            return String(decoding: out, as: UTF8.self)
        } ?? raw
    }

    /// True for the text null markers (on already cleaned text).
    static func isTextNullMarker(_ s: String) -> Bool {
        let u = s.utf8
        switch u.count {
        case 0: return true
        case 3, 4, 5, 6:
            return s == "#NE" || s == "#NE#" || s == "#NULO" || s == "#NULO#"
        case 16:
            // "NÃO DIVULGÁVEL" in UTF-8; any letter case.
            return s.uppercased() == "NÃO DIVULGÁVEL"
        default: return false
        }
    }

    /// True for `-1`, `-3` and `-4`.
    static func isNumericNullMarker(_ s: String) -> Bool {
        s == "-1" || s == "-3" || s == "-4"
    }

    /// Digits with an optional leading minus sign; nil on anything else or on overflow.
    static func parseInteger(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { bytes -> Int64? in
            var i = 0
            var negative = false
            if i < bytes.count && bytes[i] == 0x2D {
                negative = true
                i += 1
            }
            guard i < bytes.count else { return nil }
            var value: Int64 = 0
            while i < bytes.count {
                let d = bytes[i] &- 0x30
                guard d <= 9 else { return nil }
                let (m, o1) = value.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(Int64(d))
                if o1 || o2 { return nil }
                value = a
                i += 1
            }
            return negative ? -value : value
        }
    }

    /// True for a number in a spreadsheet's scientific notation (`1,00016E+10`, `4.34801e+10`): what a spreadsheet
    /// saves for a long number it shows in a narrow column. Its last digits are gone, so it can be no TSE number.
    static func isScientific(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { b in
            guard let e = b.firstIndex(where: { $0 | 0x20 == 0x65 }), e > 0, e + 1 < b.count else { return false }
            var separators = 0
            for c in b[..<e] where c &- 0x30 > 9 {
                guard c == 0x2C || c == 0x2E else { return false }
                separators += 1
            }
            var exponent = b[(e + 1)...]
            if exponent.first == 0x2B || exponent.first == 0x2D { exponent = exponent.dropFirst() }
            return separators <= 1 && !exponent.isEmpty && exponent.allSatisfy { $0 &- 0x30 <= 9 }
        }
    }

    /// The whole number a spreadsheet wrote with thousands separators (`10.001.619.992`, `1.022`, `1,234,567`):
    /// groups of three digits after a first group of 1 to 3 not starting with 0, all separated by one same `.`
    /// (pt-BR's grouping) or, with two groups or more, `,` (an English locale's); nil for any other text. No TSE
    /// whole number is written so. A decimal is not read, since a whole-number column cannot hold one: `0.123` and
    /// `0,500` (a first group of 0 is no grouping) and `1,022` (pt-BR's 1.022: one `,` group is its decimal mark)
    /// are nil, and so nulled with a warning.
    static func groupedInteger(_ s: String) -> Int64? {
        var s = s
        return s.withUTF8 { b -> Int64? in
            guard let first = b.firstIndex(where: { $0 == 0x2E || $0 == 0x2C }), first >= 1, first <= 3,
                b[0] != UInt8(ascii: "0")
            else { return nil }
            let separator = b[first]
            var digits: [UInt8] = []
            var run = 0
            var groups = 0
            for (k, c) in b.enumerated() {
                if c == separator {
                    guard k == first || run == 3 else { return nil }
                    run = 0
                    groups += 1
                } else {
                    guard c &- 0x30 <= 9 else { return nil }
                    digits.append(c)
                    run += 1
                }
            }
            guard run == 3, separator == UInt8(ascii: ".") || groups >= 2 else { return nil }
            return parseInteger(String(decoding: digits, as: UTF8.self))
        }
    }

    @inline(__always) static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
}
