import Foundation

/// A Swift type that a typed model can store in a `@Persisted` property.
public protocol PersistableValue {
    /// The property type this Swift type maps to.
    static var persistedType: PropertyType { get }
    /// Whether nil is allowed (Optional).
    static var persistedOptional: Bool { get }
    /// The value a property gets when declared without one (`@Persisted var dogs: List<Dog>`).
    static var persistedDefault: Self { get }
    /// The store value of this Swift value.
    var persistedValue: Value { get }
    /// The Swift value of a store value (links are resolved through `store`).
    static func fromPersisted(_ value: Value, store: Store?) -> Self
}

extension PersistableValue {
    public static var persistedOptional: Bool { false }
}

extension Bool: PersistableValue {
    public static var persistedType: PropertyType { .bool }
    public static var persistedDefault: Bool { false }
    public var persistedValue: Value { .bool(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> Bool { v.boolValue ?? false }
}

/// Integers of every width share one implementation.
public protocol PersistableInteger: PersistableValue, FixedWidthInteger {}
extension PersistableInteger {
    public static var persistedDefault: Self { 0 }
    public var persistedValue: Value { .int(Int64(self)) }
    /// A REAL the file holds in an integer column reads as SQLite's `CAST(x AS INTEGER)` gives it (toward zero,
    /// saturated at Int64's bounds), then clamped to this width (an Int8 reads 300.5 as 127, not a wrapped value).
    public static func fromPersisted(_ v: Value, store: Store?) -> Self {
        if case .double(let d) = v { return Self(clamping: sqliteCastToInteger(d)) }
        return Self(truncatingIfNeeded: v.intValue ?? 0)
    }
}

/// SQLite's `CAST(d AS INTEGER)`: truncated toward zero, Int64.min at or below -2^63, Int64.max at or above 2^63
/// (the Double nearest Int64.max), 0 for NaN (a NaN never reaches a file: SQLite stores it as NULL).
func sqliteCastToInteger(_ d: Double) -> Int64 {
    if d.isNaN { return 0 }
    if d <= Double(Int64.min) { return .min }
    if d >= Double(Int64.max) { return .max }
    return Int64(d)
}
extension Int: PersistableInteger { public static var persistedType: PropertyType { .int64 } }
extension Int64: PersistableInteger { public static var persistedType: PropertyType { .int64 } }
extension Int32: PersistableInteger { public static var persistedType: PropertyType { .int32 } }
extension Int16: PersistableInteger { public static var persistedType: PropertyType { .int16 } }
extension Int8: PersistableInteger { public static var persistedType: PropertyType { .int8 } }

extension Double: PersistableValue {
    public static var persistedType: PropertyType { .double }
    public static var persistedDefault: Double { 0 }
    public var persistedValue: Value { .double(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> Double { v.doubleValue ?? 0 }
}
extension Float: PersistableValue {
    public static var persistedType: PropertyType { .float }
    public static var persistedDefault: Float { 0 }
    public var persistedValue: Value { .double(Double(self)) }
    public static func fromPersisted(_ v: Value, store: Store?) -> Float { Float(v.doubleValue ?? 0) }
}
extension String: PersistableValue {
    public static var persistedType: PropertyType { .string }
    public static var persistedDefault: String { "" }
    public var persistedValue: Value { .string(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> String { v.stringValue ?? "" }
}
extension Date: PersistableValue {
    public static var persistedType: PropertyType { .date }
    public static var persistedDefault: Date { Date(timeIntervalSince1970: 0) }
    public var persistedValue: Value { .date(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> Date {
        v.dateValue ?? Date(timeIntervalSince1970: 0)
    }
}
extension Data: PersistableValue {
    public static var persistedType: PropertyType { .data }
    public static var persistedDefault: Data { Data() }
    public var persistedValue: Value { .data(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> Data {
        if case .data(let d) = v { d } else { Data() }
    }
}
extension UUID: PersistableValue {
    public static var persistedType: PropertyType { .uuid }
    /// A fresh random UUID: each object declared `@Persisted(primaryKey: true) var id: UUID` gets its own
    /// (Realm's behaviour), never a shared all-zero one.
    public static var persistedDefault: UUID { UUID() }
    public var persistedValue: Value { .uuid(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> UUID { if case .uuid(let u) = v { u } else { zero } }
    static let zero = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}
extension Decimal: PersistableValue {
    /// Money: two decimal places, stored as integer cents.
    public static var persistedType: PropertyType { .decimal(scale: 2) }
    public static var persistedDefault: Decimal { 0 }
    public var persistedValue: Value { .decimal(self) }
    public static func fromPersisted(_ v: Value, store: Store?) -> Decimal { v.decimalValue ?? 0 }
}

extension Optional: PersistableValue where Wrapped: PersistableValue {
    public static var persistedType: PropertyType { Wrapped.persistedType }
    public static var persistedOptional: Bool { true }
    public static var persistedDefault: Wrapped? { nil }
    public var persistedValue: Value { self?.persistedValue ?? .null }
    public static func fromPersisted(_ v: Value, store: Store?) -> Wrapped? {
        v.isNull ? nil : Wrapped.fromPersisted(v, store: store)
    }
}

/// An enum stored by its raw value (String or integer): `enum Unit: String, PersistableEnum`.
public protocol PersistableEnum: PersistableValue, RawRepresentable, CaseIterable where RawValue: PersistableValue {}
extension PersistableEnum {
    public static var persistedType: PropertyType { RawValue.persistedType }
    public static var persistedDefault: Self { allCases.first! }
    public var persistedValue: Value { rawValue.persistedValue }
    public static func fromPersisted(_ v: Value, store: Store?) -> Self {
        Self(rawValue: RawValue.fromPersisted(v, store: store)) ?? persistedDefault
    }
}
