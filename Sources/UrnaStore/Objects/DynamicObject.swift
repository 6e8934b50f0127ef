import Foundation

/// An object of any type, with properties read and written by name; works for schemas with no Swift class.
///
/// Unmanaged (made with `init(type:values:)`) it is a plain bag of values; once added to a store, or
/// returned by a query, it is managed: reads see the file, writes go to the file and need a write
/// transaction.
///
/// ```swift
/// let person = try store.objects("Person").first!
/// print(person["fullName"])          // .string("Ada Lovelace")
/// try store.write { person["age"] = 37 }
/// ```
public final class DynamicObject {
    public let type: ObjectSchema
    public internal(set) weak var store: Store?
    /// The identity column's stored value (primary key or `_id`) once managed.
    public internal(set) var storedKey: SQLValue?
    var values: [String: Value]
    var loadedGeneration = -1
    /// Set when this reference deleted the object (its store and key are gone then).
    var wasDeleted = false
    /// Set when a read outside a write found the object's row gone (deleted by another task, store or process): it
    /// stays gone, as in Realm, even if an object with the same key is created later. Reading it again would mix
    /// what it answered while gone (its defaults, or its last values) with the new object's values.
    var foundGone = false

    /// Whether this reference deleted its object or a read found it deleted: it then never reads by its key
    /// again (another object may have taken it).
    var isGone: Bool { wasDeleted || foundGone }

    /// An unmanaged object of `type` with some property values (the rest take their defaults when added).
    public init(type: ObjectSchema, values: [String: Value] = [:]) {
        self.type = type
        self.values = values
    }

    init(type: ObjectSchema, store: Store, key: SQLValue) {
        self.type = type
        self.store = store
        self.storedKey = key
        self.values = [:]
    }

    /// A managed object whose stored properties were read already, at `generation`.
    init(type: ObjectSchema, store: Store, key: SQLValue, values: [String: Value], generation: Int) {
        self.type = type
        self.store = store
        self.storedKey = key
        self.values = values
        self.loadedGeneration = generation
    }

    /// Why a gone object could not be read, when it is not that it was deleted (a results subscript whose query
    /// failed): `value(forKey:)` and `setValue` throw it instead of `invalidated`.
    var goneBecause: Error?

    /// An object that is already gone (deleted before it could be read, or unreadable `because` of an error):
    /// `isInvalidated`, its defaults.
    static func gone(type: ObjectSchema, because error: Error? = nil) -> DynamicObject {
        let o = DynamicObject(type: type)
        o.wasDeleted = true
        o.goneBecause = error
        return o
    }

    /// Whether this object lives in a store.
    public var isManaged: Bool { store != nil && storedKey != nil }

    /// Whether this object was managed and its store has been released since (the store is held weakly):
    /// reading or setting it then fails instead of answering defaults or keeping the value in memory only.
    var storeWasReleased: Bool { storedKey != nil && store == nil && !wasDeleted }

    /// The primary key (or `_id`) value of a managed object; for unmanaged ones, the given primary key.
    public var primaryKeyValue: Value {
        if let k = storedKey { return ValueCodec.decodeKey(k, keyType: type.primaryKey?.type ?? .int64) }
        if let pk = type.primaryKey { return values[pk.name] ?? .null }
        return .null
    }

    /// Whether this object was deleted (through this or another reference, another store or process):
    /// reading it then throws (`value(forKey:)`) or traps (the subscript). False for unmanaged objects.
    public var isInvalidated: Bool {
        if isGone { return true }
        guard let key = storedKey else { return false }
        guard let store else { return true }
        if loadedGeneration == store.generation && !store.isInWriteTransaction && !values.isEmpty { return false }
        // A read that fails is not a deletion: the error surfaces from the next read.
        do {
            guard try store.rowExists(type: type, key: key) else {
                // Gone for good only when no write is open: one may still create the row (see `reloadIfStale`).
                if !store.writeLock.isHeld { foundGone = true }
                return true
            }
            return false
        } catch { return false }
    }

    /// A property's value by name (`.null` for unknown names; use `value(forKey:)` to get an error).
    ///
    /// An object deleted since it was read (by this reference, another task, another store or process), or whose
    /// file another program migrated to another schema, answers the values it last read: a subscript cannot
    /// throw, another task can delete between any check and the read, and trapping would make every read of a
    /// shared file a crash risk (one gone before it read anything answers its properties' defaults).
    /// `isInvalidated` says it is gone; `value(forKey:)` throws. A read that fails otherwise (an I/O error) traps
    /// with the reason: a default would be a silent wrong value.
    ///
    /// Setting records an error it cannot throw (a full disk) for the enclosing `write` to throw, after
    /// rolling back; setting outside a write traps.
    public subscript(name: String) -> Value {
        get {
            do { return try value(forKey: name) } catch StoreError.unknownProperty { return .null } catch {
                if let last = lastKnownValue(forKey: name, after: error) { return last }
                preconditionFailure("cannot read \(type.name).\(name): \(error)")
            }
        }
        set {
            do { try setValue(newValue, forKey: name) } catch {
                guard let store, store.isInWriteTransaction else {
                    preconditionFailure("cannot set \(type.name).\(name): \(error)")
                }
                store.recordWriteError(error)
            }
        }
    }

