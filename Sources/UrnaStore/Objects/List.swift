import Foundation

/// Type-erased list access for the store's writes.
public protocol AnyObjectList: AnyObject {
    var anyMembers: [Any] { get }
    func attach(owner: DynamicObject, property: String)
    func setUnmanaged(_ items: [Any])
}

/// A to-many, ordered list of objects (`@Persisted var dogs: List<Dog>`).
///
/// Unmanaged it is an array; managed, reads and writes go to the list's table, and `filter`/`sorted`
/// work on its members like on any results (seed 001's open and completed tasks).
public final class List<Element: Object>: PersistableValue, AnyObjectList, Sequence {
    var items: [Element] = []
    weak var owner: DynamicObject?
    var strongOwner: DynamicObject?
    var propertyName = ""

    public init() {}

    public static var persistedType: PropertyType { .list(Element.typeName) }
    public static var persistedDefault: List<Element> { List() }
    public var persistedValue: Value { .null }
    public static func fromPersisted(_ v: Value, store: Store?) -> List<Element> { List() }

    public var anyMembers: [Any] {
        if let r = managedResults { return r.map { $0 as Any } }
        return items.map { $0.isManaged ? $0.managedObject as Any : $0 as Any }
    }

    public func attach(owner: DynamicObject, property: String) {
        strongOwner = owner
        propertyName = property
    }

    public func setUnmanaged(_ items: [Any]) { self.items = items.compactMap { $0 as? Element } }

    var managedResults: Results? {
        guard let o = strongOwner, o.isManaged else { return nil }
        return try? o.list(propertyName)
    }

    /// Whether the list's object is gone (deleted, or found deleted by a read): the list then reads empty, never
    /// the members of an object created later under the same key.
    var ownerIsGone: Bool { strongOwner?.isGone ?? false }

    /// The members as typed results (filter and sort them like any query).
    public var results: TypedResults<Element>? { managedResults.map(TypedResults.init) }

    /// The number of members (0 once the list's object is gone); throws when reading a managed list fails (see
    /// `Results.count`), and `StoreError.storeReleased` when its object's store was released (it used to answer 0).
    public var count: Int {
        get throws {
            if let o = strongOwner, o.storeWasReleased { throw StoreError.storeReleased(type: o.type.name) }
            guard let o = strongOwner, o.isManaged else { return ownerIsGone ? 0 : items.count }
            do { return try o.list(propertyName).count } catch StoreError.invalidated { return 0 }
        }
    }

    /// The member at `i`; setting replaces it (in a write when managed; an error the setter cannot throw
    /// is thrown by the enclosing `write`).
    public subscript(i: Int) -> Element {
        get {
            if let r = managedResults { return Element.bound(r[i]) }
            return items[i]
        }
        set {
            let target: (DynamicObject, Store)?
            do { target = try managedOwner() } catch {
                // A setter cannot throw: the enclosing write throws the error (an object deleted through this very
                // reference, or whose store was released, has no store left to tell: that traps, as its setters do).
                guard let store = strongOwner?.store, store.isInWriteTransaction else {
                    preconditionFailure("cannot set \(propertyName)[\(i)]: \(error)")
                }
                store.recordWriteError(error)
                return
            }
            guard let (o, store) = target else {
                items[i] = newValue
                return
            }
            guard store.isInWriteTransaction else {
                preconditionFailure(
                    "cannot set \(o.type.name).\(propertyName)[\(i)] outside a write transaction: wrap it in store.write { ... }"
                )
            }
            do { try store.listReplace(owner: o, property: propertyName, at: i, with: newValue) } catch {
                store.recordWriteError(error)
            }
        }
    }

    /// The list's object and store for an edit; nil for an unmanaged list (edited in memory). Throws when the list
    /// was a managed object's that is gone (deleted through any reference) or whose store was released: the edit
    /// used to land in this in-memory copy only, reported done and never written (`remove(at:)` trapped).
    private func managedOwner() throws -> (DynamicObject, Store)? {
        guard let o = strongOwner else { return nil }
        if o.isGone { throw StoreError.invalidated(type: o.type.name) }
        if o.storeWasReleased { throw StoreError.storeReleased(type: o.type.name) }
        guard o.isManaged, let store = o.store else { return nil }
        return (o, store)
    }

    /// Appends an object (in a write transaction when the list is managed); an unmanaged object is added
    /// to the store. One insert, whatever the list's length.
    public func append(_ object: Element) throws {
        guard let (o, store) = try managedOwner() else {
            items.append(object)
            return
        }
        try store.listAppend(owner: o, property: propertyName, members: [object])
    }

    /// Appends several objects, in order.
    public func append<S: Sequence>(contentsOf objects: S) throws where S.Element == Element {
        guard let (o, store) = try managedOwner() else {
            items.append(contentsOf: objects)
            return
        }
        try store.listAppend(owner: o, property: propertyName, members: Array(objects))
    }

