import Foundation

/// A 12-byte object identifier in MongoDB's layout (4 bytes of seconds since 1970, 5 random bytes, a
/// 3-byte counter), as Realm's `ObjectId`. Stored as its 24-character lowercase hex text, so it sorts by
/// creation second. Declared without a value, `@Persisted(primaryKey: true) var _id: ObjectId` gets a
/// fresh one per object.
public struct ObjectId: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The 12 bytes.
    public let bytes: [UInt8]

    /// A new identifier for this second.
    public static func generate() -> ObjectId {
        let seconds = UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970))
        let count = counter.next()
        var b: [UInt8] = withUnsafeBytes(of: seconds.bigEndian) { Array($0) }
        b += processRandom
        b += [UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8),
              UInt8(truncatingIfNeeded: count)]
        return ObjectId(validBytes: b)
    }

    /// The identifier written as 24 hex digits; nil for any other text.
    public init?(string: String) {
        let chars = Array(string.utf8)
        guard chars.count == 24 else { return nil }
        var b: [UInt8] = []
        b.reserveCapacity(12)
        for i in stride(from: 0, to: 24, by: 2) {
            guard let hi = Self.nibble(chars[i]), let lo = Self.nibble(chars[i + 1]) else { return nil }
            b.append(hi << 4 | lo)
        }
        self.bytes = b
    }

    /// The identifier that reads as this text; throws `StoreError.typeMismatch`-style text when it is
    /// not 24 hex digits (Realm's `ObjectId(string:)` throws too).
    public init(hexString: String) throws {
        guard let id = ObjectId(string: hexString) else {
            throw ObjectIdError(text: hexString)
        }
        self = id
    }

    private init(validBytes: [UInt8]) { self.bytes = validBytes }

    /// The 24 lowercase hex digits.
    public var stringValue: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { stringValue }

    /// The second the identifier was made in.
    public var timestamp: Date {
        let s = bytes[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Date(timeIntervalSince1970: TimeInterval(s))
    }

    public static func < (a: ObjectId, b: ObjectId) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(hexString: text)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(stringValue)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let processRandom: [UInt8] = (0..<5).map { _ in UInt8.random(in: 0...255) }
    private static let counter = Counter()

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = UInt32.random(in: 0..<0xFF_FFFF)
        func next() -> UInt32 {
            lock.lock()
            defer { lock.unlock() }
            value = (value &+ 1) & 0xFF_FFFF
            return value
        }
    }
}

/// Text that is not an `ObjectId`.
public struct ObjectIdError: Error, LocalizedError, CustomStringConvertible, Sendable {
    public let text: String
    public var description: String { "\"\(text)\" is not an ObjectId (24 hexadecimal digits)" }
    public var errorDescription: String? { description }
}

extension ObjectId: PersistableValue {
    public static var persistedType: PropertyType { .string }
    /// A fresh identifier per object, as for UUID keys.
    public static var persistedDefault: ObjectId { generate() }
    public var persistedValue: Value { .string(stringValue) }
    public static func fromPersisted(_ v: Value, store: Store?) -> ObjectId {
        v.stringValue.flatMap { ObjectId(string: $0) } ?? ObjectId(validBytes: Array(repeating: 0, count: 12))
    }
}

extension ObjectId: QueryArgumentConvertible {
    public var queryArgument: QueryArgument { .string(stringValue) }
}

extension URL: PersistableValue {
    /// Stored as its absolute text.
    public static var persistedType: PropertyType { .string }
    /// Only meaningful as `URL?` (Realm's models declare URLs optional); a bare `URL` defaults to
    /// `about:blank`.
    public static var persistedDefault: URL { URL(string: "about:blank")! }
    public var persistedValue: Value { .string(absoluteString) }
    public static func fromPersisted(_ v: Value, store: Store?) -> URL {
        v.stringValue.flatMap { URL(string: $0) } ?? persistedDefault
    }
}

extension URL: QueryArgumentConvertible {
    public var queryArgument: QueryArgument { .string(absoluteString) }
}

/// Realm's `ObjectKeyIdentifiable`: a model that is `Identifiable` (for SwiftUI lists) by its type and
/// primary key once managed, by its instance while unmanaged.
public protocol ObjectKeyIdentifiable: Identifiable {}

/// The identity `ObjectKeyIdentifiable` models report.
public enum ObjectKey: Hashable, Sendable {
    /// A managed object: its type and primary key (or row id).
    case stored(type: String, key: Value)
    /// An unmanaged object: the instance.
    case instance(ObjectIdentifier)
}

extension ObjectKeyIdentifiable where Self: Object {
    public var id: ObjectKey {
        if let m = managedObject, m.isManaged { return .stored(type: m.type.name, key: m.primaryKeyValue) }
        return .instance(ObjectIdentifier(self))
    }
}
