import Foundation
import UrnaStore

/// Converts stored (SQLite) values between property types, exactly where possible.
enum StoredValueConverter {
    /// The stored value of `to` that means the same as `v` stored as `from`; `exact` is false when it
    /// had to round, and the result is nil when no sensible value exists.
    static func convert(_ v: SQLValue, from: PropertyType, to: PropertyType) -> (value: SQLValue, exact: Bool)? {
        if v.isNull { return (.null, true) }
        if from == to { return (v, true) }
        switch to {
        case .bool, .int8, .int16, .int32, .int64:
            guard let (i, exact) = integer(v, from: from) else { return nil }
            guard let range = to.integerRange, range.contains(i) else { return nil }
            return (.integer(i), exact)
        case .float, .double:
            guard let d = double(v, from: from) else { return nil }
            if to == .float {
                let f = Double(Float(d))
                return (.real(f), f == d)
            }
            if case .integer(let i) = v, from.isInteger, !isDecimal(from) { return (.real(d), Int64(exactly: d) == i) }
            return (.real(d), !isDecimal(from))
        case .decimal(let scale):
            if case .real(let r) = v {
                if let units = exactUnits(r, scale: scale) { return (.integer(units), true) }
                if let units = inexactUnits(r, scale: scale) { return (.integer(units), false) }
                if let (units, exact) = shortestUnits(r, scale: scale) { return (.integer(units), exact) }
            }
            guard let d = decimal(v, from: from) else { return nil }
            return scaled(d, scale: scale)
        case .string:
            switch (v, from) {
            case (.integer(let i), .bool): return (.text(i != 0 ? "true" : "false"), true)
            case (.integer(let i), .decimal(let s)): return (.text("\(scaledDecimal(i, scale: s))"), true)
            case (.integer(let i), _): return (.text(String(i)), true)
            case (.real(let d), _): return (.text(String(d)), true)
            case (.text(let s), _): return (.text(s), true)
            case (.blob(let b), _): return (.text(String(decoding: b, as: UTF8.self)), true)
            case (.null, _): return (.null, true)
            }
        case .date:
            switch v {
            case .text(let s): return ISODate.parse(s).map { (.text(ISODate.format($0)), true) }
            case .integer(let i): return (.text(ISODate.format(Date(timeIntervalSince1970: Double(i)))), true)
            case .real(let d): return (.text(ISODate.format(Date(timeIntervalSince1970: d))), true)
            default: return nil
            }
        case .uuid:
            if case .text(let s) = v, let u = UUID(uuidString: s) { return (.text(u.uuidString.lowercased()), true) }
            return nil
        case .data:
            if case .text(let s) = v { return (.blob([UInt8](s.utf8)), true) }
            return nil
        case .link:
            if case .link = from { return (v, true) }
            return nil
        case .embedded:
            if case .embedded = from, case .text = v { return (v, true) }
            return nil
        case .list, .linkingObjects:
            return nil
        }
    }

    static func isDecimal(_ t: PropertyType) -> Bool { if case .decimal = t { true } else { false } }

    static func integer(_ v: SQLValue, from: PropertyType) -> (Int64, Bool)? {
        switch v {
        case .integer(let i):
            if case .decimal(let s) = from {
                let p = pow10(s)
                return (i / p, i % p == 0)
            }
            return (i, true)
        case .real(let d):
            guard d.isFinite, abs(d) < 9.2e18 else { return nil }
            let r = d.rounded(.towardZero)
            return (Int64(r), r == d)
        case .text(let s):
            if let i = Int64(s.trimmingCharacters(in: .whitespaces)) { return (i, true) }
            if let d = Double(s.trimmingCharacters(in: .whitespaces)), d.isFinite, abs(d) < 9.2e18 {
                return (Int64(d.rounded(.towardZero)), d.rounded(.towardZero) == d)
            }
            return nil
        default: return nil
        }
    }

