import Foundation
import UrnaStore

/// The rules for converting one property's values from its old declaration to its new one.
struct PropertyConversion {
    let kind: ConversionKind
    /// Why, in words (`int64 → int16 may not fit`).
    let reason: String
    /// The allowance that permits it without a closure, when one applies.
    let allowance: MigrationAllowance?

    /// Classifies the change of `old` (in `oldSchema`) into `new` (in `newSchema`) of type `type`.
    static func classify(type: String, old: Property, new: Property, oldSchema: Schema, newSchema: Schema)
        -> PropertyConversion
    {
        let typeConversion = classifyType(old.type, new.type, oldSchema: oldSchema, newSchema: newSchema)
        if typeConversion.kind == .needsClosure {
            return PropertyConversion(
                kind: .needsClosure, reason: typeConversion.reason,
                allowance: .lossyConversion(type: type, property: new.name))
        }
        if old.optional && !new.optional && new.isStored {
            if new.defaultValue != nil {
                // Text defaults are quoted, so an empty one reads `""` rather than nothing.
                let stored = ValueCodec.encode(new.effectiveDefault, as: new.type)
                let shown: String
                if case .text(let t) = stored { shown = "\"\(t)\"" } else { shown = "\(stored)" }
                return PropertyConversion(kind: .widening, reason: "nil becomes the default \(shown)", allowance: nil)
            }
            return PropertyConversion(
                kind: .needsClosure, reason: "optional becomes required and has no default",
                allowance: .nullsBecomeDefault(type: type, property: new.name))
        }
        if typeConversion.kind == .identical && old.optional == new.optional {
            return PropertyConversion(kind: .identical, reason: "", allowance: nil)
        }
        let reason = typeConversion.kind == .identical ? "required becomes optional" : typeConversion.reason
        return PropertyConversion(kind: .widening, reason: reason, allowance: nil)
    }

    /// An embedded type that only gains properties a reader can fill (optional, or with a default) keeps every
    /// stored object as it is: absent keys read as the added properties' defaults. Any other change of shape
    /// (a property removed, retyped or added required without a default) needs a closure or an allowance.
    static func embeddedChange(_ e: String, oldSchema: Schema, newSchema: Schema) -> (
        kind: ConversionKind, reason: String
    ) {
        let changed = (kind: ConversionKind.needsClosure, reason: "embedded type \(e) changes shape")
        guard let o = oldSchema[type: e], let n = newSchema[type: e], o.embedded, n.embedded else { return changed }
        for p in o.properties where p.isStored {
            guard let q = n[property: p.name], q.isStored else {
                return (.needsClosure, "embedded type \(e) changes shape: \(e).\(p.name) is removed")
            }
            let c = classify(type: e, old: p, new: q, oldSchema: oldSchema, newSchema: newSchema)
            guard c.kind == .identical else {
                return (.needsClosure, "embedded type \(e) changes shape: \(e).\(p.name) changes")
            }
        }
        let added = n.properties.filter { $0.isStored && o[property: $0.name] == nil }
        if let required = added.first(where: { !$0.optional && $0.defaultValue == nil }) {
            return (
                .needsClosure,
                "embedded type \(e) changes shape: \(e).\(required.name) is added required without a default"
            )
        }
        return (
            .widening, "embedded type \(e) gains \(added.map(\.name).joined(separator: ", ")), read as their defaults"
        )
    }

    /// Whether embedded type `e` or any embedded type it holds, however deep, has another shape in `newSchema`
    /// (an unchanged `Outer` holding a changed `Geo` changes shape: its stored JSON holds Geo's).
    static func embeddedDiffers(_ e: String, oldSchema: Schema, newSchema: Schema, seen: Set<String> = []) -> Bool {
        guard let o = oldSchema[type: e], let n = newSchema[type: e] else {
            return oldSchema[type: e] != newSchema[type: e]
        }
        if o != n { return true }
        for p in o.properties where p.isStored {
            if case .embedded(let inner) = p.type, !seen.contains(inner),
                embeddedDiffers(inner, oldSchema: oldSchema, newSchema: newSchema, seen: seen.union([e]))
            {
                return true
            }
        }
        return false
    }

    static func classifyType(_ a: PropertyType, _ b: PropertyType, oldSchema: Schema, newSchema: Schema) -> (
        kind: ConversionKind, reason: String
    ) {
        if a == b {
            if case .embedded(let e) = a, embeddedDiffers(e, oldSchema: oldSchema, newSchema: newSchema) {
                return embeddedChange(e, oldSchema: oldSchema, newSchema: newSchema)
            }
            return (.identical, "")
        }
        let arrow = "\(a.name) → \(b.name)"
        func rank(_ t: PropertyType) -> Int? {
            switch t {
            case .bool: 0
            case .int8: 1
            case .int16: 2
            case .int32: 3
            case .int64: 4
            default: nil
            }
        }
        switch (a, b) {
        case _ where rank(a) != nil && rank(b) != nil:
            return rank(a)! < rank(b)! ? (.widening, "\(arrow) widens") : (.needsClosure, "\(arrow) may not fit")
        case (.float, .double):
            return (.widening, "\(arrow) widens")
        case (.double, .float):
            return (.needsClosure, "\(arrow) loses precision")
        case (.bool, .float), (.int8, .float), (.int16, .float), (.bool, .double), (.int8, .double), (.int16, .double),
            (.int32, .double):
            return (.widening, "\(arrow) is exact")
        case (.int32, .float), (.int64, .float), (.int64, .double):
            return (.needsClosure, "\(arrow) loses precision above 2^\(b == .float ? 24 : 53)")
        case (.bool, .decimal(let s)), (.int8, .decimal(let s)), (.int16, .decimal(let s)), (.int32, .decimal(let s)):
            return s <= 9 ? (.widening, "\(arrow) is exact") : (.needsClosure, "\(arrow) may overflow")
        case (.int64, .decimal(let s)):
            return s == 0 ? (.widening, "\(arrow) is exact") : (.needsClosure, "\(arrow) may overflow")
        case (.decimal(let s), .decimal(let t)):
            return t >= s ? (.widening, "\(arrow) keeps every digit") : (.needsClosure, "\(arrow) drops digits")
        case (.link(let x), .link(let y)), (.list(let x), .list(let y)):
            return x == y ? (.identical, "") : (.needsClosure, "\(arrow) points at another type")
        case (.linkingObjects, .linkingObjects):
            return (.identical, "")
        case (.double, .decimal), (.float, .decimal):
            return (.needsClosure, "\(arrow): binary floating point to exact decimal may round")
        default:
            return (.needsClosure, "\(arrow) changes kind")
        }
    }
}
