import Foundation

/// Values -> bound parameters, by the type of the key path they are compared with (the storage
/// contract of ValueCodec: dates as ISO text, decimals as scaled integers, bools as 0/1, uuids as
/// lower-case text, links as the target's key).
extension QueryCompiler {
    /// What a key path's SQL yields, as far as comparisons care.
    enum ValueType: Equatable {
        case string, integer, bool, date, uuid, data
        case real(float: Bool)
        case decimal(scale: Int)
        case link(String)
        case embedded(String)

        init(_ end: PathEnd) {
            switch end {
            case .property(let p): self.init(p.type)
            case .link(let t): self = .link(t)
            case .embeddedObject(let t): self = .embedded(t)
            case .count: self = .integer
            case .aggregate(let op, let p):
                // An average of scaled decimals is still in scaled units; of anything else, a real.
                if op == "@avg", case .decimal = p.type {
                    self.init(p.type)
                } else if op == "@avg" {
                    self = .real(float: false)
                } else {
                    self.init(p.type)
                }
            }
        }

        init(_ type: PropertyType) {
            switch type {
            case .bool: self = .bool
            case .int8, .int16, .int32, .int64: self = .integer
            case .float: self = .real(float: true)
            case .double: self = .real(float: false)
            case .string: self = .string
            case .date: self = .date
            case .data: self = .data
            case .uuid: self = .uuid
            case .decimal(let s): self = .decimal(scale: s)
            case .link(let t), .list(let t): self = .link(t)
            case .linkingObjects(let t, _): self = .link(t)
            case .embedded(let t): self = .embedded(t)
            }
        }

        /// "a string", "a number", ... for messages.
        var name: String {
            switch self {
            case .string: "a string"
            case .integer, .real, .decimal: "a number"
            case .bool: "a bool"
            case .date: "a date"
            case .uuid: "a uuid"
            case .data: "data"
            case .link(let t): "a link to \(t)"
            case .embedded(let t): "an embedded \(t)"
            }
        }

        var isNumber: Bool {
            switch self {
            case .integer, .real, .decimal: true
            default: false
            }
        }

        /// Whether <, >, BETWEEN make sense.
        var isOrdered: Bool { isNumber || self == .string || self == .date }

        /// Whether two key paths of these types can be compared (decimals only at the same scale).
        func isComparable(with other: ValueType) -> Bool {
            switch (self, other) {
            case (.decimal(let a), .decimal(let b)): a == b
            case (.decimal(0), _), (_, .decimal(0)): isNumber && other.isNumber
            case (.decimal, _), (_, .decimal): false
            case (.integer, .integer), (.integer, .real), (.real, .integer), (.real, .real): true
            default: self == other
            }
        }
    }

    /// `value` as stored for `type`, or a QueryPredicateError at `position` saying what to write instead.
    func bindable(_ value: Value, as type: ValueType, display: String, at position: Int) throws -> SQLValue {
        func refuse(_ hint: String) -> QueryPredicateError {
            QueryPredicateError(at: position, "\(display) is \(type.name); \(hint)")
        }
        switch type {
        case .string:
            guard case .string(let s) = value else { throw refuse("compare it with a quoted value") }
            return .text(s)
        case .integer, .real, .decimal:
            let number: Decimal
            switch value {
            case .int(let i):
                if case .integer = type { return .integer(i) }
                number = Decimal(i)
            case .double(let d):
                guard d.isFinite else { throw refuse("compare it with a finite number") }
                if case .real(let float) = type { return .real(float ? Double(Float(d)) : d) }
                number = Decimal(string: "\(d)", locale: Self.posix) ?? Decimal(d)
            case .decimal(let d): number = d
            case .string: throw refuse("compare it with a number, not a quoted value")
            case .bool: throw refuse("compare it with a number, not \(value)")
            default: throw refuse("it cannot be compared with \(value.kindName)")
            }
            switch type {
            case .decimal(let scale): return Self.scaled(number, scale: scale)
            case .real(let float):
                let d = Self.double(number)
                return .real(float ? Double(Float(d)) : d)
            default: return Self.scaled(number, scale: 0)
            }
        case .bool:
            switch value {
            case .bool(let b): return .integer(b ? 1 : 0)
            case .int(let i) where i == 0 || i == 1: return .integer(i)
            default: throw refuse("compare it with true or false")
            }
        case .date:
            switch value {
            case .date(let d): return .text(ISODate.format(d))
            case .string(let s):
                if let d = ISODate.parse(s) { return .text(ISODate.format(d)) }
            default: break
            }
            throw refuse("compare it with a date argument (%@) or ISO-8601 text like '2016-10-02'")
        case .uuid:
            switch value {
            case .uuid(let u): return .text(u.uuidString.lowercased())
            case .string(let s):
                if let u = UUID(uuidString: s) { return .text(u.uuidString.lowercased()) }
            default: break
            }
            throw refuse("compare it with a uuid argument (%@) or its text")
        case .data:
            guard case .data(let d) = value else { throw refuse("compare it with a data argument (%@)") }
            return .blob([UInt8](d))
        case .link(let target):
            var key = value
            if case .link(let t) = value {
                guard t.type == target else { throw refuse("it cannot hold a \(t.type)") }
                key = t.key
            }
            let keyType = schema[type: target]?.primaryKey?.type ?? .int64
            switch (keyType, key) {
            case (.int8, .int(let i)), (.int16, .int(let i)), (.int32, .int(let i)), (.int64, .int(let i)):
                return .integer(i)
            case (.string, .string(let s)): return .text(s)
            case (.uuid, .uuid(let u)): return .text(u.uuidString.lowercased())
            case (.uuid, .string(let s)):
                if let u = UUID(uuidString: s) { return .text(u.uuidString.lowercased()) }
            default: break
            }
            throw refuse("compare it with nil, a \(target) object or its \(keyType.name) key")
        case .embedded:
            throw refuse("it can only be compared with nil")
        }
    }

    static let posix = Locale(identifier: "en_US_POSIX")

    /// `d × 10^scale` as an integer when exact, else as a real (`1000.505` on decimal(2) is 100050.5,
    /// which no stored value equals but which still orders correctly).
    static func scaled(_ d: Decimal, scale: Int) -> SQLValue {
        if let i = try? ValueCodec.scaledInteger(d, scale: scale, type: "", property: "") { return .integer(i) }
        var v = d
        var r = Decimal()
        _ = NSDecimalMultiplyByPowerOf10(&r, &v, Int16(scale), .plain)
        return .real(double(r))
    }

    static func double(_ d: Decimal) -> Double { Double("\(d)") ?? NSDecimalNumber(decimal: d).doubleValue }

    /// `text` with GLOB's metacharacters made literal.
    static func globLiteral(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "*": out += "[*]"
            case "?": out += "[?]"
            case "[": out += "[[]"
            default: out.append(c)
            }
        }
        return out
    }

    /// An NSPredicate LIKE pattern (`*` any run, `?` one character, `\*` and `\?` literal) as GLOB.
    static func globPattern(like pattern: String) -> String {
        var out = ""
        var escaped = false
        for c in pattern {
            if escaped {
                out += c == "*" || c == "?" ? "[\(c)]" : "\\" + globLiteral(String(c))
                escaped = false
                continue
            }
            switch c {
            case "\\": escaped = true
            case "*", "?": out.append(c)
            case "[": out += "[[]"
            default: out.append(c)
            }
        }
        if escaped { out += "\\" }
        return out
    }
}
