import Foundation

/// Turns predicates into parameterized SQL over the storage contract (StorageLayout), and sort
/// descriptors into ORDER BY terms.
///
/// ```swift
/// let compiler = QueryCompiler(schema: schema)
/// let p = try QueryPredicate.parse("party.acronym == %@ AND goods.@count > 2", arguments: ["PSTU"])
/// let (condition, bindings) = try compiler.compile(p, on: "Candidate")
/// let order = try compiler.orderBy([SortKey(keyPath: "name")], on: "Candidate", alias: "t0")
/// let rows = try connection.rows("SELECT t0.\"id\" FROM \"Candidate\" t0 WHERE \(condition) ORDER BY \(order)", bindings)
/// ```
///
/// Values only ever reach SQL as bound parameters; identifiers only come from the schema, quoted.
///
/// Nil rules (two-valued logic, as in Realm and NSPredicate):
/// - `x == nil` / `x != nil` are `IS NULL` / `IS NOT NULL`; `x != value` matches objects whose `x` is
///   nil; `a == b` between key paths treats two nils as equal.
/// - Any other comparison with a nil side is false, so its negation is true: `NOT age > 18` matches
///   objects with no age. (SQL's `NOT` would give NULL there; NOT compiles to `(...) IS NOT 1`.)
/// - A key path through a nil to-one link is nil (`party.acronym == nil` matches candidates without
///   a party).
/// - `ALL` over an empty list is true, `NONE` is true, `ANY` is false; an element whose comparison is
///   nil fails `ALL`.
///
/// The compiled expression is true exactly where the predicate holds; elsewhere it is false or NULL
/// (both mean "no match" in WHERE; wrap it as `(...) IS 1` to get 0/1 in a result column).
/// `[c]` and `[d]` need `registerFunctions(on:)` to have run on the connection.
///
/// With `dialect: .postgres` the same checks and the same meaning are written as PostgreSQL's SQL over the
/// storage contract there (`SQLDialect`): `$1, $2, ...` parameters with casts, `IS [NOT] DISTINCT FROM`,
/// `IS NOT TRUE`, LIKE with escaped wildcards instead of GLOB, text in the "C" collation, NULLs first in
/// ascending order, jsonb paths, and folding by built-in functions (`PostgresTextFolding`).
public struct QueryCompiler: Sendable {
    public let schema: Schema
    /// The SQL written: SQLite's (the store's) or PostgreSQL's (`PostgresQuery`), meaning the same.
    public let dialect: SQLDialect

    public init(schema: Schema, dialect: SQLDialect = .sqlite) {
        self.schema = schema
        self.dialect = dialect
    }

    /// Registers `urna_fold(text, flags)` (case/diacritic folding for `[c]`, `[d]`, `[cd]`) on a connection.
    public static func registerFunctions(on connection: Connection) throws {
        try connection.registerTextFunction(name: TextFolding.functionName, arity: 2, TextFolding.sqlFold)
    }

    /// A boolean SQL expression over the rows of `type` (aliased `alias`) with its bound values in order.
    ///
    /// Throws `QueryPredicateError` (unknown property, wrong type, bad operator for the type) or
    /// `StoreError.unknownType`.
    public func compile(_ predicate: QueryPredicate, on type: String, alias: String = "t0") throws -> (
        sql: String, bindings: [SQLValue]
    ) {
        let root = try tableType(type)
        try checkAlias(alias)
        var aliases = AliasSource(avoiding: alias)
        let f = try compile(predicate, root: root, alias: alias, aliases: &aliases)
        return (dialect == .postgres ? SQLDialect.numbered(f.sql) : f.sql, f.bindings)
    }

    /// The SQL expressions `Results.distinct(by:)` partitions on, one per key path; the same key paths
    /// as sorting accepts (to-one links, embedded objects), never a list or a whole link.
    public func distinctTerms(_ keyPaths: [String], on type: String, alias: String = "t0") throws -> [String] {
        try keyPaths.map { try toOneTerm($0, on: type, alias: alias, purpose: "make results distinct by").sql }
    }

