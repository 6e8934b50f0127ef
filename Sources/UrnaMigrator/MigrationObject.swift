import CSQLite
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
    let layout: ObjectLayout
    let executor: StepExecutor
    /// Stored column values, in the order of the layout's columns (see `loadedMask`).
    let values: ValueBuffer
    /// The object's mutable bookkeeping, behind a pointer: it changes for every object of every
    /// enumeration, and stored class properties would pay a dynamic exclusivity check each time.
    let state: UnsafeMutablePointer<ObjectState>

    init(layout: ObjectLayout, executor: StepExecutor, values: [SQLValue], originKey: SQLValue?) {
        self.role = layout.role
        self.layout = layout
        self.executor = executor
        self.values = ValueBuffer(values)
        state = .allocate(capacity: 1)
        state.initialize(to: ObjectState(originKey: originKey))
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// While an enumeration is on this object's row, columns are read from the statement on first
    /// use: bit i set means `values[i]` holds column i (objects with more than 64 columns load eagerly).
    var loadedMask: UInt64 {
        get { state.pointee.loadedMask }
        set { state.pointee.loadedMask = newValue }
    }
    /// The live row unloaded columns come from.
    var row: RowStatement? {
        get { state.pointee.row }
        set { state.pointee.row = newValue }
    }
    /// New objects: which columns the closure set (bit i = column i; columns past 63 in `dirtyHigh`).
    var dirtyMask: UInt64 {
        get { state.pointee.dirtyMask }
        set { state.pointee.dirtyMask = newValue }
    }
    var dirtyHigh: Set<Int> {
        get { state.pointee.dirtyHigh }
        _modify { yield &state.pointee.dirtyHigh }
    }
    /// New objects: columns whose carried value did not convert exactly.
    var inexact: [Int] {
        get { state.pointee.inexact }
        _modify { yield &state.pointee.inexact }
    }
    /// New objects: lists the closure set (target keys).
    var lists: [String: [SQLValue]] {
        get { state.pointee.lists }
        _modify { yield &state.pointee.lists }
    }
    /// The key the object had in the old file (nil for objects created by the step).
    var originKey: SQLValue? {
        get { state.pointee.originKey }
        set { state.pointee.originKey = newValue }
    }
    /// New objects: the row in the new table once written.
    var rowid: Int64? {
        get { state.pointee.rowid }
        set { state.pointee.rowid = newValue }
    }
    /// New objects enumerated but not written yet.
    var isPending: Bool {
        get { state.pointee.isPending }
        set { state.pointee.isPending = newValue }
    }
    /// Deleted in this step.
    public internal(set) var isDeleted: Bool {
        get { state.pointee.isDeleted }
        set { state.pointee.isDeleted = newValue }
    }
    var changed: Bool {
        get { state.pointee.changed }
        set { state.pointee.changed = newValue }
    }
    /// Created by the step (not carried from the old file).
    var isCreated: Bool {
        get { state.pointee.isCreated }
        set { state.pointee.isCreated = newValue }
    }
    /// The closure kept a reference to this new object (so it can't be reused).
    var escaped: Bool {
        get { state.pointee.escaped }
        set { state.pointee.escaped = newValue }
    }
    /// Its rowid must be known once written (escaped, explicit links, lists).
    var needsRowid: Bool {
        get { state.pointee.needsRowid }
        set { state.pointee.needsRowid = newValue }
    }

    /// The object's type as the old or new schema declares it.
    public var objectSchema: ObjectSchema { layout.objectSchema }
    /// The type's name.
    public var typeName: String { layout.objectSchema.name }

    var transfer: TypeTransfer { layout.transfer }
    var columns: [StepColumn] { layout.columns }
    var schema: Schema { layout.schema }

    /// Reads column i from the live row if it hasn't been read yet.
    @inline(__always) func load(_ i: Int) {
        guard i < 64 else { return }
        let bit: UInt64 = 1 << UInt64(i)
        guard state.pointee.loadedMask & bit == 0, let handle = state.pointee.rowHandle else { return }
        values[i] = RowStatement.value(handle, layout.rowColumn[i])
        state.pointee.loadedMask |= bit
    }

    /// Reads every column still on the row and forgets the row (the object outlives it).
    func detach() {
        guard row != nil else { return }
        for i in 0..<values.count { load(i) }
        row = nil
        loadedMask = ~0
    }

    /// Objects wider than 64 columns are always loaded.
    @inline(__always) func isLoaded(_ i: Int) -> Bool { i >= 64 || state.pointee.loadedMask & (1 << UInt64(i)) != 0 }

    @inline(__always) func isDirty(_ i: Int) -> Bool {
        i < 64 ? state.pointee.dirtyMask & (1 << UInt64(i)) != 0 : state.pointee.dirtyHigh.contains(i)
    }

    @inline(__always) func markDirty(_ i: Int) {
        if i < 64 { state.pointee.dirtyMask |= 1 << UInt64(i) } else { state.pointee.dirtyHigh.insert(i) }
    }

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
        guard let i = layout.keyIndex, i < values.count else { return .null }
        load(i)
        return ValueCodec.decodeKey(values[i], keyType: layout.keyType)
    }

    /// A link to this object (by its current key), to assign to a link property.
    public var link: Value { .link(LinkTarget(type: typeName, key: primaryKeyValue)) }

    /// A property's value; throws for unknown properties.
    public func value(forKey name: String) throws -> Value {
        if let i = layout.column(name) {
            if role == .old { layout.transfer.noteOldRead(i) }
            // A text, integer or double column still on the live row is answered straight from SQLite,
            // without keeping a copy in the object (a closure reads most properties once).
            if i < 64, state.pointee.loadedMask & (1 << UInt64(i)) == 0, let row = state.pointee.rowHandle,
                let v = Self.direct(row, layout.rowColumn[i], layout.scalar[i])
            {
                return v
            }
            load(i)
            switch layout.scalar[i] {
            case .text: if case .text(let s) = values.base[i] { return .string(s) }
            case .integer: if case .integer(let n) = values.base[i] { return .int(n) }
            case .real: if case .real(let d) = values.base[i] { return .double(d) }
            case .other: break
            }
            let v = values[i]
            if layout.hidden[i] { return ValueCodec.decodeKey(v, keyType: .int64) }
            return ValueCodec.decode(v, as: layout.types[i], schema: layout.needsSchema[i] ? layout.schema : nil)
        }
        guard let p = layout.propertyOf[name] else {
            throw MigrationObjectError.unknownProperty(type: typeName, property: name, version: schema.version)
        }
        switch p.type {
        case .list(let target):
            if role == .old { layout.transfer.oldListsRead.insert(name) }
            return .list(try executor.listValue(of: self, property: p, target: target))
        case .linkingObjects(let origin, let originProperty):
            guard role == .old else { throw MigrationObjectError.inverseOfNewObject(type: typeName, property: name) }
            return .list(try executor.inverseValue(of: self, origin: origin, originProperty: originProperty))
        default:
            return p.effectiveDefault  // ignored (never stored)
        }
    }

    /// The value of a live row's column when its storage class is the one the property stores (nil: take
    /// the general path, which also decodes NULLs and other classes).
    @inline(__always) static func direct(_ row: OpaquePointer, _ column: Int32, _ kind: ScalarKind) -> Value? {
        guard kind != .other, let v = sqlite3_column_value(row, column) else { return nil }
        switch (sqlite3_value_type(v), kind) {
        case (SQLITE_TEXT, .text): return .string(RowStatement.text(v))
        case (SQLITE_INTEGER, .integer): return .int(sqlite3_value_int64(v))
        case (SQLITE_FLOAT, .real): return .double(sqlite3_value_double(v))
        default: return nil
        }
    }

    /// Sets a property of a new object; throws when the value doesn't fit the property.
    public func setValue(_ value: Value, forKey name: String) throws {
        guard role == .new else { throw MigrationObjectError.oldIsReadOnly(type: typeName, property: name) }
        guard !layout.isRemovedType else { throw MigrationObjectError.removedType(typeName) }
        guard !state.pointee.isDeleted else { throw MigrationObjectError.deleted(type: typeName) }
        guard let i = layout.column(name) else { return try setNonColumn(value, forKey: name) }
        if layout.writesDirectly[i] {
            // Strings, Int64 and Double are stored as they are (no coercion, no range to check).
            switch value {
            case .string(let s): if layout.scalar[i] == .text { return try store(.text(s), at: i) }
            case .int(let n): if layout.scalar[i] == .integer { return try store(.integer(n), at: i) }
            case .double(let d): if layout.scalar[i] == .real { return try store(.real(d), at: i) }
            default: break
            }
        }
        if case .decimal(let d) = value, case .decimal(let scale) = layout.types[i] {
            // What coercing and then encoding give, with the Decimal scaled once instead of twice (Foundation's
            // decimal arithmetic was a tenth of a closure's time that sets one decimal per object).
            return try store(
                .integer(try ValueCodec.scaledInteger(d, scale: scale, type: typeName, property: name)), at: i)
        }
        try store(try encodeSlow(value, column: i, name: name), at: i)
    }

    /// Stores an encoded value in column i (written to the table too once the object is).
    @inline(__always) private func store(_ stored: consuming SQLValue, at i: Int) throws {
        load(i)
        let slot = values.base + i
        if !Self.same(stored, slot) {
            if !state.pointee.isPending, state.pointee.rowid != nil, i == layout.keyIndex,
                state.pointee.originKey == nil,
                !state.pointee.isCreated, layout.hasOld
            {
                throw MigrationObjectError.keyChangeNeedsOrigin(type: typeName)
            }
            state.pointee.changed = true
        }
        guard !state.pointee.isPending, state.pointee.rowid != nil else {
            slot.pointee = consume stored
            markDirty(i)
            return
        }
        // A written object's column goes to the table at once; when the table refuses it (a key another object
        // holds), the object keeps the value the table has, so a closure that catches the error reads what is
        // stored, not a value that never was.
        let previous = slot.pointee
        slot.pointee = consume stored
        markDirty(i)
        do { try executor.writeColumn(of: self, column: i) } catch {
            slot.pointee = previous
            throw error
        }
    }

    /// `a == b.pointee`, without copying the stored value out.
    @inline(__always) static func same(_ a: SQLValue, _ b: UnsafeMutablePointer<SQLValue>) -> Bool {
        switch a {
        case .text(let x):
            guard case .text(let y) = b.pointee else { return false }
            // Only the empty string is equal to the empty string (no character normalizes to nothing):
            // a carried default "" replaced by a value is told apart without comparing.
            if x.isEmpty != y.isEmpty { return false }
            return x == y
        case .integer(let x): if case .integer(let y) = b.pointee { return x == y } else { return false }
        case .null: if case .null = b.pointee { return true } else { return false }
        default: return a == b.pointee
        }
    }

    /// Values that need the store's coercion (links, dates, decimals, narrow integers, ...).
    func encodeSlow(_ value: Value, column i: Int, name: String) throws -> SQLValue {
        if case .link(let target) = layout.types[i] {
            switch value {
            case .null: return .null
            case .link(let t):
                guard t.type == target else {
                    throw StoreError.typeMismatch(
                        type: typeName, property: name, expected: "link(\(target))", got: "link(\(t.type))")
                }
                return ValueCodec.encodeKey(t.key)
            case .int, .string, .uuid: return ValueCodec.encodeKey(value)
            default:
                throw StoreError.typeMismatch(
                    type: typeName, property: name, expected: "link(\(target))", got: value.kindName)
            }
        }
        let p = layout.propertyOf[name] ?? Property(name, layout.types[i])
        let v = try ValueCodec.coerce(value, to: p, in: typeName, schema: schema)
        return ValueCodec.encode(v, as: p.type, schema: layout.needsSchema[i] ? schema : nil)
    }

    /// Lists (and unknown or computed properties) have no column.
    func setNonColumn(_ value: Value, forKey name: String) throws {
        guard let p = layout.propertyOf[name] else {
            throw MigrationObjectError.unknownProperty(type: typeName, property: name, version: schema.version)
        }
        switch p.type {
        case .linkingObjects:
            throw StoreError.readOnlyProperty(type: typeName, property: name)
        case .list(let target):
            let items: [LinkTarget]
            switch value {
            case .list(let l): items = l
            case .null: items = []
            default:
                throw StoreError.typeMismatch(
                    type: typeName, property: name, expected: p.type.name, got: value.kindName)
            }
            for item in items where item.type != target {
                throw StoreError.typeMismatch(
                    type: typeName, property: name, expected: p.type.name, got: "link(\(item.type))")
            }
            lists[name] = items.map { ValueCodec.encodeKey($0.key) }
            changed = true
            if !isPending { try executor.flushLists(of: self) }
        default:
            return  // ignored property: nothing stored
        }
    }

    /// The object a link of an old object points at, in its old form (nil when the link is nil).
    public func linked(_ name: String) throws -> MigrationObject? {
        guard role == .old else { throw MigrationObjectError.followNewLink(type: typeName, property: name) }
        guard let i = layout.column(name), case .link(let target) = layout.types[i] else {
            throw MigrationObjectError.unknownProperty(type: typeName, property: name, version: schema.version)
        }
        load(i)
        if values[i].isNull { return nil }
        return try executor.oldObject(ofType: target, storedKey: values[i])
    }

    /// Every stored property's value, in declaration order (for printing).
    public func dictionary() -> [(String, Value)] {
        columns.indices.map { (columns[$0].name, (try? value(forKey: columns[$0].name)) ?? .null) }
    }
}

