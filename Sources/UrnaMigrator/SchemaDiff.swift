import Foundation
import UrnaStore

/// What changes between two schemas, type by type: properties added, removed, renamed, retyped;
/// indexes; primary keys; types added and removed.
///
/// ```swift
/// let diff = SchemaDiff(from: v0, to: v1, renames: [PropertyRename(type: "Person", from: "name", to: "fullName")])
/// print(diff.renderText())
/// ```
public struct SchemaDiff: Sendable, Codable, Equatable {
    public let family: String
    public let fromVersion: Int
    public let toVersion: Int
    public var typesAdded: [String]
    public var typesRemoved: [String]
    /// Types present in both schemas that change, in the new schema's order.
    public var typeChanges: [TypeChange]

    /// Compares two schemas; `renames` says which removed+added pairs are one property renamed.
    public init(from old: Schema, to new: Schema, renames: [PropertyRename] = []) {
        family = new.family
        fromVersion = old.version
        toVersion = new.version
        typesAdded = new.types.filter { old[type: $0.name] == nil }.map(\.name)
        typesRemoved = old.types.filter { new[type: $0.name] == nil }.map(\.name)
        typeChanges = new.types.compactMap { n in
            guard let o = old[type: n.name] else { return nil }
            let change = TypeChange(
                old: o, new: n, oldSchema: old, newSchema: new, renames: renames.filter { $0.type == n.name })
            return change.isEmpty ? nil : change
        }
    }

    /// Whether the two schemas declare the same types and properties.
    public var isEmpty: Bool { typesAdded.isEmpty && typesRemoved.isEmpty && typeChanges.isEmpty }

    /// Every property change that needs a closure or an allowance.
    public var changesNeedingClosure: [(type: String, retype: Retype)] {
        typeChanges.flatMap { t in t.retyped.filter { $0.conversion == .needsClosure }.map { (t.type, $0) } }
    }
}

/// The changes of one type present in both schemas.
public struct TypeChange: Sendable, Codable, Equatable {
    public let type: String
    public var added: [PropertySummary] = []
    public var removed: [PropertySummary] = []
    public var renamed: [Rename] = []
    public var retyped: [Retype] = []
    public var indexesAdded: [String] = []
    public var indexesRemoved: [String] = []
    public var primaryKey: PrimaryKeyChange?
    /// Changes of defaults and of `embedded`/`ignored` flags, in words.
    public var other: [String] = []

    /// Whether nothing about the type changes.
    public var isEmpty: Bool {
        added.isEmpty && removed.isEmpty && renamed.isEmpty && retyped.isEmpty && indexesAdded.isEmpty
            && indexesRemoved.isEmpty && primaryKey == nil && other.isEmpty
    }

    init(old: ObjectSchema, new: ObjectSchema, oldSchema: Schema, newSchema: Schema, renames: [PropertyRename]) {
        type = new.name
        var matchedOld = Set<String>()
        for p in new.properties {
            guard let source = renames.sourceName(type: nil, newName: p.name), let o = old[property: source] else {
                added.append(PropertySummary(p))
                continue
            }
            matchedOld.insert(source)
            if source != p.name { renamed.append(Rename(from: source, to: p.name)) }
            let conversion = PropertyConversion.classify(
                type: new.name, old: o, new: p, oldSchema: oldSchema, newSchema: newSchema)
            if conversion.kind != .identical || o.type != p.type || o.optional != p.optional {
                retyped.append(
                    Retype(
                        property: p.name, from: PropertySummary.typeText(o), to: PropertySummary.typeText(p),
                        conversion: conversion.kind, reason: conversion.reason))
            }
            if Retype.wantsIndex(o) != Retype.wantsIndex(p) || o.indexed != p.indexed {
                if p.indexed && !o.indexed { indexesAdded.append(p.name) }
                if o.indexed && !p.indexed { indexesRemoved.append(p.name) }
            }
            if p.isStored && !p.optional && !o.optional
                && ValueCodec.encode(o.defaultValue?.value(for: p.type) ?? p.type.zeroValue, as: p.type)
                    != ValueCodec.encode(p.effectiveDefault, as: p.type)
            {
                other.append(
                    "\(p.name): default \(o.defaultValue.map(Self.text) ?? "none") → \(p.defaultValue.map(Self.text) ?? "none")"
                )
            }
            if o.ignored != p.ignored {
                other.append("\(p.name): \(p.ignored ? "now ignored (no column)" : "now stored")")
            }
        }
        for o in old.properties where !matchedOld.contains(o.name) { removed.append(PropertySummary(o)) }
        let oldKey = old.primaryKey.map { key in renames.first(where: { $0.from == key.name })?.to ?? key.name }
        let newKey = new.primaryKey?.name
        if oldKey != newKey { primaryKey = PrimaryKeyChange(from: old.primaryKey?.name, to: newKey) }
        if old.embedded != new.embedded { other.append(new.embedded ? "now embedded" : "no longer embedded") }
    }

    static func text(_ d: DefaultValue) -> String {
        switch d {
        case .bool(let b): String(b)
        case .int(let i): String(i)
        case .double(let x): String(x)
        case .string(let s): "\"\(s)\""
        }
    }
}

/// A property as a diff shows it: name and type (`email: string = ""`, `site: string?`).
public struct PropertySummary: Sendable, Codable, Equatable {
    public let name: String
    public let type: String

    init(_ p: Property) {
        name = p.name
        type = Self.typeText(p)
    }

    static func typeText(_ p: Property) -> String {
        var s = p.type.name
        if p.optional, p.type.isColumn, !isLink(p.type) { s += "?" }
        if p.primaryKey { s += " (primary key)" }
        if let d = p.defaultValue, !p.optional { s += " = " + TypeChange.text(d) }
        if p.ignored { s += " (ignored)" }
        return s
    }

    static func isLink(_ t: PropertyType) -> Bool { if case .link = t { true } else { false } }
}

/// A property kept under a new name.
public struct Rename: Sendable, Codable, Equatable {
    public let from: String
    public let to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// A property whose type or optionality changes, and what that means for its values.
public struct Retype: Sendable, Codable, Equatable {
    public let property: String
    public let from: String
    public let to: String
    public let conversion: ConversionKind
    public let reason: String

    static func wantsIndex(_ p: Property) -> Bool {
        if case .link = p.type { return true }
        return p.indexed
    }
}

/// A change of which property is the primary key (nil: none, objects are identified by `_id`).
public struct PrimaryKeyChange: Sendable, Codable, Equatable {
    public let from: String?
    public let to: String?
}
