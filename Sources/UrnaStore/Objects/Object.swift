import Foundation

/// Base class of typed models, declared the Realm way: persisted properties marked next to their
/// declaration, primary key and index there too; any other stored property is ignored (never stored).
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted(indexed: true) var name = ""
///     @Persisted var owner: Person?
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
///     var nickname = ""   // not persisted
/// }
/// ```
open class Object: PersistableValue {
    /// The managed twin when this object lives in a store.
    public internal(set) var managedObject: DynamicObject?

    public required init() {}

    /// An unmanaged object from a dictionary or an ordered array of values (Realm's `Dog(value:)`).
    public convenience init(value: Any) {
        self.init()
        let props = Self.persistedProperties(of: self)
        var given: [String: Any] = [:]
        if let d = value as? [String: Any] {
            given = d
        } else if let a = value as? [Any] {
            let settable = props.filter { if case .linkingObjects = $0.property.type { false } else { true } }
            for (i, v) in a.enumerated() where i < settable.count { given[settable[i].property.name] = v }
        }
        for (name, v) in given { props.first { $0.property.name == name }?.wrapper.setUnmanaged(v) }
    }

    /// The type's name in the schema (the class name).
    open class var typeName: String { String(describing: self) }

    /// The object schema derived from the `@Persisted` declarations.
    ///
    /// A default is recorded only when it is a constant: declarations are read from two fresh instances and
    /// a default that differs between them (`UUID()`, `Int.random(in:)`), a UUID, or a date within a minute
    /// of now (`Date()`) is left out of the schema; each new object then gets its own value when it is made.
    public static func objectSchema() -> ObjectSchema {
        let first = persistedProperties().map(\.property)
        let second = persistedProperties().map(\.property)
        let now = Date()
        let properties = zip(first, second).map { a, b -> Property in
            guard let d = a.defaultValue else { return a }
            var p = a
            if d != b.defaultValue || a.type == .uuid || (a.type == .date && isNearNow(d, now)) { p.defaultValue = nil }
            return p
        }
        return ObjectSchema(typeName, properties)
    }

    private static func isNearNow(_ d: DefaultValue, _ now: Date) -> Bool {
        guard case .string(let s) = d, let date = ISODate.parse(s) else { return false }
        return abs(date.timeIntervalSince(now)) < 60
    }

    /// Whether this object was deleted (through this or another reference, or by a commit `refresh()`
    /// brought in); reading a property of an invalidated object traps, so check this first. False for
    /// unmanaged objects.
    public var isInvalidated: Bool { managedObject?.isInvalidated ?? false }

    /// Whether this object lives in a store.
    public var isManaged: Bool { managedObject?.isManaged ?? false }

    /// The store holding this object.
    public var store: Store? { managedObject?.store }

    static func persistedProperties(of instance: Object? = nil) -> [(property: Property, wrapper: AnyPersisted)] {
        let object = instance ?? Self()
        var out: [(Property, AnyPersisted)] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        var levels: [[(Property, AnyPersisted)]] = []
        while let m = mirror {
            var level: [(Property, AnyPersisted)] = []
            for child in m.children {
                guard let label = child.label, label.hasPrefix("_"), let w = child.value as? AnyPersisted else {
                    continue
                }
                level.append((w.property(named: String(label.dropFirst())), w))
            }
            levels.append(level)
            mirror = m.superclassMirror
        }
        for level in levels.reversed() { out += level }
        return out
    }

    /// `value` (a dictionary or an ordered array) with the scalar properties it leaves out filled from a fresh
    /// instance, so defaults such as `Date()` are evaluated per object; other inputs come back unchanged.
    static func withModelDefaults(_ value: Any) -> Any {
        let props = persistedProperties(of: Self())
        var given: [String: Any]
        if let d = value as? [String: Any] {
            given = d
        } else if let a = value as? [Any] {
            let settable = props.filter { if case .linkingObjects = $0.property.type { false } else { true } }
            guard a.count <= settable.count else { return value }  // the store reports too many values
            given = [:]
            for (i, v) in a.enumerated() { given[settable[i].property.name] = v }
        } else {
            return value
        }
        for (p, w) in props where given[p.name] == nil && !p.type.isLinkLike {
            if case .linkingObjects = p.type { continue }
            if p.primaryKey && p.type.isInteger { continue }  // SQLite chooses it
            if let v = w.unmanagedValue() { given[p.name] = v }
        }
        return given
    }

