import Foundation
import UrnaStore

/// A column of a type's table during a step (the hidden `_id` has no property).
struct StepColumn {
    let name: String
    let property: Property?
    let type: PropertyType
    /// The declared SQL type in its table (links take their target's key type).
    let sqlType: String

    var isOptional: Bool { property?.optional ?? false }
    var isKey: Bool { property?.primaryKey ?? (name == ObjectSchema.rowIdColumn) }

    static func columns(of t: ObjectSchema, in schema: Schema) -> [StepColumn] {
        var out: [StepColumn] = []
        if t.primaryKey == nil {
            out.append(StepColumn(name: ObjectSchema.rowIdColumn, property: nil, type: .int64, sqlType: "INTEGER"))
        }
        for p in t.storedProperties {
            out.append(
                StepColumn(name: p.name, property: p, type: p.type, sqlType: StorageLayout.columnType(p, in: schema)))
        }
        return out
    }
}

/// Where a new column's value comes from when an old object is carried into the new table.
/// The old rows a read-only first pass owes the new table.
enum OwedRows: Equatable {
    /// The pass started and has not left an object alone yet.
    case noneYet
    /// The old rows up to this rowid.
    case through(Int64)
    /// Every old row: the pass finished with nothing written.
    case all
}

enum ColumnSource {
    /// The old column at this index, unchanged.
    case copy(Int)
    /// The old column at this index, converted; `nullDefault` replaces nil when the property became required.
    case convert(Int, from: PropertyType, to: PropertyType, kind: ConversionKind, nullDefault: SQLValue?)
    /// The old row's rowid (a type that loses its primary key keeps identities as `_id`).
    case rowid
    /// A constant: the new property's default (or nil).
    case constant(SQLValue)
}

/// What one step does to one type, decided from the two schemas before anything runs.
final class TypeTransfer {
    let name: String
    let old: ObjectSchema?
    let new: ObjectSchema?
    let oldColumns: [StepColumn]
    let newColumns: [StepColumn]
    let oldIndex: [String: Int]
    let newIndex: [String: Int]
    let oldKeyIndex: Int?
    let newKeyIndex: Int?
    @exclusivity(unchecked) var sources: [ColumnSource] = []
    /// Per new column, the conversion rule when the column is carried from an old one.
    @exclusivity(unchecked) var conversions: [PropertyConversion?] = []
    /// The CREATE TABLE statement changes: the table is rebuilt even when nobody writes to it.
    var tableChanges = false
    /// Some carried value needs Swift (a conversion SQL can't do, or identities that change).
    var needsSwift = false
    /// Why the type is copied through Swift, for plans.
    var swiftReason: String?

    // Run-time state. Properties read for every object are declared `@exclusivity(unchecked)`: they are
    // set while the step is prepared (or between enumerations) and never while an access is open.
    var rebuilt = false
    var filled = false
    var enumerating = false
    var enumerations = 0
    var cleared = false
    /// The closure looked up an old object of this type (`oldObject`, `linked`): it read the type's old data.
    var oldRead = false
    /// For a type the closure only looked up (never enumerated) that is removed or drops properties: the rows it
    /// looked up, so that objects (or values of a removed property) it never looked at are not dropped on the
    /// strength of the others (`checkClosureLosses`).
    var rowsLookedUp = Set<Int64>()
    /// Per removed property: its non-nil values on objects the closure never looked up (`unseenObjects`).
    var unseenValues: [String: Int] = [:]
    /// Old columns (by index) the closure read on some old object of this type: a removed property it never read
    /// is data the step drops without having looked at it (`checkClosureLosses`).
    @exclusivity(unchecked) var oldColumnsRead: UInt64 = 0
    @exclusivity(unchecked) var oldColumnsReadHigh = Set<Int>()

    @inline(__always) func noteOldRead(_ i: Int) {
        if i < 64 {
            oldColumnsRead |= 1 << UInt64(i)
        } else {
            oldColumnsReadHigh.insert(i)
        }
    }

    /// Old list properties (they have no column) the closure read on some old object.
    @exclusivity(unchecked) var oldListsRead = Set<String>()

