import UrnaStore

/// What every object of one type in one role (old or new) shares: its columns, their types, and a
/// name → column table, so reading and writing a property by name is one hash lookup.
final class ObjectLayout {
    let role: MigrationObject.Role
    unowned let transfer: TypeTransfer
    let objectSchema: ObjectSchema
    let schema: Schema
    let columns: [StepColumn]
    let types: [PropertyType]
    let columnOf: [String: Int]
    let propertyOf: [String: Property]
    /// Columns without a property: the hidden `_id`.
    let hidden: [Bool]
    /// Columns whose values decode with the schema's help (links, embedded objects).
    let needsSchema: [Bool]
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
        role: MigrationObject.Role, transfer: TypeTransfer, objectSchema: ObjectSchema, schema: Schema, columns: [StepColumn],
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
            newLayout = ObjectLayout(role: .new, transfer: self, objectSchema: new, schema: newSchema, columns: newColumns, rowColumn: carriedFrom)
        } else if let old {
            // New forms of objects of a removed type have no columns: writing to them fails clearly.
            newLayout = ObjectLayout(role: .new, transfer: self, objectSchema: old, schema: oldSchema, columns: [], rowColumn: [])
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
}

/// The last names looked up in a layout, tried before hashing: a closure reads and writes the same
/// few properties for every object, and comparing equal small strings is a couple of word compares.
final class NameCache {
    private var names: [String] = Array(repeating: "", count: 8)
    private var indexes: [Int] = Array(repeating: -1, count: 8)
    private var next = 0

    @inline(__always) func lookup(_ name: String, in table: [String: Int]) -> Int? {
        for k in 0..<8 where indexes[k] >= 0 && names[k] == name { return indexes[k] }
        guard let i = table[name] else { return nil }
        names[next] = name
        indexes[next] = i
        next = (next + 1) & 7
        return i
    }
}
