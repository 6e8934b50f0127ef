import Foundation

/// The type of one property of an object type.
///
/// Scalar types map to one column; `.link` to a foreign-key column; `.list` to a table of its own;
/// `.linkingObjects` is computed from the links pointing at an object and never stored.
public enum PropertyType: Sendable, Hashable, Codable {
    case bool
    case int8, int16, int32, int64
    case float, double
    case string
    case date
    case data
    case uuid
    /// An exact decimal stored as an INTEGER count of 10^-scale units (scale 2 = cents).
    case decimal(scale: Int)
    /// A to-one link to an object of the named type (always optional).
    case link(String)
    /// An ordered to-many list of objects of the named type.
    case list(String)
    /// The objects of `type` whose link or list `property` points at this object.
    case linkingObjects(type: String, property: String)
    /// An embedded object of the named type, stored inline (as JSON text) in its owner's row.
    case embedded(String)

    /// Whether the property has a column in its owner's table.
    public var isColumn: Bool {
        switch self {
        case .list, .linkingObjects: false
        default: true
        }
    }

    /// Whether values of this type are integers in SQLite.
    public var isInteger: Bool {
        switch self {
        case .bool, .int8, .int16, .int32, .int64, .decimal: true
        default: false
        }
    }

    /// The inclusive range an integer type can hold; nil for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .int8: Int64(Int8.min)...Int64(Int8.max)
        case .int16: Int64(Int16.min)...Int64(Int16.max)
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        case .int64, .decimal: Int64.min...Int64.max
        case .bool: 0...1
        default: nil
        }
    }

    /// The SQLite column type (STRICT-compatible name) for a column property.
    public var sqlType: String {
        switch self {
        case .bool, .int8, .int16, .int32, .int64, .decimal: "INTEGER"
        case .float, .double: "REAL"
        case .string, .date, .uuid, .embedded: "TEXT"
        case .data: "BLOB"
        case .link: "ANY"  // replaced by the target's primary key type in the layout
        case .list, .linkingObjects: ""
        }
    }

    /// The name used in descriptors and messages: `int16`, `decimal(2)`, `link(Party)`, ...
    public var name: String {
        switch self {
        case .bool: "bool"
        case .int8: "int8"
        case .int16: "int16"
        case .int32: "int32"
        case .int64: "int64"
        case .float: "float"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .decimal(let s): "decimal(\(s))"
        case .link(let t): "link(\(t))"
        case .list(let t): "list(\(t))"
        case .linkingObjects(let t, let p): "linkingObjects(\(t).\(p))"
        case .embedded(let t): "embedded(\(t))"
        }
    }

    /// Parses the `name` form back; nil when it is not a known type name.
    public init?(name: String) {
        func arg(_ prefix: String) -> String? {
            guard name.hasPrefix(prefix + "("), name.hasSuffix(")") else { return nil }
            return String(name.dropFirst(prefix.count + 1).dropLast())
        }
        switch name {
        case "bool": self = .bool
        case "int8": self = .int8
        case "int16": self = .int16
        case "int32": self = .int32
        case "int64", "int": self = .int64
        case "float": self = .float
        case "double": self = .double
        case "string": self = .string
        case "date": self = .date
        case "data": self = .data
        case "uuid": self = .uuid
        default:
            if let a = arg("decimal"), let s = Int(a), (0...18).contains(s) {
                self = .decimal(scale: s)
            } else if let a = arg("link") {
                self = .link(a)
            } else if let a = arg("list") {
                self = .list(a)
            } else if let a = arg("embedded") {
                self = .embedded(a)
            } else if let a = arg("linkingObjects"), let dot = a.lastIndex(of: ".") {
                self = .linkingObjects(type: String(a[..<dot]), property: String(a[a.index(after: dot)...]))
            } else {
                return nil
            }
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let t = PropertyType(name: s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown property type '\(s)'")
        }
        self = t
    }
}
