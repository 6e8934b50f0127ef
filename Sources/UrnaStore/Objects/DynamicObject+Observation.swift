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
        guard !store.isInWriteTransaction else { throw StoreError.observeInWriteTransaction }
        let snapshotter = try ObjectSnapshotter(store: store, type: type, key: key)
        return store.observeCatchingUp { _ in
            if let change = snapshotter.next() { callback(change) }
        }
    }

    /// This object's changes as an async sequence; it ends after `.deleted`.
    public var changes: AsyncThrowingStream<ObjectChange, Error> {
        AsyncThrowingStream { continuation in
            do {
                let token = try observe { change in
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

extension Object {
    /// See `DynamicObject.observe`; throws for an unmanaged object.
    public func observe(_ callback: @escaping @Sendable (ObjectChange) -> Void) throws -> ObservationToken {
        guard let managedObject else { throw StoreError.unmanagedObject(type: Self.typeName) }
        return try managedObject.observe(callback)
    }

    /// See `DynamicObject.changes`.
    public var changes: AsyncThrowingStream<ObjectChange, Error> {
        guard let managedObject else {
            return AsyncThrowingStream { $0.finish(throwing: StoreError.unmanagedObject(type: Self.typeName)) }
        }
        return managedObject.changes
    }
}