    /// Makes this instance the typed face of a managed object: its `@Persisted` properties read and write
    /// `managed` from now on (each finds its name on first use, see `Persisted`).
    func bind(to managed: DynamicObject) {
        managedObject = managed
    }

    /// The name of the property whose wrapper is at `storage`, per class, found once by reflection on a
    /// fresh instance.
    static func propertyName(for storage: AnyKeyPath, box: AnyObject) -> String {
        let id = ObjectIdentifier(self)
        if let name = persistedNamesLock.withLock({ persistedNames[id]?[storage] }) { return name }
        let template = Self()
        var found = ""
        var mirror: Mirror? = Mirror(reflecting: template)
        let target = (template[keyPath: storage] as? AnyPersisted)?.boxObject
        while let m = mirror, found.isEmpty {
            for child in m.children {
                guard let label = child.label, label.hasPrefix("_"), let w = child.value as? AnyPersisted,
                    w.boxObject === target
                else { continue }
                found = String(label.dropFirst())
                break
            }
            mirror = m.superclassMirror
        }
        precondition(!found.isEmpty, "Urna: a @Persisted property of \(self) could not be found by reflection")
        persistedNamesLock.withLock { persistedNames[id, default: [:]][storage] = found }
        return found
    }

    func unmanagedValues() throws -> [String: Any] {
        var out: [String: Any] = [:]
        for (p, w) in Self.persistedProperties(of: self) {
            if case .linkingObjects = p.type { continue }
            if let v = w.unmanagedValue() { out[p.name] = v }
        }
        return out
    }

    // PersistableValue: a to-one link.
    public static var persistedType: PropertyType { .link(typeName) }
    public static var persistedDefault: Self { Self() }
    public var persistedValue: Value {
        if let m = managedObject, m.isManaged { return .link(LinkTarget(type: m.type.name, key: m.primaryKeyValue)) }
        return .null
    }
    public static func fromPersisted(_ v: Value, store: Store?) -> Self {
        let o = Self()
        if case .link(let t) = v, let store, let d = try? store.object(ofType: typeName, forPrimaryKey: t.key) {
            o.bind(to: d)
        }
        return o
    }
}

/// Property names of `@Persisted` wrappers, per model class and wrapper key path.
/// (Key paths are not `Sendable`, so a plain lock guards the table instead of a `Mutex`.)
let persistedNamesLock = NSLock()
nonisolated(unsafe) var persistedNames: [ObjectIdentifier: [AnyKeyPath: String]] = [:]

/// Type-erased access to a `@Persisted` wrapper, used through reflection.
protocol AnyPersisted {
    func property(named: String) -> Property
    func setUnmanaged(_ value: Any)
    func unmanagedValue() -> Any?
    var boxObject: AnyObject { get }
}

/// Marks a model property as stored; options declare the primary key and indexes.
@propertyWrapper
public struct Persisted<T: PersistableValue>: AnyPersisted {
    final class Box {
        var local: T
        /// A value given at init that is not a T yet (nested values for a link, an Int for an Int16...).
        var raw: Any?
        /// The property's name, learnt on first managed use.
        var name = ""
        init(_ v: T) { local = v }
    }
    let box: Box
    let primaryKey: Bool
    let indexed: Bool
    let origin: (type: String, property: String)?

    public init(wrappedValue: T, primaryKey: Bool = false, indexed: Bool = false) {
        box = Box(wrappedValue)
        self.primaryKey = primaryKey
        self.indexed = indexed
        origin = nil
    }