    /// One value per object for a key path through to-one links (`party.number`) and the property it ends
    /// at (nil when it ends inside an embedded object); throws for lists, whole links and unknown names.
    func toOneTerm(_ keyPath: String, on type: String, alias: String, purpose: String) throws
        -> (sql: String, property: Property?)
    {
        let root = try tableType(type)
        try checkAlias(alias)
        var aliases = AliasSource(avoiding: alias)
        let path = PredicateKeyPath(stringLiteral: keyPath)
        let resolved: ResolvedPath
        do {
            resolved = try resolve(path, from: root, alias: alias, aliases: &aliases)
        } catch let e as QueryPredicateError {
            throw QueryPredicateError(at: 0, "cannot \(purpose) '\(keyPath)': \(e.message)")
        }
        if resolved.needsQuantifier {
            throw QueryPredicateError(
                at: 0, "cannot \(purpose) '\(keyPath)': it goes through a list, so it has many values")
        }
        let property: Property?
        switch resolved.end {
        case .link, .embeddedObject:
            throw QueryPredicateError(at: 0, "cannot \(purpose) '\(keyPath)': name one of its properties")
        case .property(let p): property = p
        default: property = nil
        }
        return (scalarSQL(resolved).sql, property)
    }

    /// ORDER BY terms (without the keywords) for `sorts`, ending with the key column so the order is stable.
    ///
    /// Key paths may go through to-one links, into embedded objects, or end in `@count` / `@sum`...;
    /// not through a list without an aggregate.
    public func orderBy(_ sorts: [SortKey], on type: String, alias: String = "t0") throws -> String {
        let root = try tableType(type)
        try checkAlias(alias)
        var aliases = AliasSource(avoiding: alias)
        var terms: [String] = []
        var keyIncluded = false
        for sort in sorts {
            let path = PredicateKeyPath(stringLiteral: sort.keyPath)
            let resolved: ResolvedPath
            do {
                resolved = try resolve(path, from: root, alias: alias, aliases: &aliases)
            } catch let e as QueryPredicateError {
                throw QueryPredicateError(at: 0, "cannot sort by '\(sort.keyPath)': \(e.message)")
            }
            if resolved.needsQuantifier {
                throw QueryPredicateError(
                    at: 0, "cannot sort by '\(sort.keyPath)': it goes through a list, so it has many values")
            }
            switch resolved.end {
            case .link(let target):
                throw QueryPredicateError(
                    at: 0, "cannot sort by '\(sort.keyPath)', a link to \(target): sort by one of its properties")
            case .embeddedObject:
                throw QueryPredicateError(
                    at: 0, "cannot sort by '\(sort.keyPath)', an embedded object: sort by one of its properties")
            default: break
            }
            let expression = scalarSQL(resolved)
            assert(expression.bindings.isEmpty, "key paths never bind values")
            if dialect == .postgres {
                // SQLite's order: text byte by byte, NULL before every value.
                let text = ValueType(resolved.end) == .string ? " COLLATE \"C\"" : ""
                terms.append(
                    "(\(expression.sql))\(text)" + (sort.ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST"))
            } else {
                terms.append(expression.sql + (sort.ascending ? " ASC" : " DESC"))
            }
            if path.components == [root.keyColumn] { keyIncluded = true }
        }
        if !keyIncluded {
            let text = dialect == .postgres && root.primaryKey?.type == .string ? " COLLATE \"C\"" : ""
            terms.append("\(alias).\(Identifier.quoted(root.keyColumn))\(text) ASC")
        }
        return terms.joined(separator: ", ")
    }

    private func checkAlias(_ alias: String) throws {
        guard Identifier.isValid(alias) else {
            throw QueryPredicateError(at: 0, "the table alias '\(alias)' must be a plain identifier")
        }
    }

    // MARK: - Logic

    private func compile(_ predicate: QueryPredicate, root: ObjectSchema, alias: String, aliases: inout AliasSource)
        throws
        -> SQLFragment
    {
        switch predicate {
        case .truePredicate: return "\(raw: dialect.trueSQL)"
        case .falsePredicate: return "\(raw: dialect.falseSQL)"
        case .comparison(let c): return try compile(c, root: root, alias: alias, aliases: &aliases)
        case .and(let parts):
            if parts.isEmpty { return "\(raw: dialect.trueSQL)" }
            if parts.count == 1 { return try compile(parts[0], root: root, alias: alias, aliases: &aliases) }
            return .joined(
                try parts.map { try compile($0, root: root, alias: alias, aliases: &aliases) }, separator: " AND ")
        case .or(let parts):
            if parts.isEmpty { return "\(raw: dialect.falseSQL)" }
            if parts.count == 1 { return try compile(parts[0], root: root, alias: alias, aliases: &aliases) }
            return .joined(
                try parts.map { try compile($0, root: root, alias: alias, aliases: &aliases) }, separator: " OR ")
        case .not(let inner):
            // IS NOT 1 rather than NOT: a comparison that is NULL (nil operand) is false, so NOT of it is true.
            return "(\(try compile(inner, root: root, alias: alias, aliases: &aliases))) \(raw: dialect.isNotTrue)"
        }
    }

    // MARK: - Comparisons

    /// The right side of a comparison once the left is a resolved key path.
    private enum Other {
        case value(Value)
        case values([Value])
        case path(ResolvedPath)
    }

    private func compile(
        _ comparison: PredicateComparison, root: ObjectSchema, alias: String, aliases: inout AliasSource
    )
        throws -> SQLFragment
    {
        var c = comparison
        var valueInList = false
        if !c.left.isKeyPath {
            guard c.right.isKeyPath else {
                throw QueryPredicateError(
                    at: c.leftPosition.offset, "\(c.op.rawValue) needs a key path on one side; both sides are values")
            }
            let op: PredicateOperator
            if c.op == .in {
                // `%@ IN goods` is `ANY goods == %@`.
                op = .equal
                valueInList = true
            } else if let mirrored = c.op.mirrored {
                op = mirrored
            } else {
                throw QueryPredicateError(at: c.leftPosition.offset, "put the key path on the left of \(c.op.rawValue)")
            }
            c = PredicateComparison(
                c.right, op, c.left, options: c.options, quantifier: c.quantifier, leftPosition: c.rightPosition,
                operatorPosition: c.operatorPosition, rightPosition: c.leftPosition)
        }
        guard case .keyPath(let leftPath) = c.left else { preconditionFailure("normalized above") }
        var subject = try resolve(leftPath, from: root, alias: alias, aliases: &aliases)
        var other: Other
        switch c.right {
        case .value(let v): other = .value(v)
        case .values(let vs): other = .values(vs)
        case .keyPath(let rightPath):
            do {
                other = .path(try resolve(rightPath, from: root, alias: alias, aliases: &aliases))
            } catch let e as QueryPredicateError where rightPath.components.count == 1 {
                // `party.acronym = PT`: a bare word on the right is read as a key path; say how to write text.
                throw QueryPredicateError(
                    at: e.position,
                    e.message
                        + "; to compare with the text \(rightPath.components[0]), quote it: '\(rightPath.components[0])'"
                )
            }
        }
        var quantifier = c.quantifier
        if valueInList {
            guard subject.needsQuantifier else {
                throw QueryPredicateError(
                    at: subject.position,
                    "IN needs \(subject.display) to be a list or linkingObjects key path, or a list of values")
            }
        }
        if c.op == .in, case .path(let list) = other {
            // `name IN goods.description` is `ANY goods.description == name`.
            guard list.needsQuantifier, !subject.needsQuantifier else {
                throw QueryPredicateError(
                    at: c.rightPosition.offset, "IN needs a list of values or a key path through a list on its right")
            }
            other = .path(subject)
            subject = list
            c.op = .equal
            quantifier = .any
        }
        if case .path(let p) = other, p.needsQuantifier {
            throw QueryPredicateError(
                at: p.position, "\(p.display) goes through a list: put it on the left, after ANY, ALL or NONE")
        }
        if quantifier != .implicit, !subject.needsQuantifier {
            let what = "\(subject.display) is \(ValueType(subject.end).name)"
            throw QueryPredicateError(
                at: subject.position,
                "\(quantifier.rawValue) needs a key path through a list or linkingObjects; \(what)")
        }
        let left = subject.needsQuantifier ? subject.value : scalarSQL(subject)
        let condition = try comparisonSQL(left, subject, c.op, c.options, other, c)
        guard subject.needsQuantifier else { return condition }
        let from = fromClause(subject.hops)
        switch quantifier {
        case .implicit, .any: return "EXISTS (SELECT 1 \(from) AND (\(condition)))"
        case .all: return "NOT EXISTS (SELECT 1 \(from) AND (\(condition)) \(raw: dialect.isNotTrue))"
        case .none: return "NOT EXISTS (SELECT 1 \(from) AND (\(condition)))"
        }
    }

    private func comparisonSQL(
        _ left: SQLFragment, _ subject: ResolvedPath, _ op: PredicateOperator, _ options: PredicateOptions,
        _ other: Other,
        _ c: PredicateComparison
    ) throws -> SQLFragment {
        let type = ValueType(subject.end)
        let opPosition = c.operatorPosition.offset
        let name = subject.display
        if !options.isEmpty, type != .string {
            throw QueryPredicateError(at: opPosition, "[c] and [d] only apply to strings; \(name) is \(type.name)")
        }
        if op.isStringOperator, type != .string {
            throw QueryPredicateError(at: opPosition, "\(op.rawValue) needs a string; \(name) is \(type.name)")
        }
        if op.isOrdering, !type.isOrdered {
            throw QueryPredicateError(at: opPosition, "\(name) is \(type.name); only ==, != and IN apply to it")
        }
        if case .embedded = type, !(op == .equal || op == .notEqual) {
            throw QueryPredicateError(at: opPosition, "\(name) is \(type.name); it can only be compared with nil")
        }
        let folded = foldedSQL(left, options, type)
        func bind(_ v: Value, at position: Int) throws -> SQLValue {
            let b = try bindable(v, as: type, display: name, at: position)
            if case .text(let s) = b, !options.isEmpty { return .text(TextFolding.fold(s, options)) }
            return b
        }
        func param(_ b: SQLValue) -> SQLFragment { parameter(b, as: type) }
        let postgres = dialect == .postgres
        let valuePosition = c.rightPosition.offset
        switch other {
        case .value(.null):
            if subject.endsAtCollection {
                throw QueryPredicateError(
                    at: valuePosition,
                    "\(name) is a list; compare \(name).@count with 0 to find objects with an empty one")
            }
            switch op {
            case .equal: return "\(left) IS NULL"
            case .notEqual: return "\(left) IS NOT NULL"
            default: throw QueryPredicateError(at: valuePosition, "only == and != can compare with nil")
            }
        case .value(let v):
            let b = try bind(v, at: valuePosition)
            func text() -> String { if case .text(let s) = b { s } else { "" } }
            switch op {
            case .equal: return "\(folded) = \(param(b))"
            case .notEqual: return "\(folded) \(raw: dialect.isNotSame) \(param(b))"
            case .lessThan: return "\(folded) < \(param(b))"
            case .lessThanOrEqual: return "\(folded) <= \(param(b))"
            case .greaterThan: return "\(folded) > \(param(b))"
            case .greaterThanOrEqual: return "\(folded) >= \(param(b))"
            // PostgreSQL's LIKE is case-sensitive, with \\ escaping its wildcards; SQLite's ignores ASCII case, so
            // GLOB there: these are case-sensitive without [c].
            case .beginsWith where postgres:
                return "\(folded) LIKE \(param(.text(SQLDialect.likeLiteral(text()) + "%")))"
            case .endsWith where postgres: return "\(folded) LIKE \(param(.text("%" + SQLDialect.likeLiteral(text()))))"
            case .contains where postgres:
                return "\(folded) LIKE \(param(.text("%" + SQLDialect.likeLiteral(text()) + "%")))"
            case .like where postgres: return "\(folded) LIKE \(param(.text(SQLDialect.likePattern(text()))))"
            case .beginsWith: return "\(folded) GLOB \(bind: .text(Self.globLiteral(text()) + "*"))"
            case .endsWith: return "\(folded) GLOB \(bind: .text("*" + Self.globLiteral(text())))"
            case .contains: return "\(folded) GLOB \(bind: .text("*" + Self.globLiteral(text()) + "*"))"
            case .like: return "\(folded) GLOB \(bind: .text(Self.globPattern(like: text())))"
            case .in, .between:
                throw QueryPredicateError(at: valuePosition, "\(op.rawValue) needs a list of values, like {1, 2}")
            }
        case .values(let values):
            switch op {
            case .in:
                let present = values.filter { !$0.isNull }
                let hasNil = present.count < values.count
                if present.isEmpty { return hasNil ? "\(left) IS NULL" : "\(raw: dialect.falseSQL)" }
                var list: SQLFragment = ""
                for (i, v) in present.enumerated() {
                    let p = param(try bind(v, at: valuePosition))
                    list = i == 0 ? p : "\(list), \(p)"
                }
                let membership: SQLFragment = "\(folded) IN (\(list))"
                return hasNil ? "(\(membership) OR \(left) IS NULL)" : membership
            case .between:
                guard values.count == 2, !values[0].isNull, !values[1].isNull else {
                    throw QueryPredicateError(
                        at: valuePosition, "BETWEEN needs two values that are not nil, like {18, 65}")
                }
                let low = try bind(values[0], at: valuePosition)
                let high = try bind(values[1], at: valuePosition)
                return "\(folded) BETWEEN \(param(low)) AND \(param(high))"
            default:
                throw QueryPredicateError(
                    at: valuePosition, "a list of values can only follow IN or BETWEEN, not \(op.rawValue)")
            }
        case .path(let rightPath):
            let rightType = ValueType(rightPath.end)
            guard type.isComparable(with: rightType) else {
                throw QueryPredicateError(
                    at: rightPath.position,
                    "cannot compare \(name) (\(type.name)) with \(rightPath.display) (\(rightType.name))")
            }
            let r = foldedSQL(scalarSQL(rightPath), options, rightType)
            switch op {
            case .equal: return "\(folded) \(raw: dialect.isSame) \(r)"
            case .notEqual: return "\(folded) \(raw: dialect.isNotSame) \(r)"
            case .lessThan: return "\(folded) < \(r)"
            case .lessThanOrEqual: return "\(folded) <= \(r)"
            case .greaterThan: return "\(folded) > \(r)"
            case .greaterThanOrEqual: return "\(folded) >= \(r)"
            case .beginsWith: return "substr(\(folded), 1, length(\(r))) = \(r)"
            case .endsWith:
                let tail: SQLFragment = "substr(\(folded), length(\(folded)) - length(\(r)) + 1)"
                return "(length(\(r)) <= length(\(folded)) AND \(tail) = \(r))"
            case .contains: return "\(raw: postgres ? "strpos" : "instr")(\(folded), \(r)) > 0"
            case .like, .in, .between:
                throw QueryPredicateError(
                    at: rightPath.position,
                    "\(op.rawValue) needs values on its right, not the key path \(rightPath.display)")
            }
        }
    }
}

extension PredicateOperand {
    fileprivate var isKeyPath: Bool { if case .keyPath = self { true } else { false } }
}