    /// A property's value; throws for unknown properties or a deleted object.
    public func value(forKey name: String) throws -> Value {
        guard let p = type[property: name] else { throw StoreError.unknownProperty(type: type.name, property: name) }
        if isGone { throw goneBecause ?? StoreError.invalidated(type: type.name) }
        if storeWasReleased { throw StoreError.storeReleased(type: type.name) }
        guard let store, let key = storedKey else { return values[name] ?? p.effectiveDefault }
        switch p.type {
        case .list(let target):
            // Read by the owner's key: check the owner is still there first (as a property read does).
            if isInvalidated { throw StoreError.invalidated(type: type.name) }
            return .list(try store.listTargets(owner: type, property: p, key: key, target: target))
        case .linkingObjects:
            if isInvalidated { throw StoreError.invalidated(type: type.name) }
            return .list(
                try store.linkingObjects(of: self, property: p).map {
                    LinkTarget(type: $0.type.name, key: $0.primaryKeyValue)
                })
        default:
            if p.ignored { return values[name] ?? p.effectiveDefault }
            try reloadIfStale()
            return values[name] ?? .null
        }
    }

    /// Sets a property (in a write transaction when managed).
    public func setValue(_ value: Value, forKey name: String) throws {
        guard let p = type[property: name] else { throw StoreError.unknownProperty(type: type.name, property: name) }
        if isGone { throw goneBecause ?? StoreError.invalidated(type: type.name) }
        if storeWasReleased { throw StoreError.storeReleased(type: type.name) }
        guard let store, let key = storedKey else {
            values[name] = value
            return
        }
        if p.ignored {
            values[name] = value
            return
        }
        try store.update(type: type, key: key, values: [name: value])
    }

    /// The object a to-one link points at, or nil.
    public func linked(_ name: String) throws -> DynamicObject? {
        guard let p = type[property: name], case .link(let target) = p.type else {
            throw StoreError.unknownProperty(type: type.name, property: name)
        }
        guard case .link(let t) = try value(forKey: name) else { return nil }
        if let store { return try store.object(ofType: target, forPrimaryKey: t.key) }
        return nil
    }

    /// The members of a list property, as live results that can be filtered and sorted.
    ///
    /// Throws `StoreError.invalidated` when the object is gone (deleted by this or another reference, task, store
    /// or process); results taken before it went read empty from then on, never the members of an object created
    /// later under the same key.
    public func list(_ name: String) throws -> Results {
        guard let p = type[property: name], case .list = p.type else {
            throw StoreError.unknownProperty(type: type.name, property: name)
        }
        if wasDeleted { throw StoreError.invalidated(type: type.name) }
        if storeWasReleased { throw StoreError.storeReleased(type: type.name) }
        guard let store, storedKey != nil else { throw StoreError.unmanagedObject(type: type.name) }
        if isInvalidated { throw StoreError.invalidated(type: type.name) }
        return try store.listResults(owner: self, property: p)
    }

    /// The objects whose link or list points at this one, through an inverse (linkingObjects) property; throws
    /// `StoreError.invalidated` when this object is gone, as `list(_:)` does.
    public func linkingObjects(_ name: String) throws -> Results {
        guard let p = type[property: name], case .linkingObjects = p.type else {
            throw StoreError.unknownProperty(type: type.name, property: name)
        }
        if wasDeleted { throw StoreError.invalidated(type: type.name) }
        if storeWasReleased { throw StoreError.storeReleased(type: type.name) }
        guard let store, storedKey != nil else { throw StoreError.unmanagedObject(type: type.name) }
        if isInvalidated { throw StoreError.invalidated(type: type.name) }
        return try store.linkingObjects(of: self, property: p)
    }

    /// Follows a key path (`party.acronym`, `goods.@count`) and returns the value at its end; a path
    /// through a list gives the members' keys as `.list` (use `FieldProjection.resolve` for their values).
    public func value(atKeyPath path: String) throws -> Value {
        switch try FieldProjection.resolve(path, on: self) {
        case .value(let v): return v
        case .values(let vs):
            return .list(vs.compactMap { if case .link(let t) = $0 { t } else { nil } })
        }
    }

    /// Every stored property's value plus link keys, for printing and export.
    public func dictionary(includeLists: Bool = true) throws -> [(String, Value)] {
        var out: [(String, Value)] = []
        if type.primaryKey == nil, let k = storedKey {
            out.append((ObjectSchema.rowIdColumn, ValueCodec.decodeKey(k, keyType: .int64)))
        }
        for p in type.properties where !p.ignored {
            switch p.type {
            case .linkingObjects: continue
            case .list: if includeLists { out.append((p.name, try value(forKey: p.name))) }
            default: out.append((p.name, try value(forKey: p.name)))
            }
        }
        return out
    }

    /// The value this object last read for `name` (its property's default when it was gone before reading any),
    /// when `error` says the object is gone (deleted, its store released, its file migrated to another schema);
    /// nil for any other error.
    func lastKnownValue(forKey name: String, after error: Error) -> Value? {
        guard let p = type[property: name], p.type.isColumn || p.ignored else { return nil }
        switch error as? StoreError {
        case .invalidated?, .storeReleased?, .schemaMismatch?: return values[name] ?? p.effectiveDefault
        default: return nil
        }
    }

    func reloadIfStale() throws {
        guard let store, let key = storedKey else { return }
        if loadedGeneration == store.generation && !store.isInWriteTransaction { return }
        // The generation before the read, as `Results.keys()` does: one taken after it could be a write's that
        // committed meanwhile, and the values read before it would pass for current.
        let generation = store.generation
        guard let row = try store.loadRow(type: type, key: key) else {
            // Committed state with no write open (a write's own delete may still roll back, and a write parked or on
            // another thread may still create the row at its commit): this object is gone for good.
            if !store.writeLock.isHeld { foundGone = true }
            throw StoreError.invalidated(type: type.name)
        }
        values = row
        loadedGeneration = generation
    }
}

extension DynamicObject: CustomStringConvertible {
    public var description: String {
        let body = ((try? dictionary(includeLists: false)) ?? []).map { "\($0.0) = \($0.1)" }.joined(separator: "; ")
        return "\(type.name) { \(body) }"
    }
}
