import Foundation

/// The objects of one type that match a filter, in a sort order: lazy and live.
///
/// Nothing is read until you touch the results; then only the matching keys are read, and each
/// object's row is read when that object is touched. After any write the results re-run.
///
/// ```swift
/// let mayors = try store.objects("Candidate")
///     .filter("post == %@", "Prefeito")
///     .sorted(byKeyPath: "nickname")
/// print(try mayors.count, mayors.first?["nickname"] ?? "-")
/// ```
public final class Results: Sequence {
    /// Where the candidate rows come from before filtering.
    enum Scope {
        case all
        /// Members of a list: the list table and the owner's key; ordered by position unless sorted.
        case list(table: String, owner: SQLValue)
        /// Objects whose list (the table) contains the target key.
        case inverseList(table: String, target: SQLValue)
        /// Objects whose link column holds the target key.
        case inverseLink(column: String, target: SQLValue)
    }

    public let store: Store
    public let type: ObjectSchema
    let scope: Scope
    let predicate: QueryPredicate?
    public let sortDescriptors: [SortKey]
    let limitCount: Int?
    /// Key paths of `distinct(by:)`: only the first object (in the results' order) of each combination.
    let distinctKeyPaths: [String]
    private var cachedKeys: [SQLValue]?
    private var cachedGeneration = -1

    /// The object whose list or inverse links these results are.
    let owner: (type: ObjectSchema, key: SQLValue)?
    /// The handle these results were taken from: once it is gone (deleted, or found deleted by a read) they read
    /// empty, never the list or inverse links of an object created later under the same key.
    let ownerObject: DynamicObject?

    init(
        store: Store, type: ObjectSchema, scope: Scope, predicate: QueryPredicate? = nil, sorts: [SortKey] = [],
        limit: Int? = nil, owner: (type: ObjectSchema, key: SQLValue)? = nil, ownerObject: DynamicObject? = nil,
        distinct: [String] = []
    ) {
        self.owner = owner
        self.ownerObject = ownerObject
        self.distinctKeyPaths = distinct
        self.store = store
        self.type = type
        self.scope = scope
        self.predicate = predicate
        self.sortDescriptors = sorts
        self.limitCount = limit
    }

    /// The results that also match `predicate` (Realm/NSPredicate syntax).
    public func filter(_ predicate: String, _ arguments: QueryArgument...) throws -> Results {
        try filter(predicate, arguments: arguments)
    }

    /// The results that also match `predicate`, with arguments given as an array.
    public func filter(_ predicate: String, arguments: [QueryArgument]) throws -> Results {
        let p = try QueryPredicate.parse(predicate, arguments: arguments)
        _ = try store.compiler.compile(p, on: type.name, alias: "t0")  // report errors now, not on first touch
        return filter(p)
    }

    /// The results that also match a parsed predicate.
    public func filter(_ p: QueryPredicate) -> Results {
        let combined: QueryPredicate = predicate.map { .and([$0, p]) } ?? p
        return Results(
            store: store, type: type, scope: scope, predicate: combined, sorts: sortDescriptors, limit: limitCount,
            owner: owner, ownerObject: ownerObject, distinct: distinctKeyPaths)
    }