    func oldColumnWasRead(_ name: String) -> Bool {
        guard let i = oldIndex[name] else { return oldListsRead.contains(name) }
        return i < 64 ? oldColumnsRead & (1 << UInt64(i)) != 0 : oldColumnsReadHigh.contains(i)
    }
    @exclusivity(unchecked) var hasKeyMap = false
    var filledBySwift = false
    /// Not written in this step: the next step reads its rows through this step's SELECT (`RunFusion`).
    var carriedForward = false
    /// The rows a carried copy holds: written by the next step, but changed by this one (its ledger counts them,
    /// as a stepwise run's would).
    var carriedRows = 0
    var filledByBulk = false
    @exclusivity(unchecked) var explicitLinkColumns = Set<String>()
    var created = 0
    @exclusivity(unchecked) var lossyValues: [String: Int] = [:]
    /// Counters and the object being enumerated, behind a pointer (they change for every object).
    let live: UnsafeMutablePointer<LiveCounters> = {
        let p = UnsafeMutablePointer<LiveCounters>.allocate(capacity: 1)
        p.initialize(to: LiveCounters())
        return p
    }()
    var rowsWritten: Int {
        get { live.pointee.rowsWritten }
        set { live.pointee.rowsWritten = newValue }
    }
    var deleted: Int {
        get { live.pointee.deleted }
        set { live.pointee.deleted = newValue }
    }
    var changed: Int {
        get { live.pointee.changed }
        set { live.pointee.changed = newValue }
    }
    var enumerated: Int {
        get { live.pointee.enumerated }
        set { live.pointee.enumerated = newValue }
    }
    /// The object being enumerated (for `delete(old)`).
    var currentPending: MigrationObject? {
        get { live.pointee.currentPending }
        set { live.pointee.currentPending = newValue }
    }

    deinit {
        live.deinitialize(count: 1)
        live.deallocate()
    }
    @exclusivity(unchecked) var insertStatement: RowStatement?
    /// Whether the recorder has this type's INSERT for created objects (noted on the first create only).
    @exclusivity(unchecked) var createNoted = false
    /// The hidden `_id` the next object a closure creates gets (a type without a primary key): above every old
    /// object's, which the copy of old rows keeps. Nil until the first creation.
    var nextCreatedID: Int64?
    @exclusivity(unchecked) var keyMapInsert: Statement?
    @exclusivity(unchecked) var oldLayout: ObjectLayout?
    @exclusivity(unchecked) var newLayout: ObjectLayout?
    @exclusivity(unchecked) var carryOps: [CarryOp] = []
    @exclusivity(unchecked) var requiredColumns: [Int] = []
    @exclusivity(unchecked) var columnDefaults: [SQLValue] = []
    @exclusivity(unchecked) var trackedLinkColumns: [Int] = []
    /// Old columns whose property the new version drops, and (once a first pass streamed every old
    /// object) how many non-nil values each held.
    @exclusivity(unchecked) var droppedColumns: [Int] = []
    var droppedCounts: [Int]?
    /// A read-only first pass (`StepExecutor.enumerateReadOnly`) left old rows unwritten (nil: none owed).
    var owed: OwedRows?
    /// A read-only first pass is running.
    var readOnlyPass = false
    /// Per new column: the old column it is copied from unchanged (-1: computed, constant or converted).
    @exclusivity(unchecked) var carriedFrom: [Int32] = []

    init(name: String, old: ObjectSchema?, new: ObjectSchema?, oldSchema: Schema, newSchema: Schema) {
        self.name = name
        self.old = old
        self.new = new
        let oldColumns = old.map { StepColumn.columns(of: $0, in: oldSchema) } ?? []
        let newColumns = new.map { StepColumn.columns(of: $0, in: newSchema) } ?? []
        let oldIndex = Dictionary(uniqueKeysWithValues: oldColumns.enumerated().map { ($1.name, $0) })
        let newIndex = Dictionary(uniqueKeysWithValues: newColumns.enumerated().map { ($1.name, $0) })
        self.oldColumns = oldColumns
        self.newColumns = newColumns
        self.oldIndex = oldIndex
        self.newIndex = newIndex
        oldKeyIndex = old.flatMap { oldIndex[$0.keyColumn] }
        newKeyIndex = new.flatMap { newIndex[$0.keyColumn] }
    }

    /// The table the new objects go to while the step runs.
    var tableName: String { rebuilt ? StepAnalysis.stagingName(name) : name }
    var isAdded: Bool { old == nil }
    var isRemoved: Bool { new == nil }
    var oldKeySQLType: String { oldKeyIndex.map { oldColumns[$0].sqlType } ?? "INTEGER" }
    var newKeySQLType: String { newKeyIndex.map { newColumns[$0].sqlType } ?? "INTEGER" }
    var keyMapTable: String { "temp.\(Identifier.quoted("_urna_m_keys_" + name))" }
}

