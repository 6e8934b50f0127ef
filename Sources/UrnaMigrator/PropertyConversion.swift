import Foundation
import UrnaStore

/// How a property's stored values change between two versions of its declaration.
public enum ConversionKind: String, Sendable, Codable, Equatable {
    /// Same type (optionality may widen to optional).
    case identical
    /// Every old value has an exact new value (Int16 -> Int64, float -> double, required -> optional,
    /// optional -> required with a default).
    case widening
    /// Narrowing, lossy or a change of kind: needs a closure that sets the values, or an allowance.
    case needsClosure
}

/// The rules for converting one property's values from its old declaration to its new one.
struct PropertyConversion {
    let kind: ConversionKind
    /// Why, in words (`int64 → int16 may not fit`).
    let reason: String
    /// The allowance that permits it without a closure, when one applies.
    let allowance: MigrationAllowance?

    /// Classifies the change of `old` (in `oldSchema`) into `new` (in `newSchema`) of type `type`.
    static func classify(type: String, old: Property, new: Property, oldSchema: Schema, newSchema: Schema)
        -> PropertyConversion
    {
        let typeConversion = classifyType(old.type, new.type, oldSchema: oldSchema, newSchema: newSchema)
        if typeConversion.kind == .needsClosure {
            return PropertyConversion(
                kind: .needsClosure, reason: typeConversion.reason,
                allowance: .lossyConversion(type: type, property: new.name))
        }
        if old.optional && !new.optional && new.isStored {
            if new.defaultValue != nil {
                // Text defaults are quoted, so an empty one reads `""` rather than nothing.
                let stored = ValueCodec.encode(new.effectiveDefault, as: new.type)
                let shown: String
                if case .text(let t) = stored { shown = "\"\(t)\"" } else { shown = "\(stored)" }
                return PropertyConversion(kind: .widening, reason: "nil becomes the default \(shown)", allowance: nil)
            }
            return PropertyConversion(
                kind: .needsClosure, reason: "optional becomes required and has no default",
                allowance: .nullsBecomeDefault(type: type, property: new.name))
        }
        if typeConversion.kind == .identical && old.optional == new.optional {
            return PropertyConversion(kind: .identical, reason: "", allowance: nil)
        }
        let reason = typeConversion.kind == .identical ? "required becomes optional" : typeConversion.reason
        return PropertyConversion(kind: .widening, reason: reason, allowance: nil)
    }

    /// An embedded type that only gains properties a reader can fill (optional, or with a default) keeps every
    /// stored object as it is: absent keys read as the added properties' defaults. Any other change of shape
    /// (a property removed, retyped or added required without a default) needs a closure or an allowance.
    static func embeddedChange(_ e: String, oldSchema: Schema, newSchema: Schema) -> (
        kind: ConversionKind, reason: String
    ) {
        let changed = (kind: ConversionKind.needsClosure, reason: "embedded type \(e) changes shape")
        guard let o = oldSchema[type: e], let n = newSchema[type: e], o.embedded, n.embedded else { return changed }
        for p in o.properties where p.isStored {
            guard let q = n[property: p.name], q.isStored else {
                return (.needsClosure, "embedded type \(e) changes shape: \(e).\(p.name) is removed")
            }
            let c = classify(type: e, old: p, new: q, oldSchema: oldSchema, newSchema: newSchema)
            guard c.kind == .identical else {
                return (.needsClosure, "embedded type \(e) changes shape: \(e).\(p.name) changes")
            }
        }
        let added = n.properties.filter { $0.isStored && o[property: $0.name] == nil }
        if let required = added.first(where: { !$0.optional && $0.defaultValue == nil }) {
            return (
                .needsClosure,
                "embedded type \(e) changes shape: \(e).\(required.name) is added required without a default"
            )
        }
        return (
            .widening, "embedded type \(e) gains \(added.map(\.name).joined(separator: ", ")), read as their defaults"
        )
    }

    /// Whether embedded type `e` or any embedded type it holds, however deep, has another shape in `newSchema`
    /// (an unchanged `Outer` holding a changed `Geo` changes shape: its stored JSON holds Geo's).
    static func embeddedDiffers(_ e: String, oldSchema: Schema, newSchema: Schema, seen: Set<String> = []) -> Bool {
        guard let o = oldSchema[type: e], let n = newSchema[type: e] else {
            return oldSchema[type: e] != newSchema[type: e]
        }
        if o != n { return true }
        for p in o.properties where p.isStored {
            if case .embedded(let inner) = p.type, !seen.contains(inner),
                embeddedDiffers(inner, oldSchema: oldSchema, newSchema: newSchema, seen: seen.union([e]))
            {
                return true
            }
        }
        return false
    }

