import Foundation
import UrnaStore

/// Carries a stored embedded object (JSON text) into a new shape of its embedded type, property by property, and
/// says whether anything was lost: a removed property's non-nil value, a value that has no exact value of its new
/// type, a nil that a required property without a default turns into its zero value, a required property added
/// without a default. Before this, such a change passed the old JSON through as "exact": a case-only rename
/// (`text` → `Text`) left every value under the old key, where the new version never reads it (issue 14's sixth
/// trial). Values are read from the JSON as stored values (whole numbers as 64-bit integers, never through a
/// double: Int64.max stays Int64.max).
enum EmbeddedReshape {
    /// The stored value of `new` holding `value` (stored as `old`), and whether it keeps everything; nil when
    /// the stored text is no embedded object.
    static func reshape(
        _ value: SQLValue, from old: ObjectSchema, in oldSchema: Schema, to new: ObjectSchema, in newSchema: Schema
    ) -> (value: SQLValue, exact: Bool)? {
        guard case .text(let text) = value, let fields = EmbeddedJSON.fields(text) else { return nil }
        var exact = true
        var out: [String: SQLValue] = [:]
        for p in old.properties where p.isStored {
            let v = stored(fields[p.name], as: p.type)
            guard let q = new[property: p.name], q.isStored else {
                if !v.isNull { exact = false }
                continue
            }
            guard !v.isNull else { continue }
            // A nested embedded object whose type (or one it holds) changed shape, or was renamed: rewritten too.
            if case .embedded(let e) = p.type, case .embedded(let f) = q.type, let o = oldSchema[type: e],
                let n = newSchema[type: f],
                e != f || PropertyConversion.embeddedDiffers(e, oldSchema: oldSchema, newSchema: newSchema)
            {
                let (inner, same) = reshape(v, from: o, in: oldSchema, to: n, in: newSchema) ?? (.null, false)
                out[q.name] = inner
                if !same { exact = false }
                continue
            }
            guard let (converted, same) = StoredValueConverter.convert(v, from: p.type, to: q.type) else {
                exact = false
                continue
            }
            out[q.name] = converted
            if !same { exact = false }
        }
        for q in new.properties where q.isStored && (out[q.name] ?? .null).isNull && !q.optional {
            // A required property with nothing to hold takes its default: a loss when it has none declared (a nil
            // made "", or an added property every object gets the zero value of) unless it was required before.
            if q.defaultValue == nil, old[property: q.name].map({ $0.optional || !$0.isStored }) ?? true {
                exact = false
            }
            out[q.name] = ValueCodec.encode(q.effectiveDefault, as: q.type, schema: newSchema)
        }
        for q in new.properties where q.isStored && out[q.name] == nil { out[q.name] = .null }
        return (.text(json(out)), exact)
    }

    /// A JSON value of an embedded object as the stored value of a property of `type` (dates and UUIDs as text,
    /// data as base64 text in the JSON and bytes here, nested embedded objects as their JSON text). Numbers are
    /// read exactly (`EmbeddedJSON`): a double keeps every bit, a whole number is a 64-bit integer.
    static func stored(_ field: EmbeddedJSON.Field?, as type: PropertyType) -> SQLValue {
        // A whole double an integer or decimal property can hold exactly is that integer (Int64.min as
        // `-9.2233720368547758e+18`).
        if case .real(let d)? = field, type.isInteger || StoredValueConverter.isDecimal(type),
            let i = Int64(exactly: d)
        {
            return .integer(i)
        }
        return field?.stored(as: type) ?? .null
    }

    /// Stored values as the embedded object's JSON (keys sorted, as the store writes it).
    static func json(_ values: [String: SQLValue]) -> String {
        var object: [String: Any] = [:]
        for (k, v) in values {
            switch v {
            case .null: object[k] = NSNull()
            case .integer(let i): object[k] = NSNumber(value: i)
            case .real(let d): object[k] = d
            case .text(let s): object[k] = s
            case .blob(let b): object[k] = Data(b).base64EncodedString()
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
