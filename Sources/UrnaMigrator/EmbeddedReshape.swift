import Foundation
import UrnaStore

/// Carries a stored embedded object (JSON text) into a new shape of its embedded type, property by property, and
/// says whether anything was lost: a removed property's non-nil value, a value that has no exact value of its new
/// type, a nil that a required property without a default turns into its zero value, a required property added
/// without a default. Before this, such a change passed the old JSON through as "exact": a case-only rename
/// (`text` → `Text`) left every value under the old key, where the new version never reads it (issue 14's sixth
/// trial).
enum EmbeddedReshape {
    /// The stored value of `new` holding `value` (stored as `old`), and whether it keeps everything; nil when
    /// the stored text is no embedded object.
    static func reshape(
        _ value: SQLValue, from old: ObjectSchema, in oldSchema: Schema, to new: ObjectSchema, in newSchema: Schema
    ) -> (value: SQLValue, exact: Bool)? {
        guard case .embedded(let fields) = ValueCodec.decode(value, as: .embedded(old.name), schema: oldSchema) else {
            return nil
        }
        var exact = true
        var out: [String: Value] = [:]
        for p in old.properties where p.isStored {
            let v = fields[p.name] ?? .null
            guard let q = new[property: p.name], q.isStored else {
                if v != .null { exact = false }
                continue
            }
            guard v != .null else { continue }
            let stored = ValueCodec.encode(v, as: p.type, schema: oldSchema)
            if p.type == q.type, case .embedded(let e) = p.type, let o = oldSchema[type: e], let n = newSchema[type: e],
                o != n
            {
                let (inner, same) = reshape(stored, from: o, in: oldSchema, to: n, in: newSchema) ?? (.null, false)
                out[q.name] = ValueCodec.decode(inner, as: q.type, schema: newSchema)
                if !same { exact = false }
                continue
            }
            guard let (converted, same) = StoredValueConverter.convert(stored, from: p.type, to: q.type) else {
                exact = false
                continue
            }
            out[q.name] = ValueCodec.decode(converted, as: q.type, schema: newSchema)
            if !same { exact = false }
        }
        for q in new.properties where q.isStored && (out[q.name] ?? .null) == .null && !q.optional {
            // A required property with nothing to hold: its default, which is a loss when it has none declared (a
            // nil made "" or an added property every object gets the zero value of) unless the type had it required.
            if q.defaultValue == nil, old[property: q.name].map({ $0.optional || !$0.isStored }) ?? true {
                exact = false
            }
            out[q.name] = q.effectiveDefault
        }
        return (ValueCodec.encode(.embedded(out), as: .embedded(new.name), schema: newSchema), exact)
    }
}
