import Foundation

/// Key paths of `FieldProjection` (`urna query --fields`) as SQL, so a server can compute them
/// (`PostgresQuery`): one value per object, or the values of one list's elements in the list's order.
extension QueryCompiler {
    /// A projected key path laid out as SQL over the root's alias.
    public struct ProjectedTerm: Sendable {
        /// The value: over the root alias when `from` is nil, else over the aliases `from` joins.
        public let value: String
        /// `FROM ... WHERE <correlation>` reaching the value, nil for a column of the root.
        public let from: String?
        /// For a path through a list: the ORDER BY of its elements (nil: one value).
        public let order: String?
        /// The type the values decode as; `.link` for a list's elements themselves (`elementKeys`).
        public let type: PropertyType
        /// The values are the elements' own keys (`goods`), as `FieldProjection` gives them.
        public let elementKeys: Bool
    }

    /// The SQL of `keyPath` as `FieldProjection.resolve` reads it, or nil when it has no such SQL here: into
    /// an embedded object's properties, through more than one list, or through an inverse list.
    public func projectedTerm(_ keyPath: String, on type: String, alias: String = "t0") throws -> ProjectedTerm? {
        let root = try tableType(type)
        var aliases = AliasSource(avoiding: alias)
        let path = PredicateKeyPath(stringLiteral: keyPath)
        let resolved = try resolve(path, from: root, alias: alias, aliases: &aliases)
        let from = resolved.hops.isEmpty ? nil : fromClause(resolved.hops).sql
        let toMany = resolved.hops.filter(\.toMany)
        let type: PropertyType
        switch resolved.end {
        case .count: type = .int64
        case .property(let p):
            if resolved.insideEmbedded { return nil }
            type = p.type
        case .link(let target): type = .link(target)
        case .embeddedObject(let t):
            if resolved.insideEmbedded { return nil }
            type = .embedded(t)
        case .aggregate: return nil
        }
        // FieldProjection stops at a nil link (nil, where a count or a list of values would be 0 or empty).
        if !toMany.isEmpty, resolved.hops.first?.toMany != true { return nil }
        if resolved.isAggregate || toMany.isEmpty {
            return ProjectedTerm(value: resolved.value.sql, from: from, order: nil, type: type, elementKeys: false)
        }
        guard toMany.count == 1, !toMany[0].order.isEmpty else { return nil }
        return ProjectedTerm(
            value: resolved.value.sql, from: from, order: toMany[0].order, type: type,
            elementKeys: resolved.endsAtCollection)
    }
}