/// A transfer's per-object counters.
struct LiveCounters {
    var rowsWritten = 0
    var deleted = 0
    var changed = 0
    var enumerated = 0
    /// Not retained: the enumeration owns the object while it is pending.
    unowned(unsafe) var currentPending: MigrationObject?
}

/// What one step does to one list property's table.
struct ListTransfer {
    let owner: String
    let property: String
    let target: String
    /// The old list table that carries its rows, when the list existed (perhaps under an old name).
    let oldTable: String?
    let newTable: String
    /// The CREATE TABLE statement differs (key types, renamed table).
    let tableChanges: Bool

    var stagingTable: String { StepAnalysis.stagingName(newTable) }
    /// The name staged explicit values use.
    var key: String { "\(owner).\(property)" }
}

/// The pure part of a step: which tables change, where each column comes from, and the SQL of the
/// automatic parts. Used by plans (preview) and by the runner (execution).
struct StepAnalysis {
    let step: ResolvedStep
    let transfers: [TypeTransfer]
    let byName: [String: TypeTransfer]
    let lists: [ListTransfer]
    /// Old list tables no list of the new schema carries.
    let droppedLists: [(owner: String, property: String, table: String)]
    let renames: [PropertyRename]

    static func stagingName(_ table: String) -> String { "_urna_new_" + table }

    init(step: ResolvedStep, extraRenames: [PropertyRename] = []) {
        self.step = step
        let renames = step.renames + extraRenames
        self.renames = renames
        func oldName(_ type: String, _ newName: String) -> String? {
            renames.sourceName(type: type, newName: newName)
        }
        var names: [String] = step.to.tableTypes.map(\.name)
        for t in step.from.tableTypes where !names.contains(t.name) { names.append(t.name) }
        var transfers: [TypeTransfer] = []
        for name in names {
            let o = step.from[type: name].flatMap { $0.embedded ? nil : $0 }
            let n = step.to[type: name].flatMap { $0.embedded ? nil : $0 }
            let t = TypeTransfer(name: name, old: o, new: n, oldSchema: step.from, newSchema: step.to)
            Self.decideSources(t, step: step, oldName: { oldName(name, $0) })
            transfers.append(t)
        }
        self.transfers = transfers
        byName = Dictionary(uniqueKeysWithValues: transfers.map { ($0.name, $0) })
        (lists, droppedLists) = Self.listTransfers(step: step, renames: renames)
    }

    private init(step: ResolvedStep, transfers: [TypeTransfer], renames: [PropertyRename]) {
        self.step = step
        self.transfers = transfers
        self.renames = renames
        byName = Dictionary(uniqueKeysWithValues: transfers.map { ($0.name, $0) })
        (lists, droppedLists) = Self.listTransfers(step: step, renames: renames)
    }

    /// The same analysis with more renames (the closure's `renameProperty`), keeping the transfers.
    func withRenames(_ renames: [PropertyRename]) -> StepAnalysis {
        StepAnalysis(step: step, transfers: transfers, renames: renames)
    }

    static func listTransfers(step: ResolvedStep, renames: [PropertyRename]) -> (
        [ListTransfer], [(owner: String, property: String, table: String)]
    ) {
        func oldName(_ type: String, _ newName: String) -> String? {
            renames.sourceName(type: type, newName: newName)
        }
        var lists: [ListTransfer] = []
        var carriedOld = Set<String>()
        for t in step.to.tableTypes {
            for p in t.properties where !p.ignored {
                guard case .list(let target) = p.type else { continue }
                let newTable = StorageLayout.listTable(type: t.name, property: p.name)
                var oldTable: String?
                var changes = true
                if let o = step.from[type: t.name], let name = oldName(t.name, p.name), let op = o[property: name],
                    !op.ignored,
                    case .list(let oldTarget) = op.type, oldTarget == target
                {
                    let table = StorageLayout.listTable(type: t.name, property: op.name)
                    oldTable = table
                    let oldSQL = StorageLayout.createListTableSQL(owner: o, property: op, target: target, in: step.from)
                        .replacingOccurrences(of: Identifier.quoted(table), with: Identifier.quoted(newTable))
                    let newSQL = StorageLayout.createListTableSQL(owner: t, property: p, target: target, in: step.to)
                    changes = table != newTable || SQLText.normalize(oldSQL) != SQLText.normalize(newSQL)
                    carriedOld.insert(table)
                }
                lists.append(
                    ListTransfer(
                        owner: t.name, property: p.name, target: target, oldTable: oldTable, newTable: newTable,
                        tableChanges: changes))
            }
        }
        var dropped: [(String, String, String)] = []
        for t in step.from.tableTypes {
            for p in t.properties where !p.ignored {
                guard case .list = p.type else { continue }
                let table = StorageLayout.listTable(type: t.name, property: p.name)
                if !carriedOld.contains(table) { dropped.append((t.name, p.name, table)) }
            }
        }
        return (lists, dropped)
    }