    public init(primaryKey: Bool = false, indexed: Bool = false) {
        self.init(wrappedValue: T.persistedDefault, primaryKey: primaryKey, indexed: indexed)
    }

    /// `@Persisted` belongs on `Object` subclasses: reads and writes go through the enclosing object.
    @available(*, unavailable, message: "@Persisted can only be used on properties of Object subclasses")
    public var wrappedValue: T {
        get { fatalError("@Persisted outside an Object subclass") }
        // swift-format-ignore
        set { fatalError("@Persisted outside an Object subclass") }
    }

    var boxObject: AnyObject { box }

    /// Reads and writes of `object.property`: the unmanaged value, or the managed object's.
    public static subscript<EnclosingSelf: Object>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, T>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<T>>
    ) -> T {
        get { object[keyPath: storageKeyPath].read(in: object, storage: storageKeyPath) }
        set { object[keyPath: storageKeyPath].write(newValue, in: object, storage: storageKeyPath) }
    }

    private func name<E: Object>(in object: E, storage: AnyKeyPath) -> String {
        if box.name.isEmpty { box.name = E.propertyName(for: storage, box: box) }
        return box.name
    }

    private func read<E: Object>(in object: E, storage: AnyKeyPath) -> T {
        guard let o = object.managedObject else { return box.local }
        let name = name(in: object, storage: storage)
        if o.isGone || o.storeWasReleased {
            // Gone (deleted, found deleted by a read, its store released): the values it last read, as
            // `DynamicObject`'s subscript answers; a list or inverse link as an empty one, a link as nil (never by
            // its key, which another object may have taken since).
            // A list or inverse link is attached even now, so that counting throws `storeReleased` and edits throw
            // instead of going to the in-memory copy (a list first read after its object went was unattached: 0,
            // edits dropped).
            if let collection = attachedCollection(to: o, name: name) { return collection }
            if case .link = T.persistedType { return T.fromPersisted(.null, store: nil) }
            let error: StoreError =
                o.isGone ? .invalidated(type: o.type.name) : .storeReleased(type: o.type.name)
            if let last = o.lastKnownValue(forKey: name, after: error) { return T.fromPersisted(last, store: nil) }
            preconditionFailure(error.description)
        }
        guard o.isManaged else { return box.local }
        if let collection = attachedCollection(to: o, name: name) { return collection }
        do {
            return T.fromPersisted(try o.value(forKey: name), store: o.store)
        } catch {
            // Deleted by another task or process since it was read: the values it last read (another task can
            // delete between any `isInvalidated` check and this read). Otherwise a getter cannot throw, and a
            // default would be a silent wrong value.
            if let last = o.lastKnownValue(forKey: name, after: error) {
                return T.fromPersisted(last, store: o.store)
            }
            preconditionFailure("cannot read \(o.type.name).\(name): \(error)")
        }
    }

    /// A list or inverse-link property's value, attached to its owner (`nil` for other properties).
    private func attachedCollection(to owner: DynamicObject, name: String) -> T? {
        switch T.persistedType {
        case .list: (box.local as? AnyObjectList)?.attach(owner: owner, property: name)
        case .linkingObjects: (box.local as? AnyLinkingObjects)?.attach(owner: owner, property: name)
        default: return nil
        }
        return box.local
    }

    private func write<E: Object>(_ newValue: T, in object: E, storage: AnyKeyPath) {
        guard let o = object.managedObject, o.isManaged, let store = o.store else {
            if let o = object.managedObject, o.wasDeleted {
                preconditionFailure(StoreError.invalidated(type: o.type.name).description)
            }
            if let o = object.managedObject, o.storeWasReleased {
                preconditionFailure(StoreError.storeReleased(type: o.type.name).description)
            }
            box.local = newValue
            box.raw = nil
            return
        }
        let name = name(in: object, storage: storage)
        guard store.isInWriteTransaction else {
            preconditionFailure(
                "cannot set \(o.type.name).\(name) outside a write transaction: wrap it in store.write { ... }")
        }
        do {
            var value = newValue.persistedValue
            if let linked = newValue as? Object, !linked.isManaged {
                // Realm's rule: assigning an unmanaged object to a managed link adds it.
                try store.add(linked)
                value = linked.persistedValue
            }
            try o.setValue(value, forKey: name)
        } catch {
            // Setters cannot throw: the enclosing write throws this at commit, after rolling back.
            store.recordWriteError(error)
        }
    }

    func property(named name: String) -> Property {
        if let inverse = box.local as? AnyLinkingObjects {
            return Property(name, .linkingObjects(type: inverse.originType, property: inverse.originProperty))
        }
        let def: DefaultValue? =
            switch T.persistedOptional ? Value.null : box.local.persistedValue {
            case .bool(let b): .bool(b)
            case .int(let i): .int(i)
            case .double(let d): .double(d)
            case .string(let s): .string(s)
            case .date(let d): .string(ISODate.format(d))
            case .decimal(let d): .string("\(d)")
            case .uuid(let u): .string(u.uuidString.lowercased())
            default: nil
            }
        return Property(
            name, T.persistedType, optional: T.persistedOptional, default: primaryKey ? nil : def,
            indexed: indexed, primaryKey: primaryKey)
    }

    func setUnmanaged(_ value: Any) {
        box.raw = nil
        if let v = value as? T {
            box.local = v
        } else if let list = box.local as? AnyObjectList, let items = value as? [Any] {
            list.setUnmanaged(items)
            if items.contains(where: { !($0 is Object) }) { box.raw = items }
        } else if let v = Value.loose(value), !T.persistedType.isLinkLike {
            box.local = T.fromPersisted(v, store: nil)
        } else {
            box.raw = value
        }
    }

    func unmanagedValue() -> Any? {
        if let raw = box.raw { return raw }
        if let list = box.local as? AnyObjectList { return list.anyMembers }
        if let o = box.local as? Object { return o.isManaged ? o.managedObject as Any : o }
        if let opt = box.local as? OptionalObject { return opt.wrappedObject }
        return box.local.persistedValue
    }
}

