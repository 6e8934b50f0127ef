import UrnaStore

/// What every object of one type in one role (old or new) shares: its columns, their types, and a
/// name → column table, so reading and writing a property by name is one hash lookup.
final class ObjectLayout {
    let role: MigrationObject.Role
    /// The transfer that owns this layout. Unowned without checks: the transfer outlives its layouts,
    /// and every object using a layout keeps its executor, which keeps the transfers, alive.
    unowned(unsafe) let transfer: TypeTransfer
    let objectSchema: ObjectSchema
    let schema: Schema
    let columns: [StepColumn]
    let types: [PropertyType]
    let columnOf: [String: Int]
    let propertyOf: [String: Property]
    /// Columns without a property: the hidden `_id`.
    let hidden: [Bool]
    /// The SQLite storage class of each column's values (fast paths for reads and writes).
    let scalar: [ScalarKind]
    /// Columns whose values decode with the schema's help (links, embedded objects).
    let needsSchema: [Bool]
    /// Columns a string, Int64 or Double is stored in as it is (no coercion or range check).
    let writesDirectly: [Bool]
    let keyIndex: Int?
    let keyType: PropertyType
    /// Per column, the column of the live row it is read from (new objects: the old column it is
    /// carried from, -1 when computed).
    let rowColumn: [Int32]
    /// The type is gone in the new version.
    let isRemovedType: Bool
    /// The type exists in the old version.
    let hasOld: Bool
    let names = NameCache()

    @inline(__always) func column(_ name: String) -> Int? { names.lookup(name, in: columnOf) }

    init(
        role: MigrationObject.Role, transfer: TypeTransfer, objectSchema: ObjectSchema, schema: Schema,
        columns: [StepColumn],
        rowColumn: [Int32]
    ) {
        self.role = role
        self.rowColumn = rowColumn
        isRemovedType = transfer.new == nil
        hasOld = transfer.old != nil
        self.transfer = transfer
        self.objectSchema = objectSchema
        self.schema = schema
        self.columns = columns
        types = columns.map(\.type)
        columnOf = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.name, $0) })
        var props: [String: Property] = [:]
        for p in objectSchema.properties { props[p.name] = p }
        propertyOf = props
        hidden = columns.map { $0.property == nil }
        scalar = columns.map {
            switch $0.type {
            case .string: .text
            case .int8, .int16, .int32, .int64: $0.property == nil ? .other : .integer
            case .double: .real
            default: .other
            }
        }
        writesDirectly = columns.map {
            guard $0.property != nil else { return false }
            switch $0.type {
            case .string, .int64, .double: return true
            default: return false
            }
        }
        needsSchema = columns.map {
            switch $0.type {
            case .link, .embedded: true
            default: false
            }
        }
        keyIndex = columnOf[objectSchema.keyColumn]
        keyType = objectSchema.primaryKey?.type ?? .int64
    }
}

/// How one new column gets its value when an old object is carried over (precomputed for speed).
enum CarryOp {
    case copy(Int)
    case rowid
    case constant(SQLValue)
    /// Index into the transfer's `sources`.
    case convert(Int)
}

extension TypeTransfer {
    /// Builds the layouts and carry plan once the sources are decided.
    func prepare(oldSchema: Schema, newSchema: Schema) {
        carriedFrom = sources.map { s in
            if case .copy(let oi) = s { Int32(oi) } else { -1 }
        }
        if let old {
            oldLayout = ObjectLayout(
                role: .old, transfer: self, objectSchema: old, schema: oldSchema, columns: oldColumns,
                rowColumn: oldColumns.indices.map { Int32($0) })
        }
        if let new {
            newLayout = ObjectLayout(
                role: .new, transfer: self, objectSchema: new, schema: newSchema, columns: newColumns,
                rowColumn: carriedFrom)
        } else if let old {
            // New forms of objects of a removed type have no columns: writing to them fails clearly.
            newLayout = ObjectLayout(
                role: .new, transfer: self, objectSchema: old, schema: oldSchema, columns: [], rowColumn: [])
        }
        carryOps = sources.enumerated().map { i, s in
            switch s {
            case .copy(let oi): .copy(oi)
            case .rowid: .rowid
            case .constant(let v): .constant(v)
            case .convert: .convert(i)
            }
        }
        requiredColumns = newColumns.indices.filter { i in
            guard let p = newColumns[i].property, !p.optional else { return false }
            return !(p.primaryKey && p.type.isInteger)
        }
        columnDefaults = newColumns.map { c in
            c.property.map { ValueCodec.encode($0.effectiveDefault, as: $0.type, schema: newSchema) } ?? .null
        }
        let carriedOld = Set(
            sources.compactMap { s -> Int? in
                switch s {
                case .copy(let oi), .convert(let oi, _, _, _, _): oi
                default: nil
                }
            })
        droppedColumns = oldColumns.indices.filter {
            $0 != oldKeyIndex && oldColumns[$0].property != nil && !carriedOld.contains($0)
        }
        trackedLinkColumns = newColumns.indices.filter { i in
            if case .link(let target) = newColumns[i].type { oldSchema[type: target] != nil } else { false }
        }
    }
}

/// An object's column values in memory of its own: reading or writing one is a pointer access, with
/// none of an array's copy-on-write and exclusivity checks (it runs for every value of every object).
final class ValueBuffer {
    let base: UnsafeMutablePointer<SQLValue>
    let count: Int

    init(_ values: [SQLValue]) {
        count = values.count
        base = .allocate(capacity: max(count, 1))
        values.withUnsafeBufferPointer { buf in
            if let b = buf.baseAddress { base.initialize(from: b, count: count) }
        }
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    subscript(i: Int) -> SQLValue {
        get { base[i] }
        set { base[i] = newValue }
    }

    /// Whether value i is NULL (without copying it out).
    @inline(__always) func isNull(_ i: Int) -> Bool {
        if case .null = base[i] { return true }
        return false
    }
}

/// The last names looked up in a layout, tried before hashing. A closure passes the same string
/// literals for every object, and a literal is the same two words each time: comparing those words
/// finds it without hashing. (Equal strings with other storage just miss and are hashed.)
final class NameCache {
    private static let size = 8
    private let words: UnsafeMutablePointer<(UInt, UInt)>
    private let indexes: UnsafeMutablePointer<Int>
    /// The names themselves, kept alive so their storage (and so their words) can't be reused.
    private let names: UnsafeMutablePointer<String>
    private var next: UnsafeMutablePointer<Int>

    init() {
        words = .allocate(capacity: Self.size)
        words.initialize(repeating: (0, 0), count: Self.size)
        indexes = .allocate(capacity: Self.size)
        indexes.initialize(repeating: -1, count: Self.size)
        names = .allocate(capacity: Self.size)
        names.initialize(repeating: "", count: Self.size)
        next = .allocate(capacity: 1)
        next.initialize(to: 0)
    }

    deinit {
        words.deallocate()
        indexes.deallocate()
        names.deinitialize(count: Self.size)
        names.deallocate()
        next.deallocate()
    }

    @inline(__always) func lookup(_ name: String, in table: [String: Int]) -> Int? {
        let w = unsafeBitCast(name, to: (UInt, UInt).self)
        for k in 0..<Self.size where words[k] == w && indexes[k] >= 0 { return indexes[k] }
        guard let i = table[name] else { return nil }
        let slot = next.pointee
        words[slot] = w
        indexes[slot] = i
        names[slot] = name
        next.pointee = (slot + 1) % Self.size
        return i
    }
}

/// How a column's values are stored, for the fast paths of `MigrationObject`.
enum ScalarKind {
    case text, integer, real, other
}
