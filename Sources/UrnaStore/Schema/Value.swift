import Foundation

/// A property value as the store moves it around: typed, nullable, independent of Swift classes.
public enum Value: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case decimal(Decimal)
    /// A reference to another object by its primary key value (or row id for types without one).
    indirect case link(LinkTarget)
    /// An ordered list of linked objects.
    case list([LinkTarget])
    /// An embedded object's property values.
    case embedded([String: Value])

    public var isNull: Bool { if case .null = self { true } else { false } }

    /// An exact decimal of `units` hundredths (`scale` 2), thousandths (3), ...: `.decimal(units: 1999, scale: 2)`
    /// is 19.99. Built without text, so about seven times faster than `Decimal(string:)` of a formatted number
    /// (which costs some 1.7 µs a value on Linux): the form for closures that convert millions of values.
    public static func decimal(units: Int64, scale: Int) -> Value {
        .decimal(Decimal(sign: units < 0 ? .minus : .plus, exponent: -scale, significand: Decimal(units.magnitude)))
    }

    /// The value as a String when it is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The value as an integer when it is one (Bool counts as 0/1).
    public var intValue: Int64? {
        switch self {
        case .int(let i): i
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }
    /// The value as a Double when it is numeric.
    public var doubleValue: Double? {
        switch self {
        case .double(let d): d
        case .int(let i): Double(i)
        case .decimal(let d): NSDecimalNumber(decimal: d).doubleValue
        default: nil
        }
    }
    public var boolValue: Bool? {
        switch self {
        case .bool(let b): b
        case .int(let i): i != 0
        default: nil
        }
    }
    public var dateValue: Date? { if case .date(let d) = self { d } else { nil } }
    public var decimalValue: Decimal? {
        switch self {
        case .decimal(let d): d
        case .int(let i): Decimal(i)
        case .double(let d): Decimal(d)
        default: nil
        }
    }
}

/// The identity of a linked object: its type and primary key (or row id).
public struct LinkTarget: Sendable, Hashable {
    public let type: String
    public let key: Value

    public init(type: String, key: Value) {
        self.type = type
        self.key = key
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}

extension Value: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let b): b ? "true" : "false"
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .string(let s): s
        case .date(let d): ISODate.format(d)
        case .data(let d): "<\(d.count) bytes>"
        case .uuid(let u): u.uuidString.lowercased()
        case .decimal(let d): "\(d)"
        case .link(let t): "\(t.type)(\(t.key))"
        case .list(let l): "[" + l.map { "\($0.type)(\($0.key))" }.joined(separator: ", ") + "]"
        case .embedded(let e): "{" + e.keys.sorted().map { "\($0): \(e[$0]!)" }.joined(separator: ", ") + "}"
        }
    }
}
