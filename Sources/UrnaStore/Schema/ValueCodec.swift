import Foundation

/// Converts property values to what SQLite stores and back, by property type (the storage contract).
public enum ValueCodec {
    /// Converts a loosely typed value (an Int for a Double property, text for a date, ...) into the
    /// canonical value for `property`, or throws a `StoreError.typeMismatch` naming the property. Given the
    /// schema, an embedded object is completed as `embeddedValues` does.
    public static func coerce(_ value: Value, to property: Property, in type: String, schema: Schema? = nil) throws
        -> Value
    {
        if value.isNull {
            if property.optional { return .null }
            throw StoreError.nullNotAllowed(type: type, property: property.name)
        }
        func mismatch() -> StoreError {
            .typeMismatch(type: type, property: property.name, expected: property.type.name, got: value.kindName)
        }
        switch property.type {
        case .bool:
            guard let b = value.boolValue else { throw mismatch() }
            return .bool(b)
        case .int8, .int16, .int32, .int64:
            var i: Int64
            switch value {
            case .int(let v): i = v
            case .bool(let b): i = b ? 1 : 0
            case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: i = Int64(d)
            default: throw mismatch()
            }
            if let r = property.type.integerRange, !r.contains(i) {
                throw StoreError.outOfRange(
                    type: type, property: property.name, value: String(i), range: "\(r.lowerBound)...\(r.upperBound)")
            }
            return .int(i)
        case .float, .double:
            guard let d = value.doubleValue else { throw mismatch() }
            return .double(property.type == .float ? Double(Float(d)) : d)
        case .string:
            guard case .string = value else { throw mismatch() }
            return value
        case .date:
            switch value {
            case .date: return value
            case .string(let s): if let d = ISODate.parse(s) { return .date(d) }
            case .double(let d): return .date(Date(timeIntervalSince1970: d))
            case .int(let i): return .date(Date(timeIntervalSince1970: Double(i)))
            default: break
            }
            throw mismatch()
        case .data:
            guard case .data = value else { throw mismatch() }
            return value
        case .uuid:
            switch value {
            case .uuid: return value
            case .string(let s): if let u = UUID(uuidString: s) { return .uuid(u) }
            default: break
            }
            throw mismatch()
        case .decimal(let scale):
            let d: Decimal
            switch value {
            case .decimal(let v): d = v
            case .int(let i): d = Decimal(i)
            case .double(let v): d = Decimal(string: String(v)) ?? Decimal(v)
            case .string(let s):
                guard let v = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) else { throw mismatch() }
                d = v
            default: throw mismatch()
            }
            _ = try scaledInteger(d, scale: scale, type: type, property: property.name)
            return .decimal(d)
        case .link(let target):
            switch value {
            case .link(let t) where t.type == target: return value
            case .int, .string, .uuid: return .link(LinkTarget(type: target, key: value))
            default: throw mismatch()
            }
        case .list(let target):
            guard case .list(let items) = value else { throw mismatch() }
            for i in items where i.type != target { throw mismatch() }
            return value
        case .embedded(let target):
            guard case .embedded(let given) = value else { throw mismatch() }
            guard let schema, let t = schema[type: target] else { return value }
            return .embedded(try embeddedValues(given, of: t, in: schema))
        case .linkingObjects:
            throw StoreError.readOnlyProperty(type: type, property: property.name)
        }
    }

    /// An embedded object as a dictionary is written: every stored property of its type (the ones not given take
    /// their defaults), each coerced to its own type. A name the type lacks is refused (`unknownProperty`): the
    /// JSON would keep its value where no reader looks (a misspelt `phnoe` lost every phone).
    public static func embeddedValues(_ given: [String: Value], of type: ObjectSchema, in schema: Schema) throws
        -> [String: Value]
    {
        var out: [String: Value] = [:]
        for (name, value) in given {
            guard let p = type[property: name], p.isStored else {
                throw StoreError.unknownProperty(type: type.name, property: name)
            }
            out[name] = try coerce(value, to: p, in: type.name, schema: schema)
        }
        for p in type.properties where p.isStored && out[p.name] == nil { out[p.name] = p.effectiveDefault }
        return out
    }

    /// `d × 10^scale` as an exact integer; throws when `d` has more fraction digits than `scale` or overflows.
    public static func scaledInteger(_ d: Decimal, scale: Int, type: String, property: String) throws -> Int64 {
        // Most values have at most `scale` fraction digits and fit: read from the Decimal's own fields.
        if let i = DecimalParts.scaledInteger(d, scale: scale) { return i }
        var v = d
        var r = Decimal()
        _ = NSDecimalMultiplyByPowerOf10(&r, &v, Int16(scale), .plain)
        let rounded: Decimal
        if !r.isNaN, r.exponent >= 0 {
            // A whole number already (its digits times a power of ten): rounding would give it back unchanged.
            rounded = r
        } else {
            var whole = Decimal()
            var rr = r
            NSDecimalRound(&whole, &rr, 0, .plain)
            guard whole == r else {
                throw StoreError.outOfRange(
                    type: type, property: property, value: "\(d)", range: "at most \(scale) decimal places")
            }
            rounded = whole
        }
        guard let i = int64(rounded) else {
            throw StoreError.outOfRange(type: type, property: property, value: "\(d)", range: "64-bit")
        }
        return i
    }

    /// A whole `d` as an Int64; nil when it is outside the 64-bit range (the bounds are compared as Decimals,
    /// natively, without boxing every value).
    public static func int64(_ d: Decimal) -> Int64? {
        if d.isNaN {
            guard d <= int64MaxDecimal, d >= int64MinDecimal else { return nil }
        } else {
            // One bound to compare, by the sign (Foundation's decimal comparison is costly).
            guard d.sign == .minus ? d >= int64MinDecimal : d <= int64MaxDecimal else { return nil }
        }
        return NSDecimalNumber(decimal: d).int64Value
    }

    private static let int64MaxDecimal = Decimal(Int64.max)
    private static let int64MinDecimal = Decimal(Int64.min)

    /// The SQLite value stored for a canonical (coerced) value of `type`.
    public static func encode(_ value: Value, as type: PropertyType, schema: Schema? = nil) -> SQLValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .integer(b ? 1 : 0)
        case .int(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .date(let d): return .text(ISODate.format(d))
        case .data(let d): return .blob([UInt8](d))
        case .uuid(let u): return .text(u.uuidString.lowercased())
        case .decimal(let d):
            if case .decimal(let scale) = type, let i = try? scaledInteger(d, scale: scale, type: "", property: "") {
                return .integer(i)
            }
            return .text("\(d)")
        case .link(let t): return encodeKey(t.key)
        case .list: return .null
        case .embedded(let values): return .text(embeddedJSON(values, type: type, schema: schema))
        }
    }

    /// A primary-key value as stored.
    public static func encodeKey(_ key: Value) -> SQLValue {
        switch key {
        case .int(let i): .integer(i)
        case .string(let s): .text(s)
        case .uuid(let u): .text(u.uuidString.lowercased())
        case .null: .null
        default: .text(key.description)
        }
    }

    /// The value of `type` that a stored SQLite value means.
    public static func decode(_ v: SQLValue, as type: PropertyType, schema: Schema? = nil) -> Value {
        if case .null = v { return .null }
        switch type {
        case .bool: if case .integer(let i) = v { return .bool(i != 0) }
        case .int8, .int16, .int32, .int64:
            switch v {
            case .integer(let i): return .int(i)
            // A REAL in an integer column (a file edited by hand): a whole number in range is that number;
            // any other (1.5, 1e300) is shown as stored, never truncated and never a trap.
            case .real(let d): return Int64(exactly: d).map(Value.int) ?? .double(d)
            default: break
            }
        case .float, .double:
            switch v {
            case .real(let d): return .double(d)
            case .integer(let i): return .double(Double(i))
            default: break
            }
        case .string: if case .text(let s) = v { return .string(s) }
        case .date: if case .text(let s) = v, let d = ISODate.parse(s) { return .date(d) }
        case .data: if case .blob(let b) = v { return .data(Data(b)) }
        case .uuid: if case .text(let s) = v, let u = UUID(uuidString: s) { return .uuid(u) }
        case .decimal(let scale):
            if case .integer(let i) = v { return .decimal(units: i, scale: scale) }
        case .link(let target):
            let keyType = schema?[type: target]?.primaryKey?.type ?? .int64
            return .link(LinkTarget(type: target, key: decodeKey(v, keyType: keyType)))
        case .embedded(let target):
            if case .text(let s) = v, let t = schema?[type: target] {
                return decodeEmbedded(s, type: t, schema: schema)
            }
        case .list, .linkingObjects: break
        }
        // A value of an unexpected storage class (someone edited the file by hand): pass it through.
        switch v {
        case .integer(let i): return .int(i)
        case .real(let d): return .double(d)
        case .text(let s): return .string(s)
        case .blob(let b): return .data(Data(b))
        case .null: return .null
        }
    }

    /// A stored key value decoded by the key property's type.
    public static func decodeKey(_ v: SQLValue, keyType: PropertyType) -> Value {
        switch (v, keyType) {
        case (.text(let s), .uuid): UUID(uuidString: s).map(Value.uuid) ?? .string(s)
        case (.text(let s), _): .string(s)
        case (.integer(let i), _): .int(i)
        case (.real(let d), _): Int64(exactly: d).map(Value.int) ?? .double(d)
        default: .null
        }
    }

    static func embeddedJSON(_ values: [String: Value], type: PropertyType, schema: Schema?) -> String {
        var object: [String: Any] = [:]
        let target: ObjectSchema? = if case .embedded(let t) = type { schema?[type: t] } else { nil }
        for (k, v) in values {
            let pt = target?[property: k]?.type ?? .string
            switch encode(v, as: pt, schema: schema) {
            case .null: object[k] = NSNull()
            case .integer(let i): object[k] = i
            case .real(let d): object[k] = d
            case .text(let s): object[k] = s
            case .blob(let b): object[k] = Data(b).base64EncodedString()
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeEmbedded(_ text: String, type: ObjectSchema, schema: Schema?) -> Value {
        // JSON written by hand (not a flat object) is read by Foundation's general reader, as before.
        guard let fields = EmbeddedJSON.fields(text) ?? EmbeddedJSON.looseFields(text) else { return .null }
        var out: [String: Value] = [:]
        for p in type.properties where p.isStored {
            // A key the stored object lacks is a property added to the embedded type since it was written.
            guard let field = fields[p.name] else {
                out[p.name] = p.effectiveDefault
                continue
            }
            out[p.name] = decode(field.stored(as: p.type), as: p.type, schema: schema)
        }
        return .embedded(out)
    }
}

extension Value {
    /// A short name of the value's kind for error messages.
    public var kindName: String {
        switch self {
        case .null: "nil"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .decimal: "decimal"
        case .link(let t): "link(\(t.type))"
        case .list: "list"
        case .embedded: "embedded object"
        }
    }
}