    /// Fills a transfer's column sources and decides whether its table changes and needs Swift.
    static func decideSources(_ t: TypeTransfer, step: ResolvedStep, oldName: (String) -> String?) {
        guard let n = t.new else { return }
        if let o = t.old {
            let oldSQL = StorageLayout.createTableSQL(o, in: step.from)
            let newSQL = StorageLayout.createTableSQL(n, in: step.to)
            t.tableChanges = SQLText.normalize(oldSQL) != SQLText.normalize(newSQL)
        } else {
            t.tableChanges = true
        }
        var sources: [ColumnSource] = []
        var conversions: [PropertyConversion?] = []
        for c in t.newColumns {
            guard let p = c.property else {
                // Hidden _id: carried from the old _id, or from the old rowid when the type had a primary key.
                if let i = t.oldIndex[ObjectSchema.rowIdColumn], t.old?.primaryKey == nil {
                    sources.append(.copy(i))
                } else {
                    sources.append(t.old == nil ? .constant(.null) : .rowid)
                }
                conversions.append(nil)
                continue
            }
            guard let source = oldName(p.name), let o = t.old, let op = o[property: source], op.isStored,
                let oi = t.oldIndex[source]
            else {
                sources.append(.constant(ValueCodec.encode(p.effectiveDefault, as: p.type, schema: step.to)))
                conversions.append(nil)
                continue
            }
            let conversion = PropertyConversion.classify(
                type: n.name, old: op, new: p, oldSchema: step.from, newSchema: step.to)
            conversions.append(conversion)
            if conversion.kind == .identical {
                sources.append(.copy(oi))
                continue
            }
            var nullDefault: SQLValue?
            if op.optional && !p.optional {
                if p.defaultValue != nil || step.allows(.nullsBecomeDefault(type: n.name, property: p.name)) {
                    nullDefault = ValueCodec.encode(p.effectiveDefault, as: p.type, schema: step.to)
                }
            }
            sources.append(.convert(oi, from: op.type, to: p.type, kind: conversion.kind, nullDefault: nullDefault))
        }
        t.sources = sources
        t.conversions = conversions
        // The same table SQL can hold other data: two columns whose names renames swap.
        if !t.tableChanges, t.old != nil {
            t.tableChanges = sources.indices.contains { i in
                guard case .copy(let oi) = sources[i] else { return true }
                return t.oldColumns[oi].name != t.newColumns[i].name
            }
        }

        // Identities change when the key column comes from another old column, or converts.
        if let o = t.old, let nk = t.newKeyIndex {
            let oldKeyName = o.keyColumn
            switch sources[nk] {
            case .copy(let i):
                if t.oldColumns[i].name != oldKeyName || t.oldColumns[i].sqlType != t.newColumns[nk].sqlType {
                    t.needsSwift = true
                    t.swiftReason = "identities change (\(oldKeyName) → \(n.keyColumn))"
                }
            case .convert(let i, let from, let to, let kind, _):
                let sameStorage =
                    kind != .needsClosure && StoredValueConverter.sqlExpression("x", from: from, to: to) == "x"
                    && t.oldColumns[i].sqlType == t.newColumns[nk].sqlType
                if t.oldColumns[i].name != oldKeyName || !sameStorage {
                    t.needsSwift = true
                    t.swiftReason =
                        t.oldColumns[i].name == oldKeyName
                        ? "primary key \(n.keyColumn) changes type"
                        : "identities change (\(oldKeyName) → \(n.keyColumn))"
                }
            case .rowid, .constant:
                t.needsSwift = true
                t.swiftReason = "identities change (\(oldKeyName) → \(n.keyColumn))"
            }
        }
        for (i, s) in sources.enumerated() {
            if case .convert(let oi, let from, let to, let kind, _) = s {
                if kind == .needsClosure || StoredValueConverter.sqlExpression("x", from: from, to: to) == nil {
                    t.needsSwift = true
                    if t.swiftReason == nil {
                        t.swiftReason = "\(t.newColumns[i].name) converts \(t.oldColumns[oi].type.name) → \(to.name)"
                    }
                }
            }
        }
        if t.needsSwift { t.tableChanges = true }
    }
}
