import Foundation

/// One object type: a name, its properties in declaration order, and whether it is embedded.
public struct ObjectSchema: Sendable, Hashable, Codable {
    public var name: String
    public var properties: [Property]
    /// Embedded objects have no table of their own; they live inside their owner's row.
    public var embedded: Bool

    public init(_ name: String, embedded: Bool = false, _ properties: [Property]) {
        self.name = name
        self.properties = properties
        self.embedded = embedded
    }

    /// The primary-key property, if the type declares one.
    public var primaryKey: Property? { properties.first { $0.primaryKey } }

    /// The property with this name.
    public subscript(property name: String) -> Property? { properties.first { $0.name == name } }

    /// Properties with a column, in declaration order.
    public var storedProperties: [Property] { properties.filter(\.isStored) }

    /// The column holding the object's identity: the primary key, or `_id` for types without one.
    public var keyColumn: String { primaryKey?.name ?? ObjectSchema.rowIdColumn }

    /// The hidden identity column of types without a primary key.
    public static let rowIdColumn = "_id"

    enum CodingKeys: String, CodingKey { case name, properties, embedded }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        properties = try c.decode([Property].self, forKey: .properties)
        embedded = try c.decodeIfPresent(Bool.self, forKey: .embedded) ?? false
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        if embedded { try c.encode(true, forKey: .embedded) }
        try c.encode(properties, forKey: .properties)
    }
}
