import Foundation
import UrnaStore

/// What a migration closure works with: the old and new schema and, for every object, its old
/// form (as the file holds it) and its new form (what the step writes). Realm's migration API.
///
/// ```swift
/// MigrationStep("fullName") { migration in
///     try migration.enumerateObjects(ofType: "Person") { old, new in
///         new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
///     }
///     try migration.renameProperty(onType: "Dog", from: "name", to: "nickname")
///     try migration.deleteData(forType: "Obsolete")
/// }
/// ```
///
/// Objects are streamed: an enumeration holds one object at a time, whatever the file's size.
public final class Migration {
    unowned let executor: StepExecutor

    init(executor: StepExecutor) {
        self.executor = executor
        oldSchema = executor.step.from
        newSchema = executor.step.to
        oldSchemaVersion = executor.step.from.version
        newSchemaVersion = executor.step.to.version
    }

    /// The schema the file has before this step.
    public let oldSchema: Schema
    /// The schema the file has after this step.
    public let newSchema: Schema
    /// The version the file has before this step.
    public let oldSchemaVersion: Int
    /// The version the file has after this step.
    public let newSchemaVersion: Int

    /// Calls `block` with the old and new form of every object of `typeName` the file holds (none for
    /// a type the old version doesn't have). New forms start with the values carried over: same-named
    /// and renamed properties, widened values, defaults for added properties.
    public func enumerateObjects(
        ofType typeName: String, _ block: (_ oldObject: MigrationObject, _ newObject: MigrationObject) throws -> Void
    ) throws {
        try executor.enumerate(typeName, block)
    }

    /// Keeps a property's data under a new name (call it before enumerating the type).
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) throws {
        try executor.renameProperty(type: typeName, from: oldName, to: newName)
    }

    /// Deletes every object of a type (links to them become nil, they leave every list).
    public func deleteData(forType typeName: String) throws {
        try executor.deleteData(typeName)
    }

    /// Creates an object of the new schema; properties not given take their defaults.
    @discardableResult
    public func create(_ typeName: String, value: [String: Value] = [:]) throws -> MigrationObject {
        try executor.create(typeName, values: value)
    }

    /// Deletes a new object (or the new form of an old one).
    public func delete(_ object: MigrationObject) throws {
        try executor.delete(object)
    }

    /// The old form of the object of `typeName` with this primary key (or `_id`), or nil.
    public func oldObject(ofType typeName: String, forPrimaryKey key: Value) throws -> MigrationObject? {
        try executor.oldObject(ofType: typeName, storedKey: ValueCodec.encodeKey(key))
    }

    /// The new object of `typeName` whose primary key is now `key`, or nil (its type must have been
    /// enumerated, or be new in this step).
    public func newObject(ofType typeName: String, forPrimaryKey key: Value) throws -> MigrationObject? {
        try executor.newObject(ofType: typeName, currentKey: ValueCodec.encodeKey(key))
    }

    /// The new form of an old object (its type must have been enumerated already), or nil when deleted.
    public func newObject(for oldObject: MigrationObject) throws -> MigrationObject? {
        guard let key = oldObject.originKey else { return oldObject.role == .new ? oldObject : nil }
        return try executor.newObject(ofType: oldObject.typeName, originKey: key)
    }

    /// The new form of the old object of `typeName` that had the key `oldKey`, or nil.
    public func newObject(ofType typeName: String, oldPrimaryKey oldKey: Value) throws -> MigrationObject? {
        try executor.newObject(ofType: typeName, originKey: ValueCodec.encodeKey(oldKey))
    }
}
