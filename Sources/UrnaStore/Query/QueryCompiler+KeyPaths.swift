import Foundation

/// Key paths -> SQL, following the storage contract (StorageLayout):
/// - a to-one link hop joins the target table on its key column;
/// - a list hop joins the list table `<Type>_<property>` on `owner`, then the target on `target`;
/// - a linkingObjects hop joins the origin table on its link column, or the origin's list table on
///   `target` and then the origin on `owner`;
/// - an embedded object's properties are read with `json_extract` from its JSON column.
///
/// A path with only to-one hops becomes a correlated scalar subquery; one through a list becomes the
/// FROM/JOIN chain of an EXISTS (ANY/ALL/NONE) or of an aggregate (`@count`, `@sum`, ...).
extension QueryCompiler {
    /// What a key path ends at.
    enum PathEnd {
        case property(Property)
        /// A link (or a list element, or an inverse-link element): the SQL yields the target's key.
        case link(target: String)
        /// The embedded object itself (its JSON column): only nil checks apply.
        case embeddedObject(String)
        case count
        /// `@sum`, `@min`, `@max` or `@avg` over a property of the collection's elements.
        case aggregate(function: String, Property)
    }

    /// One table joined on the way along a key path.
    struct Hop {
        let table: String
        let alias: String
        /// Join condition; for the first hop, the correlation with the outer query.
        let condition: SQLFragment
        let toMany: Bool
        /// LEFT JOIN: a to-one hop after a list hop (an element with a nil link is still an element).
        let outer: Bool
        /// For a to-many hop, the order its elements come in as a list or linkingObjects results (position,
        /// or the origin's key); empty when that order is not a join's (an inverse list, which is distinct).
        var order: String = ""
    }

    /// A key path checked against the schema and laid out as joins plus an expression.
    struct ResolvedPath {
        var hops: [Hop] = []
        /// The value, over the last hop's alias (or the root alias when there are no hops).
        var value: SQLFragment = ""
        var end: PathEnd = .count
        /// The path as written, for messages.
        var display: String
        var position: Int
        /// The path names a list or linkingObjects property itself (its value is each element's key).
        var endsAtCollection = false
        /// The path reads a property inside an embedded object's JSON.
        var insideEmbedded = false

        var throughList: Bool { hops.contains { $0.toMany } }
        var isAggregate: Bool {
            switch end {
            case .count, .aggregate: true
            default: false
            }
        }
        /// True when the path names many values, so a comparison needs ANY, ALL or NONE.
        var needsQuantifier: Bool { throughList && !isAggregate }
    }

    /// Fresh subquery aliases (`x1`, `x2`, ...), distinct from the caller's alias.
    struct AliasSource {
        let prefix: String
        var counter = 0

        init(avoiding alias: String) { prefix = alias.hasPrefix("x") ? "y" : "x" }

        mutating func next() -> String {
            counter += 1
            return prefix + String(counter)
        }
    }

    static let aggregateFunctions: [String: String] = ["@sum": "SUM", "@min": "MIN", "@max": "MAX", "@avg": "AVG"]

