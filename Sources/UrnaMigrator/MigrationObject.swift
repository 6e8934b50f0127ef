import Foundation
import UrnaStore

/// One object inside a migration step, in its old form (read-only) or its new form (writable),
/// read and written by property name as `Value`s.
///
/// ```swift
/// try migration.enumerateObjects(ofType: "Person") { old, new in
///     new["fullName"] = .string("\(old["firstName"]) \(old["lastName"])")
/// }
/// ```
///
/// Links read from a new object show the key it had when it was carried over (the old key); once
/// the step's closure returns, links to objects whose key changed are rewritten to the new key.
/// A link you set is taken as final: point it at an object's new key (`otherNew.link`).
public final class MigrationObject {
    /// Whether this is the old form (as the file holds it) or the new form (what the step writes).
    public enum Role: Sendable { case old, new }

    public let role: Role
    /// The object's type as the old or new schema declares it.
    public let objectSchema: ObjectSchema
    unowned let transfer: TypeTransfer
    unowned let executor: StepExecutor
    /// Stored column values, in the order of the transfer's old or new columns.
    var values: [SQLValue]
    /// New objects: which columns the closure set.
    var dirty: [Bool]
    /// New objects: columns whose carried value did not convert exactly.
    var inexact: [Int] = []
    /// New objects: lists the closure set (target keys).
    var lists: [String: [SQLValue]] = [:]
    /// The key the object had in the old file (nil for objects created by the step).
    let originKey: SQLValue?
    /// New objects: the row in the new table once written.
    var rowid: Int64?
    /// New objects enumerated but not written yet (written when the block returns).
    var isPending = false
    public internal(set) var isDeleted = false
    var changed = false
    /// Created by the step (not carried from the old file).
    var isCreated = false

    init(role: Role, schema: ObjectSchema, transfer: TypeTransfer, executor: StepExecutor, values: [SQLValue], originKey: SQLValue?) {
        self.role = role
        self.objectSchema = schema
        self.transfer = transfer
        self.executor = executor
        self.values = values
        self.dirty = role == .new ? Array(repeating: false, count: values.count) : []
        self.originKey = originKey
    }

    /// The type's name.
    public var typeName: String { objectSchema.name }

    var columnIndex: [String: Int] { role == .old ? transfer.oldIndex : transfer.newIndex }
    var columns: [StepColumn] { role == .old ? transfer.oldColumns : transfer.newColumns }
    var schema: Schema { role == .old ? executor.step.from : executor.step.to }

    /// A property's value by name; an unknown name or a write that doesn't fit stops the step with an
    /// error naming the property (use `value(forKey:)`/`setValue(_:forKey:)` to handle errors yourself).
    public subscript(name: String) -> Value {
        get {
            do { return try value(forKey: name) } catch {
                executor.record(error)
                return .null
            }
        }
        set {
            do { try setValue(newValue, forKey: name) } catch { executor.record(error) }
        }
    }

    /// The primary key (or `_id`) value.
    public var primaryKeyValue: Value {
        let keyIndex = role == .old ? transfer.oldKeyIndex : transfer.newKeyIndex
        guard let i = keyIndex else { return .null }
        return ValueCodec.decodeKey(values[i], keyType: objectSchema.primaryKey?.type ?? .int64)
    }

    /// A link to this object (by its current key), to assign to a link property.
    public var link: Value { .link(LinkTarget(type: objectSchema.name, key: primaryKeyValue)) }

    /// A property's value; throws for unknown properties.
    public func value(forKey name: String) throws -> Value {
        if let i = columnIndex[name] {
            let c = columns[i]
            if c.property == nil { return ValueCodec.decodeKey(values[i], keyType: .int64) }
            return ValueCodec.decode(values[i], as: c.type, schema: schema)
        }
        guard let p = objectSchema[property: name] else {
            throw MigrationObjectError.unknownProperty(type: objectSchema.name, property: name, version: schema.version)
        }
        switch p.type {
        case .list(let target):
            return .list(try executor.listValue(of: self, property: p, target: target))
        case .linkingObjects(let origin, let originProperty):
            guard role == .old else { throw MigrationObjectError.inverseOfNewObject(type: objectSchema.name, property: name) }
            return .list(try executor.inverseValue(of: self, origin: origin, originProperty: originProperty))
        default:
            return p.effectiveDefault  // ignored (never stored)
        }
    }