    static func double(_ v: SQLValue, from: PropertyType) -> Double? {
        switch v {
        case .integer(let i):
            if case .decimal(let s) = from { return Double(i) / Double(pow10(s)) }
            return Double(i)
        case .real(let d): return d
        case .text(let s): return Double(s.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    static func decimal(_ v: SQLValue, from: PropertyType) -> Decimal? {
        switch v {
        case .integer(let i):
            if case .decimal(let s) = from { return scaledDecimal(i, scale: s) }
            return Decimal(i)
        case .real(let d):
            guard d.isFinite else { return nil }
            // The shortest text that reads back as d: 26697376.47, not 26697376.469999998.
            return Decimal(string: String(d), locale: Locale(identifier: "en_US_POSIX"))
        case .text(let s):
            return Decimal(string: s.trimmingCharacters(in: .whitespaces), locale: Locale(identifier: "en_US_POSIX"))
        default: return nil
        }
    }

    /// `r` as a whole count of 10^-scale units when its shortest decimal form has at most `scale` fraction
    /// digits (12.34 -> 1234 at scale 2), without going through text and Decimal; nil otherwise (more digits,
    /// too big, not finite: the Decimal path decides). `k = round(r × 10^s)` is that count exactly when `k / 10^s`
    /// reads back as `r` (IEEE division rounds to the nearest double); below 2^50 units the doubles are closer
    /// together than half a unit, so no other count reads back as `r` and the shortest form is `k`'s.
    @inline(__always) static func exactUnits(_ r: Double, scale: Int) -> Int64? {
        guard r.isFinite, scale >= 0, scale <= 15 else { return nil }
        let p = Double(pow10(scale))
        let k = (r * p).rounded()
        guard abs(k) < 1_125_899_906_842_624, k / p == r else { return nil }
        return Int64(k)
    }

    /// `shortestUnits` for a double `exactUnits` turned down, without printing it (the text was most of the
    /// cost of a carried Double -> decimal conversion). Below 2^40 units such a double's shortest form D has more
    /// than `scale` fraction digits (`exactUnits`), so the answer is inexact, and D is within half an ulp of `r`:
    /// D × 10^s is within 1.5 ulps of y = r × 10^s as computed, under 2^-11 of a unit. Unless y is within
    /// 2^-8 of a half, D × 10^s therefore rounds (half-even, or any other way) to the integer nearest y. Nil
    /// near a half, for tiny or large values and scales past 15 (the text decides).
    @inline(__always) static func inexactUnits(_ r: Double, scale: Int) -> Int64? {
        // Below 1e-20 the shortest text's exponent may leave the range `shortestUnits` handles itself.
        guard r.isFinite, scale >= 0, scale <= 15, abs(r) >= 1e-20 else { return nil }
        let p = Double(pow10(scale))
        let y = r * p
        guard abs(y) < 0x1p40 else { return nil }
        let nearest = y.rounded()
        // `exactUnits`'s own test: when the nearest count reads back as r, the answer is exact (not ours).
        guard nearest / p != r else { return nil }
        guard abs(y - y.rounded(.down) - 0.5) > 0x1p-8 else { return nil }
        // Not near the half: the nearest integer (no digit of D past y's can carry it to another).
        return Int64(nearest)
    }

    /// What the Decimal path gives for `r` (its shortest text, scaled, rounded half-even), computed on the
    /// digits of that text in 64-bit integers: the count of 10^-scale units and whether no digit was rounded
    /// away; nil when the units would not fit in 64 bits or the text is not a plain number (the Decimal
    /// path decides). The shortest form has at most 17 significant digits, so its digits fit in a UInt64.
    static func shortestUnits(_ r: Double, scale: Int) -> (Int64, Bool)? {
        guard r.isFinite, scale >= 0, scale <= 18 else { return nil }
        var text = r.description  // Swift prints the shortest form that reads back as r
        return text.withUTF8 { b -> (Int64, Bool)? in
            var i = 0
            var negative = false
            if i < b.count, b[i] == UInt8(ascii: "-") {
                negative = true
                i += 1
            }
            var digits: UInt64 = 0
            var count = 0
            var fraction = 0
            var seenPoint = false
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: ".") {
                    guard !seenPoint else { return nil }
                    seenPoint = true
                } else if c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
                    if digits == 0 && c == UInt8(ascii: "0") {
                        if seenPoint { fraction += 1 }
                    } else {
                        count += 1
                        guard count <= 18 else { return nil }
                        digits = digits * 10 + UInt64(c - UInt8(ascii: "0"))
                        if seenPoint { fraction += 1 }
                    }
                } else {
                    break
                }
                i += 1
            }
            var exponent = 0
            if i < b.count {
                guard b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") else { return nil }
                i += 1
                var expNegative = false
                if i < b.count, b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+") {
                    expNegative = b[i] == UInt8(ascii: "-")
                    i += 1
                }
                guard i < b.count else { return nil }
                while i < b.count {
                    let c = b[i]
                    guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), exponent < 10_000 else { return nil }
                    exponent = exponent * 10 + Int(c - UInt8(ascii: "0"))
                    i += 1
                }
                if expNegative { exponent = -exponent }
            }
            // r = ±digits × 10^(exponent - fraction); the units are that × 10^scale. Exponents near the
            // ends of Decimal's range (±128) are left to it: it has no value for some of them.
            guard abs(exponent - fraction) <= 100 else { return nil }
            let shift = exponent - fraction + scale
            var units: UInt64
            var exact = true
            if digits == 0 {
                units = 0
            } else if shift >= 0 {
                guard shift <= 18 else { return nil }
                let (m, overflow) = digits.multipliedReportingOverflow(by: UInt64(pow10(shift)))
                guard !overflow else { return nil }
                units = m
            } else if -shift > 18 {
                // Below 10^-18 of a unit after scaling every 18-digit count rounds to 0.
                units = 0
                exact = false
            } else {
                let p = UInt64(pow10(-shift))
                units = digits / p
                let rest = digits % p
                exact = rest == 0
                let half = p / 2
                if rest > half || (rest == half && units % 2 == 1) { units += 1 }
            }
            if negative {
                guard units <= UInt64(Int64.max) + 1 else { return nil }
                return (units == UInt64(Int64.max) + 1 ? Int64.min : -Int64(units), exact)
            }
            guard units <= UInt64(Int64.max) else { return nil }
            return (Int64(units), exact)
        }
    }

    /// `d` as a count of 10^-scale units, rounded half-even when it has more digits.
    static func scaled(_ d: Decimal, scale: Int) -> (SQLValue, Bool)? {
        var value = d
        var shifted = Decimal()
        guard NSDecimalMultiplyByPowerOf10(&shifted, &value, Int16(scale), .bankers) == .noError else { return nil }
        var rounded = Decimal()
        NSDecimalRound(&rounded, &shifted, 0, .bankers)
        guard let i = ValueCodec.int64(rounded) else { return nil }
        return (.integer(i), rounded == shifted)
    }

    static func scaledDecimal(_ i: Int64, scale: Int) -> Decimal {
        Decimal(sign: i < 0 ? .minus : .plus, exponent: -scale, significand: Decimal(i.magnitude))
    }

    static func pow10(_ n: Int) -> Int64 {
        var p: Int64 = 1
        for _ in 0..<max(0, n) { p = p &* 10 }
        return p
    }

    /// The SQL expression converting column `column` of old type `from` into new type `to`, for
    /// conversions classified as identical or widening; nil when it needs Swift.
    static func sqlExpression(_ column: String, from: PropertyType, to: PropertyType) -> String? {
        if from == to { return column }
        switch (from, to) {
        case (.bool, .int8), (.bool, .int16), (.bool, .int32), (.bool, .int64), (.int8, .int16), (.int8, .int32),
            (.int8, .int64), (.int16, .int32), (.int16, .int64), (.int32, .int64), (.float, .double),
            (.link, .link), (.list, .list), (.linkingObjects, .linkingObjects):
            return column
        case (.bool, .float), (.int8, .float), (.int16, .float), (.bool, .double), (.int8, .double), (.int16, .double),
            (.int32, .double):
            return "CAST(\(column) AS REAL)"
        case (.bool, .decimal(let s)), (.int8, .decimal(let s)), (.int16, .decimal(let s)), (.int32, .decimal(let s)),
            (.int64, .decimal(let s)):
            return s == 0 ? column : "(\(column) * \(pow10(s)))"
        case (.decimal(let s), .decimal(let t)) where t >= s:
            return t == s ? column : "(\(column) * \(pow10(t - s)))"
        default:
            return nil
        }
    }
}