    /// Checks `path` against the schema from `root` (rows aliased `alias`) and lays it out.
    func resolve(_ path: PredicateKeyPath, from root: ObjectSchema, alias: String, aliases: inout AliasSource) throws
        -> ResolvedPath
    {
        let names = path.components
        func position(_ i: Int) -> Int { i < path.positions.count ? path.positions[i].offset : 0 }
        func shown(_ i: Int) -> String { names[0...i].joined(separator: ".") }
        var out = ResolvedPath(display: path.description, position: position(0))
        guard let first = names.first, !first.isEmpty else {
            throw QueryPredicateError(at: position(0), "expected a key path")
        }
        var current = root
        var currentAlias = alias
        var i = 0
        while i < names.count {
            let name = names[i]
            if name.hasPrefix("@") {
                let message =
                    i == 0
                    ? "\(name) needs a key path before it, like goods.\(name)" : "nothing can follow \(names[i - 1])"
                throw QueryPredicateError(at: position(i), message)
            }
            let p = try property(name, of: current, at: position(i))
            let next: String? = i + 1 < names.count ? names[i + 1] : nil
            if let next, next.hasPrefix("@") {
                switch p.type {
                case .list, .linkingObjects: break
                default:
                    throw QueryPredicateError(
                        at: position(i + 1),
                        "\(next) needs a list or linkingObjects property; \(shown(i)) is \(Self.article(p.type))")
                }
            }
            let key = current.keyColumn
            switch p.type {
            case .link(let target):
                if next == nil {
                    out.value = "\(raw: currentAlias).\(quoted: p.name)"
                    out.end = .link(target: target)
                } else {
                    let t = try tableType(target)
                    let a = aliases.next()
                    out.hops.append(
                        Hop(
                            table: t.name, alias: a,
                            condition: "\(raw: a).\(quoted: t.keyColumn) = \(raw: currentAlias).\(quoted: p.name)",
                            toMany: false, outer: out.throughList))
                    current = t
                    currentAlias = a
                }
            case .list(let target):
                let t = try tableType(target)
                let l = aliases.next()
                out.hops.append(
                    Hop(
                        table: StorageLayout.listTable(type: current.name, property: p.name), alias: l,
                        condition: "\(raw: l).\"owner\" = \(raw: currentAlias).\(quoted: key)", toMany: true,
                        outer: false, order: "\(l).\"position\""))
                if next == nil {
                    out.value = "\(raw: l).\"target\""
                    out.end = .link(target: target)
                    out.endsAtCollection = true
                } else if next == "@count" {
                    return try finishCount(out, names: names, at: i + 1, position: position)
                } else {
                    let a = aliases.next()
                    out.hops.append(
                        Hop(
                            table: t.name, alias: a,
                            condition: "\(raw: a).\(quoted: t.keyColumn) = \(raw: l).\"target\"",
                            toMany: false, outer: false))
                    current = t
                    currentAlias = a
                    if let next, next.hasPrefix("@") {
                        return try finishAggregate(out, names: names, at: i + 1, over: t, alias: a, position: position)
                    }
                }
            case .linkingObjects(let originName, let originProperty):
                let origin = try tableType(originName)
                guard let link = origin[property: originProperty] else {
                    throw QueryPredicateError(
                        at: position(i),
                        "\(current.name).\(p.name) is the inverse of unknown \(originName).\(originProperty)")
                }
                var originAlias: String
                if case .list = link.type {
                    let l = aliases.next()
                    out.hops.append(
                        Hop(
                            table: StorageLayout.listTable(type: origin.name, property: link.name), alias: l,
                            condition: "\(raw: l).\"target\" = \(raw: currentAlias).\(quoted: key)", toMany: true,
                            outer: false))
                    if next == nil {
                        out.value = "\(raw: l).\"owner\""
                        out.end = .link(target: origin.name)
                        out.endsAtCollection = true
                        break
                    }
                    if next == "@count" { return try finishCount(out, names: names, at: i + 1, position: position) }
                    originAlias = aliases.next()
                    out.hops.append(
                        Hop(
                            table: origin.name, alias: originAlias,
                            condition: "\(raw: originAlias).\(quoted: origin.keyColumn) = \(raw: l).\"owner\"",
                            toMany: false, outer: false))
                } else {
                    originAlias = aliases.next()
                    out.hops.append(
                        Hop(
                            table: origin.name, alias: originAlias,
                            condition: "\(raw: originAlias).\(quoted: link.name) = \(raw: currentAlias).\(quoted: key)",
                            toMany: true,
                            outer: false, order: "\(originAlias).\(Identifier.quoted(origin.keyColumn))"))
                    if next == nil {
                        out.value = "\(raw: originAlias).\(quoted: origin.keyColumn)"
                        out.end = .link(target: origin.name)
                        out.endsAtCollection = true
                        break
                    }
                    if next == "@count" { return try finishCount(out, names: names, at: i + 1, position: position) }
                }
                current = origin
                currentAlias = originAlias
                if let next, next.hasPrefix("@") {
                    return try finishAggregate(
                        out, names: names, at: i + 1, over: origin, alias: originAlias, position: position)
                }
            case .embedded(let target):
                if next == nil {
                    out.value = "\(raw: currentAlias).\(quoted: p.name)"
                    out.end = .embeddedObject(target)
                } else {
                    return try finishEmbedded(
                        out, names: names, at: i + 1, column: "\(raw: currentAlias).\(quoted: p.name)", type: target,
                        position: position)
                }
            default:
                if let next {
                    throw QueryPredicateError(
                        at: position(i + 1), "\(shown(i)) is \(Self.article(p.type)); it has no property '\(next)'")
                }
                out.value = "\(raw: currentAlias).\(quoted: p.name)"
                out.end = .property(p)
            }
            i += 1
        }
        return out
    }