    static func classifyType(_ a: PropertyType, _ b: PropertyType, oldSchema: Schema, newSchema: Schema) -> (
        kind: ConversionKind, reason: String
    ) {
        if a == b {
            if case .embedded(let e) = a, embeddedDiffers(e, oldSchema: oldSchema, newSchema: newSchema) {
                return embeddedChange(e, oldSchema: oldSchema, newSchema: newSchema)
            }
            return (.identical, "")
        }
        let arrow = "\(a.name) → \(b.name)"
        func rank(_ t: PropertyType) -> Int? {
            switch t {
            case .bool: 0
            case .int8: 1
            case .int16: 2
            case .int32: 3
            case .int64: 4
            default: nil
            }
        }
        switch (a, b) {
        case _ where rank(a) != nil && rank(b) != nil:
            return rank(a)! < rank(b)! ? (.widening, "\(arrow) widens") : (.needsClosure, "\(arrow) may not fit")
        case (.float, .double):
            return (.widening, "\(arrow) widens")
        case (.double, .float):
            return (.needsClosure, "\(arrow) loses precision")
        case (.bool, .float), (.int8, .float), (.int16, .float), (.bool, .double), (.int8, .double), (.int16, .double),
            (.int32, .double):
            return (.widening, "\(arrow) is exact")
        case (.int32, .float), (.int64, .float), (.int64, .double):
            return (.needsClosure, "\(arrow) loses precision above 2^\(b == .float ? 24 : 53)")
        case (.bool, .decimal(let s)), (.int8, .decimal(let s)), (.int16, .decimal(let s)), (.int32, .decimal(let s)):
            return s <= 9 ? (.widening, "\(arrow) is exact") : (.needsClosure, "\(arrow) may overflow")
        case (.int64, .decimal(let s)):
            return s == 0 ? (.widening, "\(arrow) is exact") : (.needsClosure, "\(arrow) may overflow")
        case (.decimal(let s), .decimal(let t)):
            return t >= s ? (.widening, "\(arrow) keeps every digit") : (.needsClosure, "\(arrow) drops digits")
        case (.link(let x), .link(let y)), (.list(let x), .list(let y)):
            return x == y ? (.identical, "") : (.needsClosure, "\(arrow) points at another type")
        case (.linkingObjects, .linkingObjects):
            return (.identical, "")
        case (.double, .decimal), (.float, .decimal):
            return (.needsClosure, "\(arrow): binary floating point to exact decimal may round")
        default:
            return (.needsClosure, "\(arrow) changes kind")
        }
    }
}

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

/// How SQLite's column affinity turns a value stored into a column of `sqlType`.
enum Affinity {
    /// The value SQLite stores when `v` is written into a column declared `sqlType`.
    static func apply(_ v: SQLValue, sqlType: String) -> SQLValue {
        switch (sqlType, v) {
        case ("TEXT", .integer(let i)): return .text(String(i))
        case ("TEXT", .real(let d)): return .text(realText(d))
        case ("INTEGER", .text(let s)):
            let t = s.trimmingCharacters(in: .whitespaces)
            if let i = Int64(t) { return .integer(i) }
            if let d = Double(t), d.isFinite { return Int64(exactly: d).map(SQLValue.integer) ?? .real(d) }
            return v
        case ("INTEGER", .real(let d)): return Int64(exactly: d).map(SQLValue.integer) ?? v
        case ("REAL", .integer(let i)): return .real(Double(i))
        default: return v
        }
    }

    /// SQLite's text for a REAL stored into a TEXT column (`21.0`, `0.5`).
    static func realText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(format: "%.1f", d) }
        return String(d)
    }

    /// An SQL expression giving the value column `expr` would have after being stored into a column
    /// declared `sqlType` (so lookups in tables of that affinity match).
    static func sqlExpression(_ expr: String, from oldSQLType: String, to sqlType: String) -> String {
        if oldSQLType == sqlType { return expr }
        switch sqlType {
        case "TEXT":
            return "CASE WHEN typeof(\(expr)) IN ('integer', 'real') THEN CAST(\(expr) AS TEXT) ELSE \(expr) END"
        case "INTEGER":
            return "CASE WHEN CAST(\(expr) AS INTEGER) = \(expr) THEN CAST(\(expr) AS INTEGER) ELSE \(expr) END"
        default: return expr
        }
    }
}
