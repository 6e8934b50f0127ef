import Foundation

/// One declared property of an object type.
///
/// ```swift
/// Property("fullName", .string, default: "")
/// Property("email", .string, optional: true, indexed: true)
/// Property("party", .link("Party"))
/// ```
public struct Property: Sendable, Hashable, Codable {
    public var name: String
    public var type: PropertyType
    /// Optional properties may hold nil; required ones are NOT NULL with a default.
    public var optional: Bool
    /// The value a new object gets when none is given (required properties always have one).
    public var defaultValue: DefaultValue?
    public var indexed: Bool
    public var primaryKey: Bool
    /// Declared but never stored (no column); kept in the descriptor for documentation.
    public var ignored: Bool

    public init(
        _ name: String, _ type: PropertyType, optional: Bool = false, default defaultValue: DefaultValue? = nil,
        indexed: Bool = false, primaryKey: Bool = false, ignored: Bool = false
    ) {
        self.name = name
        self.type = type
        if case .link = type { self.optional = true } else { self.optional = optional }
        self.defaultValue = defaultValue.map { d in DefaultValue.normalised(d, for: type) }
        self.indexed = indexed
        self.primaryKey = primaryKey
        self.ignored = ignored
    }

    /// Whether the property has a column in its owner's table.
    public var isStored: Bool { !ignored && type.isColumn }

    /// The default a new object gets: the declared default, else nil for optionals, else the type's zero.
    public var effectiveDefault: Value {
        if let d = defaultValue { return d.value(for: type) }
        if optional { return .null }
        return type.zeroValue
    }

    enum CodingKeys: String, CodingKey {
        case name, type, optional, defaultValue = "default", indexed, primaryKey, ignored
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        let decodedType = try c.decode(PropertyType.self, forKey: .type)
        type = decodedType
        optional = try c.decodeIfPresent(Bool.self, forKey: .optional) ?? false
        defaultValue = try c.decodeIfPresent(DefaultValue.self, forKey: .defaultValue).map {
            DefaultValue.normalised($0, for: decodedType)
        }
        indexed = try c.decodeIfPresent(Bool.self, forKey: .indexed) ?? false
        primaryKey = try c.decodeIfPresent(Bool.self, forKey: .primaryKey) ?? false
        ignored = try c.decodeIfPresent(Bool.self, forKey: .ignored) ?? false
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(type, forKey: .type)
        if optional { try c.encode(true, forKey: .optional) }
        try c.encodeIfPresent(defaultValue, forKey: .defaultValue)
        if indexed { try c.encode(true, forKey: .indexed) }
        if primaryKey { try c.encode(true, forKey: .primaryKey) }
        if ignored { try c.encode(true, forKey: .ignored) }
    }
}

/// A default value as written in a descriptor: JSON-friendly, converted to the property's type on use.
public enum DefaultValue: Sendable, Hashable, Codable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)

    /// The same default in the form that suits `type` (JSON cannot tell 0 from 0.0).
    static func normalised(_ d: DefaultValue, for type: PropertyType) -> DefaultValue {
        switch (d, type) {
        case (.int(let i), .float), (.int(let i), .double): .double(Double(i))
        case (.double(let x), .int8), (.double(let x), .int16), (.double(let x), .int32), (.double(let x), .int64):
            x.rounded() == x && abs(x) < 9e18 ? .int(Int64(x)) : d
        default: d
        }
    }

    /// The default converted to a value of `type`.
    public func value(for type: PropertyType) -> Value {
        switch (self, type) {
        case (.bool(let b), .bool): return .bool(b)
        case (.int(let i), .bool): return .bool(i != 0)
        case (.int(let i), .float), (.int(let i), .double): return .double(Double(i))
        case (.int(let i), .decimal): return .decimal(Decimal(i))
        case (.int(let i), _): return .int(i)
        case (.double(let d), .decimal): return .decimal(Decimal(d))
        case (.double(let d), _): return .double(d)
        case (.string(let s), .date): return ISODate.parse(s).map(Value.date) ?? .string(s)
        case (.string(let s), .decimal): return Decimal(string: s).map(Value.decimal) ?? .string(s)
        case (.string(let s), .uuid): return UUID(uuidString: s).map(Value.uuid) ?? .string(s)
        case (.string(let s), _): return .string(s)
        case (.bool(let b), _): return .int(b ? 1 : 0)
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else {
            self = .string(try c.decode(String.self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        }
    }
}

extension DefaultValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PropertyType {
    /// The value a required property of this type holds when nothing else was given.
    public var zeroValue: Value {
        switch self {
        case .bool: .bool(false)
        case .int8, .int16, .int32, .int64: .int(0)
        case .float, .double: .double(0)
        case .string: .string("")
        case .date: .date(Date(timeIntervalSince1970: 0))
        case .data: .data(Data())
        case .uuid: .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .decimal: .decimal(0)
        case .link, .linkingObjects: .null
        case .list: .list([])
        case .embedded: .null
        }
    }
}