    /// Sets a property of a new object; throws when the value doesn't fit the property.
    public func setValue(_ value: Value, forKey name: String) throws {
        guard role == .new else { throw MigrationObjectError.oldIsReadOnly(type: objectSchema.name, property: name) }
        guard !transfer.isRemoved else { throw MigrationObjectError.removedType(objectSchema.name) }
        guard !isDeleted else { throw MigrationObjectError.deleted(type: objectSchema.name) }
        guard let p = objectSchema[property: name] else {
            throw MigrationObjectError.unknownProperty(type: objectSchema.name, property: name, version: schema.version)
        }
        switch p.type {
        case .linkingObjects:
            throw StoreError.readOnlyProperty(type: objectSchema.name, property: name)
        case .list(let target):
            let items: [LinkTarget]
            switch value {
            case .list(let l): items = l
            case .null: items = []
            default: throw StoreError.typeMismatch(type: objectSchema.name, property: name, expected: p.type.name, got: value.kindName)
            }
            for item in items where item.type != target {
                throw StoreError.typeMismatch(type: objectSchema.name, property: name, expected: p.type.name, got: "link(\(item.type))")
            }
            lists[name] = items.map { ValueCodec.encodeKey($0.key) }
            changed = true
            if !isPending { try executor.flushLists(of: self) }
            return
        default:
            break
        }
        guard let i = columnIndex[name] else { return }  // ignored property: nothing stored
        let stored: SQLValue
        if case .link(let target) = p.type {
            switch value {
            case .null: stored = .null
            case .link(let t):
                guard t.type == target else {
                    throw StoreError.typeMismatch(type: objectSchema.name, property: name, expected: p.type.name, got: "link(\(t.type))")
                }
                stored = ValueCodec.encodeKey(t.key)
            case .int, .string, .uuid: stored = ValueCodec.encodeKey(value)
            default: throw StoreError.typeMismatch(type: objectSchema.name, property: name, expected: p.type.name, got: value.kindName)
            }
        } else {
            let v = try ValueCodec.coerce(value, to: p, in: objectSchema.name)
            stored = ValueCodec.encode(v, as: p.type, schema: schema)
        }
        if !isPending, rowid != nil, i == transfer.newKeyIndex, stored != values[i], originKey == nil, !isCreated,
            transfer.old != nil
        {
            throw MigrationObjectError.keyChangeNeedsOrigin(type: objectSchema.name)
        }
        if stored != values[i] { changed = true }
        values[i] = stored
        dirty[i] = true
        if !isPending, rowid != nil { try executor.writeColumn(of: self, column: i) }
    }

    /// The object a link of an old object points at, in its old form (nil when the link is nil).
    public func linked(_ name: String) throws -> MigrationObject? {
        guard role == .old else { throw MigrationObjectError.followNewLink(type: objectSchema.name, property: name) }
        guard let p = objectSchema[property: name], case .link(let target) = p.type, let i = columnIndex[name] else {
            throw MigrationObjectError.unknownProperty(type: objectSchema.name, property: name, version: schema.version)
        }
        if values[i].isNull { return nil }
        return try executor.oldObject(ofType: target, storedKey: values[i])
    }

    /// Every stored property's value, in declaration order (for printing).
    public func dictionary() -> [(String, Value)] {
        columns.indices.map { (columns[$0].name, (try? value(forKey: columns[$0].name)) ?? .null) }
    }
}

extension MigrationObject: CustomStringConvertible {
    public var description: String {
        "\(typeName)(\(role == .old ? "old" : "new")) { " + dictionary().map { "\($0.0) = \($0.1)" }.joined(separator: "; ") + " }"
    }
}

/// Misuse of migration objects, said so the closure's author can fix it.
public enum MigrationObjectError: Error, Sendable, CustomStringConvertible {
    case unknownProperty(type: String, property: String, version: Int)
    case oldIsReadOnly(type: String, property: String)
    case deleted(type: String)
    case inverseOfNewObject(type: String, property: String)
    case followNewLink(type: String, property: String)
    case unknownType(String, version: Int?)
    case nestedEnumeration(String)
    case notEnumeratedYet(String)
    case renameAfterEnumeration(type: String)
    case badRename(type: String, from: String, to: String, reason: String)
    case removedType(String)
    case keyChangeNeedsOrigin(type: String)

    public var description: String {
        switch self {
        case .unknownProperty(let t, let p, let v): "\(t) has no property '\(p)' in version \(v)"
        case .oldIsReadOnly(let t, let p): "\(t).\(p): old objects are read-only; set the value on the new object"
        case .deleted(let t): "this \(t) was deleted in this step"
        case .inverseOfNewObject(let t, let p): "\(t).\(p): inverse links of new objects are not known yet; read them from the old object"
        case .followNewLink(let t, let p): "\(t).\(p): follow links on the old object (migration.newObject(for:) gives its new form)"
        case .unknownType(let t, let v): v.map { "no type '\(t)' in version \($0)" } ?? "no type '\(t)' in either version of this step"
        case .nestedEnumeration(let t): "\(t) is already being enumerated: don't enumerate a type inside its own enumeration"
        case .notEnumeratedYet(let t): "the new \(t) objects don't exist yet: enumerate \(t) before looking up its new objects"
        case .renameAfterEnumeration(let t): "call renameProperty(onType: \"\(t)\", ...) before enumerating or writing \(t)"
        case .badRename(let t, let f, let to, let reason): "cannot rename \(t).\(f) to \(to): \(reason)"
        case .removedType(let t): "\(t) is not in the new version: there are no new \(t) objects"
        case .keyChangeNeedsOrigin(let t):
            "change a \(t)'s primary key while enumerating it, or on the object newObject(for:) returns, so links to it follow"
        }
    }
}
