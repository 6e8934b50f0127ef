import Foundation

/// A set of object types at one version of one family: what a file holds and records about itself.
///
/// ```swift
/// let schema = try Schema(family: "people", version: 2, types: [
///     ObjectSchema("Person", [
///         Property("fullName", .string, default: ""),
///         Property("email", .string, default: ""),
///         Property("age", .int64, default: 0),
///     ])
/// ])
/// ```
public struct Schema: Sendable, Hashable, Codable {
    public var family: String
    public var version: Int
    public var types: [ObjectSchema]
    /// Views this version owns (see `SchemaView`): created with the tables, recreated by the migrator.
    public var views: [SchemaView]

    /// Builds and validates a schema; throws `SchemaError` naming the first problem found.
    public init(family: String, version: Int, types: [ObjectSchema], views: [SchemaView] = []) throws {
        self.family = family
        self.version = version
        self.types = types
        self.views = views
        try validate()
    }

    /// Builds a schema without validating it (for decoding; call `validate()` after).
    public init(unchecked family: String, version: Int, types: [ObjectSchema], views: [SchemaView] = []) {
        self.family = family
        self.version = version
        self.types = types
        self.views = views
    }

    /// The view with this name.
    public subscript(view name: String) -> SchemaView? { views.first { $0.name == name } }

    /// The type with this name.
    public subscript(type name: String) -> ObjectSchema? { types.first { $0.name == name } }

    /// Types that have a table of their own (all but embedded ones).
    public var tableTypes: [ObjectSchema] { types.filter { !$0.embedded } }

    /// Every problem with the schema, in a stable order; empty when it is valid.
    public func problems() -> [SchemaError] {
        var errors: [SchemaError] = []
        // SQLite compares table, index and column names without regard to ASCII case, so do we.
        var seenTypes = Set<String>()
        for t in types {
            let folded = t.name.lowercased()
            if !Identifier.isValid(t.name) { errors.append(.invalidName(t.name)) }
            if !seenTypes.insert(folded).inserted { errors.append(.duplicateType(t.name)) }
            if folded.hasPrefix("_urna") || folded.hasPrefix("sqlite_") { errors.append(.reservedName(t.name)) }
        }
        // Tables and indexes the layout derives from properties must not collide with a type's table.
        for v in views {
            let folded = v.name.lowercased()
            if !Identifier.isValid(v.name) { errors.append(.invalidName(v.name)) }
            if !seenTypes.insert(folded).inserted { errors.append(.duplicateType(v.name)) }
            if folded.hasPrefix("_urna") || folded.hasPrefix("sqlite_") { errors.append(.reservedName(v.name)) }
        }
        for t in types where !t.embedded {
            for p in t.properties {
                var derived: [String] = []
                if case .list = p.type {
                    let lt = StorageLayout.listTable(type: t.name, property: p.name)
                    derived += [lt, lt + "_target_idx"]
                }
                if p.isStored { derived.append(StorageLayout.indexName(type: t.name, property: p.name)) }
                for name in derived
                where seenTypes.contains(name.lowercased()) || name.lowercased().hasPrefix("sqlite_") {
                    errors.append(.reservedName("\(name) (the storage layout uses it for \(t.name).\(p.name))"))
                }
            }
        }
        for t in types {
            var seen = Set<String>()
            let keys = t.properties.filter(\.primaryKey)
            if keys.count > 1 { errors.append(.multiplePrimaryKeys(type: t.name, keys.map(\.name))) }
            if t.embedded, let k = keys.first { errors.append(.primaryKeyOnEmbedded(type: t.name, property: k.name)) }
            for p in t.properties {
                if !Identifier.isValid(p.name) { errors.append(.invalidName("\(t.name).\(p.name)")) }
                if !seen.insert(p.name.lowercased()).inserted {
                    errors.append(.duplicateProperty(type: t.name, property: p.name))
                }
                if p.name == ObjectSchema.rowIdColumn && t.primaryKey == nil && !t.embedded {
                    errors.append(.reservedName("\(t.name).\(p.name)"))
                }
                if p.primaryKey {
                    switch p.type {
                    case .int8, .int16, .int32, .int64, .string, .uuid:
                        if p.optional { errors.append(.optionalPrimaryKey(type: t.name, property: p.name)) }
                    default: errors.append(.unsupportedPrimaryKey(type: t.name, property: p.name, p.type))
                    }
                }
                if p.indexed {
                    switch p.type {
                    case .list, .linkingObjects, .data, .embedded:
                        errors.append(.unsupportedIndex(type: t.name, property: p.name, p.type))
                    default: break
                    }
                }
                switch p.type {
                case .link(let target), .list(let target):
                    if let tt = self[type: target] {
                        if tt.embedded, case .list = p.type {
                            errors.append(.listOfEmbedded(type: t.name, property: p.name, target: target))
                        } else if tt.embedded {
                            errors.append(.linkToEmbedded(type: t.name, property: p.name, target: target))
                        }
                    } else {
                        errors.append(.unknownLinkTarget(type: t.name, property: p.name, target: target))
                    }
                    if case .link = p.type, !p.optional {
                        errors.append(.requiredLink(type: t.name, property: p.name))
                    }
                case .embedded(let target):
                    if let tt = self[type: target] {
                        if !tt.embedded {
                            errors.append(.embeddedNotEmbedded(type: t.name, property: p.name, target: target))
                        }
                    } else {
                        errors.append(.unknownLinkTarget(type: t.name, property: p.name, target: target))
                    }
                case .linkingObjects(let origin, let originProperty):
                    guard let o = self[type: origin] else {
                        errors.append(.unknownLinkTarget(type: t.name, property: p.name, target: origin))
                        break
                    }
                    guard let op = o[property: originProperty] else {
                        errors.append(
                            .unknownInverseProperty(
                                type: t.name, property: p.name, origin: origin, originProperty: originProperty))
                        break
                    }
                    switch op.type {
                    case .link(let target) where target == t.name, .list(let target) where target == t.name: break
                    default:
                        errors.append(
                            .inverseNotALink(
                                type: t.name, property: p.name, origin: origin, originProperty: originProperty))
                    }
                default:
                    if !p.optional, let d = p.defaultValue, case .string = d.value(for: p.type), p.type != .string {
                        errors.append(.badDefault(type: t.name, property: p.name))
                    }
                    // A default is written into CREATE TABLE; SQLite reads SQL text only up to a NUL.
                    if case .string(let text)? = p.defaultValue, text.utf8.contains(0) {
                        errors.append(.nulInDefault(type: t.name, property: p.name))
                    }
                }
            }
        }
        return errors
    }

