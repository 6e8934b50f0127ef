import Foundation

/// The JSON form of a schema that a file records about itself (and `urna schema` prints).
public enum SchemaDescriptor {
    /// Stable, pretty JSON (sorted keys) so equal schemas give equal text and checksums.
    public static func encode(_ schema: Schema) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? e.encode(schema)) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Decodes and validates a descriptor; errors say what is wrong.
    public static func decode(_ json: String) throws -> Schema {
        let s: Schema
        do {
            s = try JSONDecoder().decode(Schema.self, from: Data(json.utf8))
        } catch let e as DecodingError {
            throw StoreError.schemaMismatch(DamagedDescriptor.prefix + describe(e))
        }
        try s.validate()
        return s
    }

    static func describe(_ e: DecodingError) -> String {
        switch e {
        case .dataCorrupted(let c): return c.debugDescription + path(c.codingPath)
        case .keyNotFound(let k, let c): return "missing key '\(k.stringValue)'" + path(c.codingPath)
        case .typeMismatch(_, let c): return c.debugDescription + path(c.codingPath)
        case .valueNotFound(_, let c): return c.debugDescription + path(c.codingPath)
        @unknown default: return "\(e)"
        }
    }

    static func path(_ p: [CodingKey]) -> String {
        p.isEmpty ? "" : " at " + p.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// A short hex checksum (FNV-1a 64) of the descriptor text.
    public static func checksum(_ schema: Schema) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in encode(schema).utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }
}

extension Schema {
    enum CodingKeys: String, CodingKey { case family, version, types, views }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            unchecked: try c.decode(String.self, forKey: .family), version: try c.decode(Int.self, forKey: .version),
            types: try c.decode([ObjectSchema].self, forKey: .types),
            views: try c.decodeIfPresent([SchemaView].self, forKey: .views) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(family, forKey: .family)
        try c.encode(version, forKey: .version)
        try c.encode(types, forKey: .types)
        // Only a schema with views records the key: the descriptors (and checksums) of earlier versions stay as they were.
        if !views.isEmpty { try c.encode(views, forKey: .views) }
    }
}

/// A descriptor a file records that cannot be decoded or used (edited by hand, damaged): how to tell from an error,
/// and the words every command says it with (the file, `_urna_schema`, and the way back).
public enum DamagedDescriptor {
    /// How `SchemaDescriptor.decode` begins its error for a descriptor it cannot decode.
    static let prefix = "the schema descriptor is not valid: "

    /// Why the descriptor cannot be used, when `error` says it cannot (a descriptor that does not decode, or a
    /// schema that does not validate); nil for any other error.
    public static func reason(of error: Error) -> String? {
        switch error {
        case let e as SchemaError: e.description
        case StoreError.schemaMismatch(let m) where m.hasPrefix(prefix): String(m.dropFirst(prefix.count))
        default: nil
        }
    }

    /// "the schema it records in _urna_schema cannot be used (REASON): it was edited by hand or damaged; OUTCOME:
    /// restore the file from a backup (RESTORE, or a copy of PATH.v<N>.bak)", to follow "PATH: ".
    public static func detail(
        path: String, reason: String, outcome: String = "nothing was changed", restore: String = "the restore command"
    ) -> String {
        "the schema it records in \(StorageLayout.schemaTable) cannot be used (\(reason)): it was edited by hand or "
            + "damaged; \(outcome): restore the file from a backup (\(restore), or a copy of \(path).v<N>.bak)"
    }
}