/// A migration object's mutable bookkeeping (see `MigrationObject.state`).
struct ObjectState {
    var loadedMask: UInt64 = ~0
    /// The live row (kept alive here) and its handle, which reads use without reference counting.
    var row: RowStatement? { didSet { rowHandle = row?.handle } }
    private(set) var rowHandle: OpaquePointer?
    var dirtyMask: UInt64 = 0
    var dirtyHigh: Set<Int> = []
    var inexact: [Int] = []
    var lists: [String: [SQLValue]] = [:]
    var originKey: SQLValue?
    var rowid: Int64?
    var isPending = false
    var isDeleted = false
    var changed = false
    var isCreated = false
    var escaped = false
    var needsRowid = false

    init(originKey: SQLValue?) { self.originKey = originKey }
}

extension MigrationObject: CustomStringConvertible {
    public var description: String {
        "\(typeName)(\(role == .old ? "old" : "new")) { "
            + dictionary().map { "\($0.0) = \($0.1)" }.joined(separator: "; ") + " }"
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
    /// SQLite refused to write the object (two objects given one primary key, most often); `reason` says which.
    case notWritten(type: String, reason: String)

    public var description: String {
        switch self {
        case .unknownProperty(let t, let p, let v): "\(t) has no property '\(p)' in version \(v)"
        case .oldIsReadOnly(let t, let p): "\(t).\(p): old objects are read-only; set the value on the new object"
        case .deleted(let t): "this \(t) was deleted in this step"
        case .inverseOfNewObject(let t, let p):
            "\(t).\(p): inverse links of new objects are not known yet; read them from the old object"
        case .followNewLink(let t, let p):
            "\(t).\(p): follow links on the old object (migration.newObject(for:) gives its new form)"
        case .unknownType(let t, let v):
            v.map { "no type '\(t)' in version \($0)" } ?? "no type '\(t)' in either version of this step"
        case .nestedEnumeration(let t):
            "\(t) is already being enumerated: don't enumerate a type inside its own enumeration"
        case .notEnumeratedYet(let t):
            "the new \(t) objects don't exist yet: enumerate \(t) before looking up its new objects"
        case .renameAfterEnumeration(let t):
            "call renameProperty(onType: \"\(t)\", ...) before enumerating or writing \(t)"
        case .badRename(let t, let f, let to, let reason): "cannot rename \(t).\(f) to \(to): \(reason)"
        case .removedType(let t): "\(t) is not in the new version: there are no new \(t) objects"
        case .keyChangeNeedsOrigin(let t):
            "change a \(t)'s primary key while enumerating it, or on the object newObject(for:) returns, so links to it follow"
        case .notWritten(_, let reason): reason
        }
    }
}