    /// Throws the first problem `problems()` finds.
    public func validate() throws {
        let errors = problems()
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 { throw SchemaError.many(errors) }
    }
}

/// What is wrong with a schema, said so a person can fix it.
public indirect enum SchemaError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    case invalidName(String)
    case reservedName(String)
    case duplicateType(String)
    case duplicateProperty(type: String, property: String)
    case multiplePrimaryKeys(type: String, [String])
    case unsupportedPrimaryKey(type: String, property: String, PropertyType)
    case optionalPrimaryKey(type: String, property: String)
    case primaryKeyOnEmbedded(type: String, property: String)
    case unsupportedIndex(type: String, property: String, PropertyType)
    case unknownLinkTarget(type: String, property: String, target: String)
    case linkToEmbedded(type: String, property: String, target: String)
    /// A `.list` of an embedded type: lists of embedded objects are not supported.
    case listOfEmbedded(type: String, property: String, target: String)
    case embeddedNotEmbedded(type: String, property: String, target: String)
    case requiredLink(type: String, property: String)
    case unknownInverseProperty(type: String, property: String, origin: String, originProperty: String)
    case inverseNotALink(type: String, property: String, origin: String, originProperty: String)
    case badDefault(type: String, property: String)
    case nulInDefault(type: String, property: String)
    case many([SchemaError])

    public var description: String {
        switch self {
        case .invalidName(let n):
            "'\(n)' is not a valid name: use letters, digits and _ , starting with a letter or _ (at most 64 characters)"
        case .reservedName(let n): "'\(n)' is reserved by the store: choose another name"
        case .duplicateType(let n): "type '\(n)' is declared twice"
        case .duplicateProperty(let t, let p): "\(t).\(p) is declared twice"
        case .multiplePrimaryKeys(let t, let ps):
            "\(t) declares more than one primary key (\(ps.joined(separator: ", "))): keep one"
        case .unsupportedPrimaryKey(let t, let p, let ty):
            "\(t).\(p): a primary key must be an integer, string or uuid, not \(ty.name)"
        case .optionalPrimaryKey(let t, let p): "\(t).\(p): a primary key cannot be optional"
        case .primaryKeyOnEmbedded(let t, let p): "\(t).\(p): an embedded type cannot have a primary key"
        case .unsupportedIndex(let t, let p, let ty): "\(t).\(p): a \(ty.name) property cannot be indexed"
        case .unknownLinkTarget(let t, let p, let target): "\(t).\(p) links to unknown type '\(target)'"
        case .linkToEmbedded(let t, let p, let target):
            "\(t).\(p) links to embedded type '\(target)': use .embedded(\"\(target)\") instead"
        case .listOfEmbedded(let t, let p, let target):
            "\(t).\(p) is a list of embedded type '\(target)': lists of embedded objects are not supported; declare "
                + "\(target) as a type of its own (not embedded) with a link back to \(t) (Property(\"owner\", "
                + ".link(\"\(t)\"), optional: true)), and on \(t) a .linkingObjects(type: \"\(target)\", property: "
                + "\"owner\") property in place of the list"
        case .embeddedNotEmbedded(let t, let p, let target):
            "\(t).\(p) embeds '\(target)', which is not declared embedded"
        case .requiredLink(let t, let p): "\(t).\(p): a to-one link must be optional"
        case .unknownInverseProperty(let t, let p, let o, let op):
            "\(t).\(p) is the inverse of \(o).\(op), but \(o) has no property '\(op)'"
        case .inverseNotALink(let t, let p, let o, let op):
            "\(t).\(p) is the inverse of \(o).\(op), which is not a link or list to \(t)"
        case .badDefault(let t, let p): "\(t).\(p): the default value does not fit the property's type"
        case .nulInDefault(let t, let p): "\(t).\(p): a default value cannot contain a NUL character"
        case .many(let errors): errors.map(\.description).joined(separator: "; ")
        }
    }

    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// Names that are safe as SQLite identifiers without surprises.
public enum Identifier {
    /// Letters, digits and `_`, not starting with a digit, 1-64 characters.
    public static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64 else { return false }
        for (i, b) in name.utf8.enumerated() {
            let isLetter = (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95
            let isDigit = b >= 48 && b <= 57
            if !(isLetter || (isDigit && i > 0)) { return false }
        }
        return true
    }

    /// The identifier double-quoted for SQL (only ever applied to validated names).
    public static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