    private func finishCount(_ path: ResolvedPath, names: [String], at i: Int, position: (Int) -> Int) throws
        -> ResolvedPath
    {
        if i + 1 < names.count { throw QueryPredicateError(at: position(i + 1), "nothing can follow @count") }
        var out = path
        out.value = "COUNT(*)"
        out.end = .count
        return out
    }

    private func finishAggregate(
        _ path: ResolvedPath, names: [String], at i: Int, over element: ObjectSchema, alias: String,
        position: (Int) -> Int
    ) throws -> ResolvedPath {
        let op = names[i]
        guard let function = Self.aggregateFunctions[op] else {
            throw QueryPredicateError(
                at: position(i), "unknown collection operator '\(op)': use @count, @sum, @min, @max or @avg")
        }
        guard i + 1 < names.count else {
            throw QueryPredicateError(
                at: position(i), "\(op) needs the property to aggregate, like \(names[i - 1]).\(op).value")
        }
        if i + 2 < names.count {
            throw QueryPredicateError(at: position(i + 2), "nothing can follow \(names[i]).\(names[i + 1])")
        }
        let p = try property(names[i + 1], of: element, at: position(i + 1))
        let numeric: Bool
        switch p.type {
        case .int8, .int16, .int32, .int64, .float, .double, .decimal: numeric = true
        case .date: numeric = false
        default:
            throw QueryPredicateError(
                at: position(i + 1), "\(op) needs a number property; \(names[i + 1]) is \(Self.article(p.type))")
        }
        if !numeric && (op == "@sum" || op == "@avg") {
            throw QueryPredicateError(at: position(i + 1), "\(op) needs a number property; \(names[i + 1]) is a date")
        }
        var out = path
        var column: SQLFragment = "\(raw: alias).\(quoted: p.name)"
        // PostgreSQL's sum(real) adds in single precision (16777216 + 1 + 1 stays 16777216); SQLite adds as doubles.
        if dialect == .postgres, op == "@sum", p.type == .float { column = "(\(column))::float8" }
        // Realm's @sum of an empty collection is 0, not nil.
        out.value = op == "@sum" ? "COALESCE(SUM(\(column)), 0)" : "\(raw: function)(\(column))"
        out.end = .aggregate(function: op, p)
        return out
    }

