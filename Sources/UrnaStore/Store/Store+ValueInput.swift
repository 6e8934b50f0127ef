import Foundation

extension Store {
    /// Converts a Swift value given by a caller into a Value for property `p`.
    func toValue(_ raw: Any, for p: Property, in type: String) throws -> Value {
        if let v = Value.loose(raw) { return v }
        switch raw {
        case let e as any RawRepresentable:
            return try toValue(e.rawValue, for: p, in: type)
        case let d as [String: Any]:
            var out: [String: Value] = [:]
            guard case .embedded(let target) = p.type, let tt = schema[type: target] else {
                throw StoreError.typeMismatch(type: type, property: p.name, expected: p.type.name, got: "a dictionary")
            }
            for (k, v) in d {
                guard let ep = tt[property: k] else { throw StoreError.unknownProperty(type: target, property: k) }
                out[k] = try ValueCodec.coerce(try toValue(v, for: ep, in: target), to: ep, in: target, schema: schema)
            }
            for ep in tt.storedProperties where out[ep.name] == nil { out[ep.name] = ep.effectiveDefault }
            return .embedded(out)
        case is NSNull: return .null
        default:
            if case Optional<Any>.none = raw as Any? { return .null }
            let mirror = Mirror(reflecting: raw)
            if mirror.displayStyle == .optional {
                guard let inner = mirror.children.first?.value else { return .null }
                return try toValue(inner, for: p, in: type)
            }
            throw StoreError.typeMismatch(
                type: type, property: p.name, expected: p.type.name, got: "\(Swift.type(of: raw))")
        }
    }

    func deepCopyValue(_ v: Value, from obj: DynamicObject) throws -> Any {
        guard let source = obj.store else { return v }
        switch v {
        case .link(let t):
            guard let o = try source.object(ofType: t.type, forPrimaryKey: t.key) else { return Value.null }
            return o
        case .list(let items):
            return try items.compactMap { try source.object(ofType: $0.type, forPrimaryKey: $0.key) } as [Any]
        default:
            return v
        }
    }
}