extension Persisted where T: AnyLinkingObjects {
    /// An inverse link: the objects of T's type whose `originProperty` points at this object.
    public init(originProperty: String) {
        box = Box(T.persistedDefault)
        (box.local as AnyLinkingObjects).setOrigin(property: originProperty)
        primaryKey = false
        indexed = false
        origin = nil
    }
}

protocol OptionalObject { var wrappedObject: Any? { get } }
extension Optional: OptionalObject {
    var wrappedObject: Any? {
        switch self {
        case .none: return nil
        case .some(let w):
            if let o = w as? Object { return o.isManaged ? o.managedObject as Any : o }
            if let p = w as? any PersistableValue { return p.persistedValue }
            return w
        }
    }
}

extension PropertyType {
    var isLinkLike: Bool {
        switch self {
        case .link, .list, .linkingObjects, .embedded: true
        default: false
        }
    }
}

extension Value {
    /// A Value from a plain Swift scalar, or nil for anything else (the one conversion both unmanaged
    /// objects and the store's writes use).
    static func loose(_ raw: Any) -> Value? {
        switch raw {
        case let v as Value: v
        case let s as String: .string(s)
        case let s as Substring: .string(String(s))
        case let b as Bool: .bool(b)
        case let i as Int: .int(Int64(i))
        case let i as Int64: .int(i)
        case let i as Int32: .int(Int64(i))
        case let i as Int16: .int(Int64(i))
        case let i as Int8: .int(Int64(i))
        case let i as UInt8: .int(Int64(i))
        case let d as Double: .double(d)
        case let f as Float: .double(Double(f))
        case let d as Date: .date(d)
        case let d as Data: .data(d)
        case let u as UUID: .uuid(u)
        case let d as Decimal: .decimal(d)
        default: nil
        }
    }
}