    private func finishEmbedded(
        _ path: ResolvedPath, names: [String], at start: Int, column: SQLFragment, type: String, position: (Int) -> Int
    ) throws -> ResolvedPath {
        var out = path
        out.insideEmbedded = true
        var jsonPath: [String] = []
        var current = try embeddedType(type, at: position(start - 1))
        for i in start..<names.count {
            let p = try property(names[i], of: current, at: position(i))
            // The path is a literal so it also works in ORDER BY; its names are validated identifiers.
            jsonPath.append(p.name)
            let last = i == names.count - 1
            let shown = names[0...i].joined(separator: ".")
            switch p.type {
            case .embedded(let t) where !last:
                current = try embeddedType(t, at: position(i))
            case .embedded(let t):
                out.value = embeddedValue(column, path: jsonPath, end: nil)
                out.end = .embeddedObject(t)
            case .bool, .int8, .int16, .int32, .int64, .float, .double, .string, .date, .uuid, .decimal:
                if !last {
                    throw QueryPredicateError(
                        at: position(i + 1),
                        "\(shown) is \(Self.article(p.type)); it has no property '\(names[i + 1])'"
                    )
                }
                out.value = embeddedValue(column, path: jsonPath, end: p.type)
                out.end = .property(p)
            default:
                throw QueryPredicateError(
                    at: position(i),
                    "\(shown) is \(Self.article(p.type)) inside an embedded object, which queries cannot reach"
                )
            }
        }
        return out
    }

    // MARK: - Schema lookups

    func property(_ name: String, of type: ObjectSchema, at position: Int) throws -> Property {
        guard let p = type[property: name], Identifier.isValid(name) else {
            var message = "\(type.name) has no property '\(name)'"
            if let guess = Self.suggestion(for: name, among: type.properties.map(\.name)) {
                message += " (did you mean '\(guess)'?)"
            }
            throw QueryPredicateError(at: position, message)
        }
        if p.ignored {
            throw QueryPredicateError(
                at: position, "\(type.name).\(name) is ignored (not stored), so queries cannot use it")
        }
        return p
    }

    func tableType(_ name: String) throws -> ObjectSchema {
        guard let t = schema[type: name], !t.embedded, Identifier.isValid(name), Identifier.isValid(t.keyColumn) else {
            throw StoreError.unknownType(name)
        }
        return t
    }

    private func embeddedType(_ name: String, at position: Int) throws -> ObjectSchema {
        guard let t = schema[type: name], t.embedded else {
            throw QueryPredicateError(at: position, "embedded type '\(name)' is not in the schema")
        }
        return t
    }

    /// The closest name within two edits (one for short names), ignoring case, for "did you mean" hints.
    static func suggestion(for name: String, among candidates: [String]) -> String? {
        let limit = name.count <= 3 ? 1 : 2
        var best: (name: String, distance: Int)?
        for c in candidates {
            let d = editDistance(name.lowercased(), c.lowercased())
            if d <= limit, d < (best?.distance ?? Int.max) { best = (c, d) }
        }
        return best?.name
    }

    /// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    /// "a string", "an int64", "a link to Party", ... for messages.
    static func article(_ type: PropertyType) -> String {
        switch type {
        case .int8, .int16, .int32, .int64: "an \(type.name)"
        case .link(let t): "a link to \(t)"
        case .list(let t): "a list of \(t)"
        case .linkingObjects(let t, let p): "the objects of \(t) linking here through \(p)"
        case .embedded(let t): "an embedded \(t)"
        default: "a \(type.name)"
        }
    }

    // MARK: - SQL

    /// `FROM a JOIN b ON ... WHERE <correlation>` for a path's hops.
    func fromClause(_ hops: [Hop]) -> SQLFragment {
        var out: SQLFragment = "FROM \(quoted: hops[0].table) \(raw: hops[0].alias)"
        for h in hops.dropFirst() {
            out = "\(out) \(raw: h.outer ? "LEFT JOIN" : "JOIN") \(quoted: h.table) \(raw: h.alias) ON \(h.condition)"
        }
        return "\(out) WHERE \(hops[0].condition)"
    }

    /// The path as one value: its column, or a correlated scalar subquery (to-one hops, aggregates).
    func scalarSQL(_ path: ResolvedPath) -> SQLFragment {
        if path.hops.isEmpty { return path.value }
        return "(SELECT \(path.value) \(fromClause(path.hops)))"
    }
}