    /// Inserts an object at `index` (0...count).
    public func insert(_ object: Element, at index: Int) throws {
        guard let (o, store) = try managedOwner() else {
            items.insert(object, at: index)
            return
        }
        try store.listInsert(owner: o, property: propertyName, member: object, at: index)
    }

    /// Removes the member at `index` (the object itself stays in the store).
    public func remove(at index: Int) throws {
        guard let (o, store) = try managedOwner() else {
            items.remove(at: index)
            return
        }
        try store.listRemove(owner: o, property: propertyName, at: index)
    }

    /// Removes every member (the objects stay in the store).
    public func removeAll() throws {
        guard let (o, store) = try managedOwner() else {
            items.removeAll()
            return
        }
        try store.listRemoveAll(owner: o, property: propertyName)
    }

    /// Moves the member at `from` to `to` (indices in the list before the move).
    public func move(from: Int, to: Int) throws {
        guard let (o, store) = try managedOwner() else {
            items.insert(items.remove(at: from), at: to)
            return
        }
        try store.listMove(owner: o, property: propertyName, from: from, to: to)
    }

    /// Replaces the member at `index` (Realm's `replace(index:object:)`).
    public func replace(index: Int, object: Element) throws {
        guard let (o, store) = try managedOwner() else {
            items[index] = object
            return
        }
        try store.listReplace(owner: o, property: propertyName, at: index, with: object)
    }

    /// Members matching a predicate.
    public func filter(_ predicate: String, _ arguments: QueryArgument...) throws -> TypedResults<Element> {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return TypedResults(try r.filter(predicate, arguments: arguments))
    }

    /// Members sorted by a key path.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> TypedResults<Element> {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return TypedResults(try r.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// The first member of each distinct combination of values, in list order (see `Results.distinct(by:)`).
    public func distinct(by keyPaths: [String]) throws -> TypedResults<Element> {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return TypedResults(try r.distinct(by: keyPaths))
    }

    /// See `Results.sum(ofProperty:)`.
    public func sum(ofProperty name: String) throws -> Value {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return try r.sum(ofProperty: name)
    }

    /// See `Results.min(ofProperty:)`.
    public func min(ofProperty name: String) throws -> Value? {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return try r.min(ofProperty: name)
    }

    /// See `Results.max(ofProperty:)`.
    public func max(ofProperty name: String) throws -> Value? {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return try r.max(ofProperty: name)
    }

    /// See `Results.average(ofProperty:)`.
    public func average(ofProperty name: String) throws -> Double? {
        guard let r = managedResults else { throw StoreError.unmanagedObject(type: Element.typeName) }
        return try r.average(ofProperty: name)
    }

    public func makeIterator() -> IndexingIterator<[Element]> {
        if let r = managedResults { return r.map { Element.bound($0) }.makeIterator() }
        return (ownerIsGone ? [] : items).makeIterator()
    }
}

/// Type-erased inverse-link access.
public protocol AnyLinkingObjects: AnyObject {
    var originType: String { get }
    var originProperty: String { get }
    func setOrigin(property: String)
    func attach(owner: DynamicObject, property: String)
}

/// The objects whose link or list points at this one; computed, never stored.
public final class LinkingObjects<Element: Object>: PersistableValue, AnyLinkingObjects, Sequence {
    public private(set) var originProperty = ""
    var owner: DynamicObject?
    var propertyName = ""

    public init() {}
    public var originType: String { Element.typeName }
    public func setOrigin(property: String) { originProperty = property }
    public func attach(owner: DynamicObject, property: String) {
        self.owner = owner
        propertyName = property
    }

    public static var persistedType: PropertyType { .linkingObjects(type: Element.typeName, property: "") }
    public static var persistedDefault: LinkingObjects<Element> { LinkingObjects() }
    public var persistedValue: Value { .null }
    public static func fromPersisted(_ v: Value, store: Store?) -> LinkingObjects<Element> { LinkingObjects() }

    /// The linking objects as typed results (empty for unmanaged objects).
    public var results: TypedResults<Element>? {
        guard let o = owner, o.isManaged, let r = try? o.linkingObjects(propertyName) else { return nil }
        return TypedResults(r)
    }

    /// The number of objects linking here (0 when unmanaged or gone); throws when the read fails, and
    /// `StoreError.storeReleased` when this object's store was released (it used to answer 0).
    public var count: Int {
        get throws {
            if let o = owner, o.storeWasReleased { throw StoreError.storeReleased(type: o.type.name) }
            guard let o = owner, o.isManaged else { return 0 }
            do { return try o.linkingObjects(propertyName).count } catch StoreError.invalidated { return 0 }
        }
    }
    public var first: Element? { results?.first }

    public func makeIterator() -> IndexingIterator<[Element]> { (results.map { Array($0) } ?? []).makeIterator() }
}

extension Object {
    /// A typed object bound to a managed dynamic one.
    static func bound(_ d: DynamicObject) -> Self {
        let o = Self()
        o.bind(to: d)
        return o
    }
}
