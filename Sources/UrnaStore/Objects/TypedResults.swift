import Foundation

/// Results of a typed model: the same lazy, live query, yielding instances of the model class.
public struct TypedResults<Element: Object>: Sequence {
    public let results: Results

    public init(_ results: Results) { self.results = results }

    public func filter(_ predicate: String, _ arguments: QueryArgument...) throws -> TypedResults {
        TypedResults(try results.filter(predicate, arguments: arguments))
    }
    /// Sorted by a key path; throws when it names no property (as `filter` does).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> TypedResults {
        TypedResults(try results.sorted(byKeyPath: keyPath, ascending: ascending))
    }
    /// Sorted by several key paths; throws when one names no property.
    public func sorted(by descriptors: [SortKey]) throws -> TypedResults {
        TypedResults(try results.sorted(by: descriptors))
    }
    /// Whether the results can no longer be used (see `Results.isInvalidated`).
    public var isInvalidated: Bool { results.isInvalidated }
    /// See `Results.distinct(by:)`.
    public func distinct(by keyPaths: [String]) throws -> TypedResults {
        TypedResults(try results.distinct(by: keyPaths))
    }
    public func limit(_ n: Int) -> TypedResults { TypedResults(results.limit(n)) }
    /// The number of matching objects; throws when SQLite fails (see `Results.count`).
    public var count: Int { get throws { try results.count } }
    /// Whether nothing matches; throws as `count` does.
    public var isEmpty: Bool { get throws { try results.isEmpty } }
    /// The first object, or nil when there is none or the query fails (`firstObject()` throws instead).
    public var first: Element? { results.first.map { Element.bound($0) } }
    /// The last object, or nil when there is none or the query fails (`lastObject()` throws instead).
    public var last: Element? { results.last.map { Element.bound($0) } }
    /// The object at `i`; traps when out of range or when the query fails (`object(at:)` throws instead).
    public subscript(i: Int) -> Element { Element.bound(results[i]) }
    /// The object at `i`; throws when out of range or when the query fails.
    public func object(at i: Int) throws -> Element { Element.bound(try results.object(at: i)) }
    /// The first object (nil when nothing matches); throws when the query fails.
    public func firstObject() throws -> Element? { try results.firstObject().map { Element.bound($0) } }
    /// The last object (nil when nothing matches); throws when the query fails.
    public func lastObject() throws -> Element? { try results.lastObject().map { Element.bound($0) } }
    /// Every matching object, in order; throws when the query fails (iteration answers nothing instead).
    public func objects() throws -> [Element] { try results.objects().map { Element.bound($0) } }
    /// Sets one property on every object (one UPDATE).
    public func setValue(_ value: Value, forKey key: String) throws { try results.setValue(value, forKey: key) }
    public func makeIterator() -> Iterator { Iterator(base: results.makeIterator()) }

    /// Yields each object as a model instance, made when it is reached.
    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[DynamicObject]>
        public mutating func next() -> Element? { base.next().map { Element.bound($0) } }
    }
}

extension Schema {
    /// A schema from typed model classes.
    public init(family: String, version: Int, models: [Object.Type], more: [ObjectSchema] = []) throws {
        try self.init(family: family, version: version, types: models.map { $0.objectSchema() } + more)
    }
}

extension Store {
    /// Every object of a model type.
    public func objects<T: Object>(_ type: T.Type) throws -> TypedResults<T> { TypedResults(try objects(T.typeName)) }

    /// The object of a model type with this primary key, or nil.
    public func object<T: Object>(ofType type: T.Type, forPrimaryKey key: Value) throws -> T? {
        try object(ofType: T.typeName, forPrimaryKey: key).map { T.bound($0) }
    }

    /// Adds a typed object (and, inline, the unmanaged objects it links to); it becomes managed.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws {
        try writing {
            if object.isManaged, object.store === self { return }
            let t = try objectSchema(Swift.type(of: object).typeName)
            let key = try upsert(type: t, input: object, update: update)
            object.bind(to: DynamicObject(type: t, store: self, key: key))
        }
    }

    /// Adds several typed objects.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element: Object {
        for o in objects { try add(o, update: update) }
    }

    /// Creates a typed object from a dictionary, an array or another object (Realm's `create(_:value:update:)`).
    @discardableResult
    ///
    /// A plain create gives the properties that `value` leaves out the model's own defaults, evaluated for
    /// this object (`@Persisted var createdAt = Date()` is this object's creation time).
    public func create<T: Object>(_ type: T.Type, value: Any, update: UpdatePolicy = .error) throws -> T {
        T.bound(try create(T.typeName, value: update == .error ? T.withModelDefaults(value) : value, update: update))
    }

    /// Deletes a typed object.
    public func delete(_ object: Object) throws {
        guard let d = object.managedObject else {
            throw StoreError.unmanagedObject(type: Swift.type(of: object).typeName)
        }
        try delete(d)
    }

    /// Deletes every object of typed results.
    public func delete<T: Object>(_ results: TypedResults<T>) throws { try delete(results.results) }

    /// Writes a list's members.
    func setList(owner: DynamicObject, property: String, members: [Any]) throws {
        try writing {
            guard let p = owner.type[property: property], case .list(let target) = p.type, let key = owner.storedKey
            else {
                throw StoreError.unknownProperty(type: owner.type.name, property: property)
            }
            let tt = try objectSchema(target)
            var keys: [SQLValue] = []
            for m in members {
                keys.append(try upsert(type: tt, input: m, update: tt.primaryKey == nil ? .error : .modified))
            }
            try replaceList(owner: owner.type, property: p, ownerKey: key, targets: keys)
            pendingChanges.modified[owner.type.name, default: 0] += 1
            bumpGeneration()
        }
    }
}
