import Foundation

/// An embedded object's stored JSON read exactly. Foundation's `JSONSerialization` on Linux reads many doubles
/// one unit in the last place off (`0.30000000000000004` came back as `0.3000000000000001`: 37% of random
/// doubles), and whole numbers through a double; `JSONDecoder` reads both exactly. Only a flat object of
/// numbers, strings, booleans and nulls is read here (what the store writes); anything else gives nil and the
/// caller falls back to its general reader.
package enum EmbeddedJSON {
    /// One value of the object, as it is stored: whole numbers as 64-bit integers, other numbers as doubles.
    package enum Field: Decodable, Sendable, Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case bool(Bool)
        case null

        package init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let i = try? c.decode(Int64.self) {
                // `-0` (a double's negative zero, as the store writes it) keeps its sign.
                if i == 0, let d = try? c.decode(Double.self), d.sign == .minus {
                    self = .real(d)
                } else {
                    self = .integer(i)
                }
            } else if let d = try? c.decode(Double.self) {
                self = .real(d)
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else {
                self = .text(try c.decode(String.self))
            }
        }
    }

    /// The object's fields, or nil when the text is not a flat JSON object.
    package static func fields(_ text: String) -> [String: Field]? {
        try? JSONDecoder().decode([String: Field].self, from: Data(text.utf8))
    }

    /// The fields of any JSON object (one written by hand, with arrays or objects inside, which read as null),
    /// through `JSONSerialization`: whole numbers exactly, other numbers as it reads them. Nil for no object.
    package static func looseFields(_ text: String) -> [String: Field]? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            return nil
        }
        return object.mapValues { raw in
            switch raw {
            case let n as NSNumber: (n as? Int64).map(Field.integer) ?? .real(n.doubleValue)
            case let s as String: .text(s)
            default: .null
            }
        }
    }
}

extension EmbeddedJSON.Field {
    /// The field as the stored value of a property of `type`: data is base64 text in the JSON and bytes here,
    /// booleans are 0 and 1, dates, UUIDs and nested embedded objects stay text.
    package func stored(as type: PropertyType) -> SQLValue {
        switch self {
        case .integer(let i): .integer(i)
        case .real(let d): .real(d)
        case .bool(let b): .integer(b ? 1 : 0)
        case .null: .null
        case .text(let s): type == .data ? .blob([UInt8](Data(base64Encoded: s) ?? Data())) : .text(s)
        }
    }
}
