import Foundation

/// What happened to an observed object.
public enum ObjectChange: Sendable, Equatable {
    /// Some stored properties changed (their names, in declaration order).
    case change(propertyNames: [String])
    /// The object was deleted; observation ends.
    case deleted
    /// The object could not be read again; observation goes on.
    case error(String)
}

/// The last values an object observer saw.
final class ObjectSnapshotter: @unchecked Sendable {
    // `values` and `ended` are only touched while `lock` is held; the rest is immutable and Sendable.
    private let store: Store
    private let type: ObjectSchema
    private let key: SQLValue
    private let lock = NSLock()
    private var values: [String: Value]
    private var ended = false

    init(store: Store, type: ObjectSchema, key: SQLValue) throws {
        self.store = store
        self.type = type
        self.key = key
        guard let row = try store.loadRow(type: type, key: key) else { throw StoreError.invalidated(type: type.name) }
        values = row
    }

    func next() -> ObjectChange? {
        lock.withLock {
            guard !ended else { return nil }
            do {
                guard let row = try store.loadRow(type: type, key: key) else {
                    ended = true
                    return .deleted
                }
                let changed = type.storedProperties.map(\.name).filter { row[$0] != values[$0] }
                values = row
                return changed.isEmpty ? nil : .change(propertyNames: changed)
            } catch {
                return .error("\(error)")
            }
        }
    }
}

extension DynamicObject {
    /// Calls `callback` after each commit that changed this object's stored properties or deleted it
    /// (from this store, another store or process: see `Store.observe`). Keep the token to keep observing.
    /// Throws `StoreError.observeInWriteTransaction` inside a write (Realm refuses the same).
    public func observe(_ callback: @escaping @Sendable (ObjectChange) -> Void) throws -> ObservationToken {
        guard let store, let key = storedKey else { throw StoreError.unmanagedObject(type: type.name) }
        return try store.observeObject(type: type, key: key, callback)
    }

    /// This object's changes as an async sequence; it ends after `.deleted`. Each task iterating it hears every
    /// change from its start (see `ChangeStream`); the sequence keeps the store alive.
    public var changes: ChangeStream<AsyncThrowingStream<ObjectChange, Error>> {
        guard let store, let key = storedKey else {
            let error = StoreError.unmanagedObject(type: type.name)
            return ChangeStream { AsyncThrowingStream { $0.finish(throwing: error) } }
        }
        let type = self.type
        return ChangeStream {
            AsyncThrowingStream { continuation in
                do {
                    let token = try store.observeObject(type: type, key: key) { change in
                        continuation.yield(change)
                        if change == .deleted { continuation.finish() }
                    }
                    continuation.onTermination = { _ in token.invalidate() }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
        }
    }
}

extension Store {
    /// `DynamicObject.observe` by type and key: what a stream started from another task needs (not the handle,
    /// which belongs to the task that read it).
    func observeObject(type: ObjectSchema, key: SQLValue, _ callback: @escaping @Sendable (ObjectChange) -> Void)
        throws -> ObservationToken
    {
        guard !isInWriteTransaction else { throw StoreError.observeInWriteTransaction }
        let snapshotter = try ObjectSnapshotter(store: self, type: type, key: key)
        return observeCatchingUp { _ in
            if let change = snapshotter.next() { callback(change) }
        }
    }
}

extension Object {
    /// See `DynamicObject.observe`; throws for an unmanaged object.
    public func observe(_ callback: @escaping @Sendable (ObjectChange) -> Void) throws -> ObservationToken {
        guard let managedObject else { throw StoreError.unmanagedObject(type: Self.typeName) }
        return try managedObject.observe(callback)
    }

    /// See `DynamicObject.changes`.
    public var changes: ChangeStream<AsyncThrowingStream<ObjectChange, Error>> {
        guard let managedObject else {
            let error = StoreError.unmanagedObject(type: Self.typeName)
            return ChangeStream { AsyncThrowingStream { $0.finish(throwing: error) } }
        }
        return managedObject.changes
    }
}