    /// Sorted by one key path (through to-one links allowed); throws `QueryPredicateError` now, as `filter`
    /// does, when the key path names no property.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> Results {
        try sorted(by: [SortKey(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted by several key paths, the first deciding first; throws when one names no property.
    public func sorted(by descriptors: [SortKey]) throws -> Results {
        _ = try store.compiler.orderBy(descriptors, on: type.name, alias: "t0")  // report errors now, not on first touch
        return Results(
            store: store, type: type, scope: scope, predicate: predicate, sorts: descriptors, limit: limitCount,
            owner: owner, ownerObject: ownerObject, distinct: distinctKeyPaths)
    }

    /// The first object of each distinct combination of values of `keyPaths`, in these results' order
    /// (Realm's `distinct(by:)`); throws now when a key path names no property or goes through a list.
    public func distinct(by keyPaths: [String]) throws -> Results {
        _ = try store.compiler.distinctTerms(keyPaths, on: type.name, alias: "t0")  // report errors now
        return Results(
            store: store, type: type, scope: scope, predicate: predicate, sorts: sortDescriptors, limit: limitCount,
            owner: owner, ownerObject: ownerObject, distinct: distinctKeyPaths + keyPaths)
    }

    /// At most `n` objects.
    public func limit(_ n: Int) -> Results {
        Results(
            store: store, type: type, scope: scope, predicate: predicate, sorts: sortDescriptors,
            limit: Swift.max(0, n),
            owner: owner, ownerObject: ownerObject, distinct: distinctKeyPaths)
    }

    /// Whether these results can no longer be used: the object whose list (or inverse links) they are was
    /// deleted. Results of a whole type or a query over it are never invalidated.
    public var isInvalidated: Bool {
        guard let owner else { return false }
        if let ownerObject { return ownerObject.isInvalidated }
        // A read that fails is not a deletion: the error surfaces from the next read.
        do { return try store.rowExists(type: owner.type, key: owner.key) == false } catch { return false }
    }

    /// The number of matching objects (one COUNT query; no rows are read).
    ///
    /// Throws the `SQLiteError` when the query fails (a locked or damaged file, an I/O error, a table that
    /// another process migrated away): a count that could not be taken is never reported as 0.
    public var count: Int {
        get throws {
            if let cachedKeys, cachedGeneration == store.generation { return cachedKeys.count }
            let (sql, bindings) = try selectSQL(columns: "1")
            return Int(try store.reading { try $0.integer("SELECT count(*) FROM (\(sql))", bindings) })
        }
    }

    /// The count, with errors surfaced (the same as `count`, which now throws).
    @available(*, deprecated, renamed: "count", message: "count throws its errors now; use `try results.count`")
    public func countThrowing() throws -> Int { try count }

    /// Whether nothing matches; throws as `count` does.
    public var isEmpty: Bool {
        get throws { try count == 0 }
    }

    // Realm's conveniences (`first`, `last`, subscripts, `for o in results`) cannot throw: when the
    // query fails they answer nil or nothing. Code that must tell "no objects" from "the query failed"
    // (every command-line reader does) uses the throwing forms below them.

    /// The object at `index` (read on access); `object(at:)` throws instead.
    ///
    /// An index past the end (another task deleted objects since the count was read: `for i in 0..<count` is a
    /// check-then-act no task can make safe) answers an object that is already gone: `isInvalidated`, its
    /// properties' defaults. So does a query that fails (another connection migrated the file meanwhile, a read
    /// error): that gone object's `value(forKey:)` throws the query's error. The subscript trapped then, and another
    /// thread or process can migrate between any check and a read.
    public subscript(index: Int) -> DynamicObject {
        do { return try object(at: index) } catch StoreError.indexOutOfRange {
            return DynamicObject.gone(type: type)
        } catch {
            return DynamicObject.gone(type: type, because: error)
        }
    }

    /// The first object, or nil when there is none or the query fails (`firstObject()` throws instead).
    public var first: DynamicObject? { try? firstObject() }

    /// The last object, or nil when there is none or the query fails (`lastObject()` throws instead).
    public var last: DynamicObject? { try? lastObject() }

    /// Iterates the matching objects; a failing query iterates nothing (`objects()` throws instead).
    public func makeIterator() -> IndexingIterator<[DynamicObject]> {
        ((try? objects()) ?? []).makeIterator()
    }

    /// The matching objects with their stored properties read in the same query (one statement for the
    /// whole loop instead of one per object).
    func loadedObjects() throws -> [DynamicObject] {
        let props = type.storedProperties
        let columns = ["t0.\(Identifier.quoted(type.keyColumn))"] + props.map { "t0.\(Identifier.quoted($0.name))" }
        let (sql, bindings) = try selectSQL(columns: columns.joined(separator: ", "))
        let generation = store.generation
        let schema = store.schema
        return try store.reading { c in
            let s = try c.prepare(sql)
            try s.bind(bindings)
            var out: [DynamicObject] = []
            while try s.step() {
                var values = [String: Value](minimumCapacity: props.count)
                for (i, p) in props.enumerated() {
                    values[p.name] = ValueCodec.decode(s.value(at: i + 1), as: p.type, schema: schema)
                }
                out.append(
                    DynamicObject(type: type, store: store, key: s.value(at: 0), values: values, generation: generation)
                )
            }
            return out
        }
    }

    /// The object at `index`; throws `StoreError.indexOutOfRange` or the query's error.
    public func object(at index: Int) throws -> DynamicObject {
        let keys = try keys()
        guard index >= 0 && index < keys.count else {
            throw StoreError.indexOutOfRange(index: index, count: keys.count)
        }
        return DynamicObject(type: type, store: store, key: keys[index])
    }

    /// The first object (nil when nothing matches); throws when the query fails.
    public func firstObject() throws -> DynamicObject? {
        try limit(1).keys().first.map { DynamicObject(type: type, store: store, key: $0) }
    }

    /// The last object (nil when nothing matches); throws when the query fails.
    public func lastObject() throws -> DynamicObject? {
        try keys().last.map { DynamicObject(type: type, store: store, key: $0) }
    }

    /// Every matching object, in order, with its stored properties read in the same query; throws when
    /// the query fails.
    public func objects() throws -> [DynamicObject] { try loadedObjects() }

    /// Sets one property on every object of the results in one statement (seed 001's
    /// "mark every task completed").
    public func setValue(_ value: Value, forKey name: String) throws {
        try store.writing {
            guard let p = type[property: name], p.isStored, !p.primaryKey else {
                throw StoreError.unknownProperty(type: type.name, property: name)
            }
            let encoded: SQLValue
            if case .link(let target) = p.type {
                let k: Value = if case .link(let l) = value { l.key } else { value }
                encoded = value.isNull ? .null : ValueCodec.encodeKey(k)
                _ = target
            } else {
                encoded = ValueCodec.encode(
                    try ValueCodec.coerce(value, to: p, in: type.name, schema: store.schema), as: p.type,
                    schema: store.schema)
            }
            let (sql, bindings) = try keySQL()
            try store.connection.run(
                "UPDATE \(Identifier.quoted(type.name)) SET \(Identifier.quoted(name)) = ? WHERE \(Identifier.quoted(type.keyColumn)) IN (\(sql))",
                [encoded] + bindings)
            store.pendingChanges.modified[type.name, default: 0] += store.connection.changes
            store.bumpGeneration()
        }
    }

    /// The matching keys, in order (cached until the next write).
    func keys() throws -> [SQLValue] {
        if let cachedKeys, cachedGeneration == store.generation { return cachedKeys }
        let (sql, bindings) = try selectSQL(columns: "t0.\(Identifier.quoted(type.keyColumn))")
        // The generation before the read: a write that commits while the query runs then makes the cache stale
        // (read after, its generation would stamp keys read before that write as current).
        let generation = store.generation
        let out = try store.reading { c -> [SQLValue] in
            let s = try c.prepare(sql)
            try s.bind(bindings)
            var out: [SQLValue] = []
            while try s.step() { out.append(s.value(at: 0)) }
            return out
        }
        cachedKeys = out
        cachedGeneration = generation
        return out
    }

    /// SQL selecting the matching keys (for IN (...) subqueries), with its bindings.
    func keySQL() throws -> (String, [SQLValue]) { try selectSQL(columns: "t0.\(Identifier.quoted(type.keyColumn))") }

    /// The full SELECT with scope, filter, order and limit.
    func selectSQL(columns: String) throws -> (String, [SQLValue]) {
        let table = Identifier.quoted(type.name)
        let key = "t0.\(Identifier.quoted(type.keyColumn))"
        var from = "\(table) t0"
        var conditions: [String] = []
        var bindings: [SQLValue] = []
        var defaultOrder = ""
        switch scope {
        case .all: break
        case _ where ownerObject?.isGone == true:
            conditions.append("0")  // the owner is gone: its key may be another object's now
        case .list(let lt, let owner):
            from += " JOIN \(Identifier.quoted(lt)) l0 ON l0.target = \(key)"
            conditions.append("l0.owner = ?")
            bindings.append(owner)
            defaultOrder = "l0.position"
        case .inverseList(let lt, let target):
            conditions.append(
                "EXISTS (SELECT 1 FROM \(Identifier.quoted(lt)) l0 WHERE l0.owner = \(key) AND l0.target = ?)")
            bindings.append(target)
        case .inverseLink(let column, let target):
            conditions.append("t0.\(Identifier.quoted(column)) = ?")
            bindings.append(target)
        }
        if let predicate {
            let (sql, b) = try store.compiler.compile(predicate, on: type.name, alias: "t0")
            conditions.append("(\(sql))")
            bindings += b
        }
        let order: String
        if !sortDescriptors.isEmpty {
            order = try store.compiler.orderBy(sortDescriptors, on: type.name, alias: "t0")
        } else if !defaultOrder.isEmpty {
            order = defaultOrder
        } else {
            order = key
        }
        if !distinctKeyPaths.isEmpty {
            // The first row of each partition, in the results' own order (the subquery has its own t0).
            let terms = try store.compiler.distinctTerms(distinctKeyPaths, on: type.name, alias: "t0")
            var inner = "SELECT \(key) AS k, row_number() OVER (PARTITION BY \(terms.joined(separator: ", "))"
            inner += " ORDER BY \(order)) AS rn FROM \(from)"
            if !conditions.isEmpty { inner += " WHERE " + conditions.joined(separator: " AND ") }
            conditions.append("\(key) IN (SELECT k FROM (\(inner)) WHERE rn = 1)")
            bindings += bindings
        }
        var sql = "SELECT \(columns) FROM \(from)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(order)"
        if let limitCount { sql += " LIMIT \(limitCount)" }
        return (sql, bindings)
    }
}
