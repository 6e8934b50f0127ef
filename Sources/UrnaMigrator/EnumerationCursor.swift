import CSQLite
import Foundation
import UrnaStore

/// One enumeration's first pass, as the cursor of its type's `ObjectSource`: each `advance` steps
/// the old table, runs the closure on the old and new form of the object, and checks the result;
/// `column` then gives the INSERT the new object's values.
///
/// Objects the closure doesn't keep are reused row after row, so memory stays flat. A new object the
/// INSERT skipped (its key collides: the INSERT is `OR IGNORE`) is found on the next `advance`,
/// because the last insert rowid still holds the sentinel set before handing the row over.
final class EnumerationCursor {
    static let sentinel = Int64.min
    /// The sentinel of the object handed over last: `Int64.max` instead when the object's own key (or `_id`) is
    /// `Int64.min`, which SQLite then reports as its rowid (a legitimate key that looked like a skipped insert).
    private var currentSentinel = EnumerationCursor.sentinel
    /// The new object's columns that can be the table's rowid (its integer key, the hidden `_id`).
    private var rowidColumns: [Int]?

    let executor: StepExecutor
    let transfer: TypeTransfer
    let block: (MigrationObject, MigrationObject) throws -> Void
    let select: RowStatement
    /// When set, old rows come from this reader on a second thread instead of `select` (see
    /// `OldRowPrefetcher`): objects are then filled whole, not read from a live row.
    let prefetch: OldRowPrefetcher?
    let db: OpaquePointer
    let lazy: Bool
    let oldLayout: ObjectLayout
    let newLayout: ObjectLayout
    let keyIndex: Int?
    let total: Int
    let arena = ByteArena()

    // The per-row state below is only touched from this class's own methods, one call at a time (the
    // SQLite callbacks run on the thread that steps the INSERT): no dynamic exclusivity checks.
    @exclusivity(unchecked) private(set) var isDone = false
    /// The error that stopped the enumeration (the INSERT only sees SQLITE_ERROR).
    @exclusivity(unchecked) private(set) var error: Error?
    /// Rows handed to the INSERT so far.
    @exclusivity(unchecked) private(set) var emitted: Int64 = 0
    /// The values and bookkeeping of the new object handed to the INSERT (`awaitingWrite`), for
    /// `column` (no reference counting per column).
    @exclusivity(unchecked) private(set) var currentValues: UnsafeMutablePointer<SQLValue>?
    @exclusivity(unchecked) private(set) var currentState: UnsafeMutablePointer<ObjectState>?
    /// Per new column, the column of the old row it is carried from.
    let rowColumn: [Int32]
    let width: Int
    /// The old and new object of the row, reused row after row (nil: make a fresh one; an object the
    /// closure kept a reference to is left to it). While `awaitingWrite`, `newObject` is the object the
    /// INSERT is writing.
    @exclusivity(unchecked) private var oldObject: MigrationObject?
    @exclusivity(unchecked) private var newObject: MigrationObject?
    @exclusivity(unchecked) private var awaitingWrite = false
    @exclusivity(unchecked) private var done = 0
    @exclusivity(unchecked) private var nextProgress = 50_000
    /// Rows streamed, and per dropped column the rows where it was nil (a required column never is).
    @exclusivity(unchecked) private var streamed = 0
    @exclusivity(unchecked) private var droppedNils: [Int]
    private let droppedColumns: [Int]
    /// Indexes into `droppedColumns` of the optional ones (the only ones that can hold nil).
    private let optionalDropped: [Int]
    /// The carry plan, flattened: constants to write, conversions to run, the rowid slot.
    private let constants: [(index: Int, value: SQLValue)]
    /// Per conversion its new column and, for a Double to a decimal, the old column and scale: computed here,
    /// without the general converter's dispatch on the two property types (other values still go there).
    private let conversions: [(index: Int, doubleToDecimal: (old: Int, scale: Int)?)]
    private let rowidSlot: Int?
    private let computedMask: UInt64
    /// New columns copied unchanged from an old column (new index, old index), for filling objects whole.
    private let copies: [(new: Int, old: Int)]
    /// The rowid of the row `prefetch` handed over last.
    @exclusivity(unchecked) private var prefetchedRowid: Int64 = 0
    /// The transfer's required columns: those below 64 as a mask, the others listed.
    private let requiredMask: UInt64
    private let requiredHigh: [Int]

    init(
        executor: StepExecutor, transfer t: TypeTransfer, select: RowStatement, prefetch: OldRowPrefetcher? = nil,
        block: @escaping (MigrationObject, MigrationObject) throws -> Void
    ) {
        self.executor = executor
        transfer = t
        self.block = block
        self.select = select
        self.prefetch = prefetch
        db = executor.connection.handle
        lazy = t.oldColumns.count <= 64 && t.newColumns.count <= 64
        oldLayout = t.oldLayout!
        newLayout = t.newLayout!
        rowColumn = t.newLayout!.rowColumn
        width = t.newColumns.count
        keyIndex = t.oldKeyIndex
        total = executor.countsBefore[t.name] ?? 0
        droppedNils = Array(repeating: 0, count: t.droppedColumns.count)
        droppedColumns = t.droppedColumns
        optionalDropped = t.droppedColumns.indices.filter { t.oldColumns[t.droppedColumns[$0]].isOptional }
        var constants: [(Int, SQLValue)] = []
        var conversions: [(Int, (old: Int, scale: Int)?)] = []
        var rowidSlot: Int?
        var mask: UInt64 = 0
        var copies: [(Int, Int)] = []
        for (i, op) in t.carryOps.enumerated() {
            switch op {
            case .copy(let oi):
                copies.append((i, oi))
                continue
            case .constant(let v): constants.append((i, v))
            case .convert:
                if case .convert(let oi, .double, .decimal(let scale), _, _) = t.sources[i] {
                    conversions.append((i, (oi, scale)))
                } else {
                    conversions.append((i, nil))
                }
            case .rowid: rowidSlot = i
            }
            if i < 64 { mask |= 1 << UInt64(i) }
        }
        self.constants = constants
        self.conversions = conversions
        self.rowidSlot = rowidSlot
        computedMask = mask
        self.copies = copies
        requiredMask = t.requiredColumns.reduce(0) { $1 < 64 ? $0 | 1 << UInt64($1) : $0 }
        requiredHigh = t.requiredColumns.filter { $0 >= 64 }
    }

    /// xFilter / xNext: the next object the INSERT should write.
    func advance() -> Int32 {
        do {
            try finishPrevious()
            while true {
                if let prefetch {
                    makeObjects()
                    guard let rowid = try prefetch.next(into: oldObject.unsafelyUnwrapped.values.base) else {
                        isDone = true
                        return SQLITE_OK
                    }
                    prefetchedRowid = rowid
                } else {
                    guard try select.step() else {
                        isDone = true
                        return SQLITE_OK
                    }
                }
                if try prepareNext() { return SQLITE_OK }
            }
        } catch {
            self.error = error
            isDone = true
            return SQLITE_ERROR
        }
    }

    /// Called after the INSERT finished, for the last object.
    func finish() throws {
        try finishPrevious()
        transfer.droppedCounts = droppedNils.map { streamed - $0 }
    }

    /// What happened to the object handed over last: written (its rowid is known now) or skipped.
    private func finishPrevious() throws {
        currentValues = nil
        currentState = nil
        guard awaitingWrite, newObject != nil else { return }
        awaitingWrite = false
        // The cursor owns the object (no reference counting here); it lets go of it after the call.
        let escaped = try Unmanaged.passUnretained(newObject.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            try finishWrite($0)
        }
        if escaped { newObject = nil }
    }

    /// `finishPrevious` for the object the INSERT was handed; true when the closure kept it.
    @inline(__always)
    private func finishWrite(_ o: MigrationObject) throws -> Bool {
        let t = transfer
        let rowid = sqlite3_last_insert_rowid(db)
        if rowid == currentSentinel {
            executor.log.record(
                ValidationFailure(check: "unique", type: t.name, message: Self.sameKeyMessage(o, of: t)))
            o.isDeleted = true
        } else {
            t.rowsWritten += 1
            if o.needsRowid {
                o.rowid = rowid
                try executor.noteExplicitLinks(o)
                if !o.lists.isEmpty { try executor.flushLists(of: o) }
            }
        }
        return o.escaped
    }

    /// Why an enumerated object could not be written: another object of its type already has its key. Says which
    /// old object it was, so a key change that makes two objects collide ("Ana" and "ana" lower-cased) names both.
    static func sameKeyMessage(_ o: MigrationObject, of t: TypeTransfer) -> String {
        guard let k = t.newKeyIndex else {
            return "object (new) cannot be written: another object of \(t.name) has the same primary key"
        }
        let key = "\(o.values[k])"
        let was = o.originKey.map { "\($0)" }
        // A type that had no primary key is told apart by its hidden `_id`.
        let oldKey = t.old?.primaryKey == nil ? "_id " : ""
        let origin =
            was.map { $0 == key ? "; one of them already had it" : "; one of them was \(oldKey)\($0) before" } ?? ""
        return
            "two \(t.name) objects were given the primary key \(key) in this step (\(t.newColumns[k].name)\(origin)): "
            + "give each its own key, or change the one that has it (migration.newObject(ofType: \"\(t.name)\", "
            + "forPrimaryKey:))"
    }

    /// The old and new objects the next row goes into (fresh ones when the closure kept the last ones).
    private func makeObjects() {
        let t = transfer
        if oldObject == nil {
            oldObject = MigrationObject(
                layout: oldLayout, executor: executor, values: Array(repeating: .null, count: t.oldColumns.count),
                originKey: nil)
        }
        if newObject == nil {
            newObject = MigrationObject(
                layout: newLayout, executor: executor, values: Array(repeating: .null, count: t.newColumns.count),
                originKey: nil)
        }
    }

    /// Runs the closure on the current old row; false when the closure deleted the new object.
    private func prepareNext() throws -> Bool {
        let t = transfer
        makeObjects()
        // The cursor owns both objects (so no reference counting per row); a reference the closure
        // keeps shows in `isKnownUniquelyReferenced` below.
        let old = Unmanaged.passUnretained(oldObject.unsafelyUnwrapped)
        let new = Unmanaged.passUnretained(newObject.unsafelyUnwrapped)
        try old._withUnsafeGuaranteedRef { o in
            try new._withUnsafeGuaranteedRef { n in try runClosure(t, o, n) }
        }
        if !isKnownUniquelyReferenced(&oldObject!) {
            oldObject!.detach()
            oldObject = nil
        }
        let escaped = !isKnownUniquelyReferenced(&newObject!)
        return try new._withUnsafeGuaranteedRef { n in
            if escaped { n.detach() }
            guard prepareForWrite(n, of: t) else {
                if escaped { newObject = nil }
                return false
            }
            try executor.noteKeyChange(n, of: t)
            let st = n.state
            st.pointee.escaped = escaped
            st.pointee.needsRowid =
                escaped || !st.pointee.lists.isEmpty
                || ((st.pointee.dirtyMask != 0 || !st.pointee.dirtyHigh.isEmpty)
                    && t.trackedLinkColumns.contains { n.isDirty($0) })
            currentValues = n.values.base
            currentState = st
            awaitingWrite = true
            emitted += 1
            arena.reset()
            if rowidColumns == nil {
                rowidColumns =
                    (t.newKeyIndex.map { [$0] } ?? []) + n.layout.hidden.indices.filter { n.layout.hidden[$0] }
            }
            var keyIsMin = false
            for i in rowidColumns.unsafelyUnwrapped {
                // A key carried from the old row and not read yet (objects are loaded lazily without read-ahead)
                // is read here: unread, an Int64.min key went unnoticed and its written row looked skipped.
                if !n.isLoaded(i), n.layout.rowColumn[i] >= 0 { n.load(i) }
                if n.values.base[i] == .integer(Int64.min) { keyIsMin = true }
            }
            currentSentinel = keyIsMin ? Int64.max : Self.sentinel
            sqlite3_set_last_insert_rowid(db, currentSentinel)
            return true
        }
    }

    /// `StepExecutor.prepareForWrite` for the enumeration's objects, with the required columns as a
    /// mask (same checks, same order).
    @inline(__always)
    private func prepareForWrite(_ o: MigrationObject, of t: TypeTransfer) -> Bool {
        let st = o.state
        st.pointee.isPending = false
        if st.pointee.isDeleted {
            t.deleted += 1
            return false
        }
        if !st.pointee.inexact.isEmpty { executor.recordInexact(o, of: t) }
        var missing = requiredMask & st.pointee.loadedMask
        let values = o.values.base
        while missing != 0 {
            let i = missing.trailingZeroBitCount
            missing &= missing - 1
            if case .null = values[i] { executor.requiredValueMissing(o, of: t, column: i) }
        }
        for i in requiredHigh where o.values.isNull(i) { executor.requiredValueMissing(o, of: t, column: i) }
        if st.pointee.changed && !st.pointee.isCreated { t.changed += 1 }
        return true
    }

    /// Points `oldObject` at the row, carries it into `newObject`, and runs the closure on both.
    @inline(__always)
    private func runClosure(_ t: TypeTransfer, _ oldObject: MigrationObject, _ newObject: MigrationObject) throws {
        let ost = oldObject.state
        if prefetch != nil {
            // The row's values were moved into the object whole.
            if ost.pointee.row != nil { ost.pointee.row = nil }
            ost.pointee.loadedMask = ~0
        } else {
            if ost.pointee.row !== select { ost.pointee.row = select }
            ost.pointee.loadedMask = 0
            if !lazy { oldObject.detach() }
        }
        if let k = keyIndex {
            oldObject.load(k)
            ost.pointee.originKey = oldObject.values.base[k]
        } else {
            ost.pointee.originKey = nil
        }
        // Data the step discards, counted while the row is here (no second scan of the old table): the
        // rows streamed, less the nils of optional columns (a required column is NOT NULL in the file).
        streamed += 1
        if prefetch != nil {
            for k in optionalDropped where oldObject.values.isNull(droppedColumns[k]) { droppedNils[k] += 1 }
        } else {
            for k in optionalDropped where sqlite3_column_type(select.handle, Int32(droppedColumns[k])) == SQLITE_NULL {
                droppedNils[k] += 1
            }
        }
        carry(into: newObject, from: oldObject)
        t.currentPending = newObject
        defer { t.currentPending = nil }
        try block(oldObject, newObject)
        if let e = executor.takePendingError() { throw e }
        t.enumerated += 1
        done += 1
        if done == nextProgress {
            nextProgress += 50_000
            executor.reporter?.progress(type: t.name, done: done, total: total)
        }
    }

    /// Makes `newObject` the new form of the old object on the row: untouched values stay on the row
    /// (read on first use), constants and conversions are written now.
    private func carry(into o: MigrationObject, from old: MigrationObject) {
        let st = o.state
        if prefetch != nil {
            // Filled whole: unchanged columns are copied from the old object now.
            if st.pointee.row != nil { st.pointee.row = nil }
            st.pointee.loadedMask = ~0
            for (n, oi) in copies { o.values.base[n] = old.values.base[oi] }
        } else {
            if st.pointee.row !== select { st.pointee.row = select }
            st.pointee.loadedMask = computedMask
        }
        st.pointee.dirtyMask = 0
        if !st.pointee.dirtyHigh.isEmpty { st.pointee.dirtyHigh = [] }
        if !st.pointee.inexact.isEmpty { st.pointee.inexact.removeAll(keepingCapacity: true) }
        if !st.pointee.lists.isEmpty { st.pointee.lists = [:] }
        st.pointee.rowid = nil
        st.pointee.isPending = true
        st.pointee.isDeleted = false
        st.pointee.changed = false
        st.pointee.escaped = false
        st.pointee.needsRowid = false
        st.pointee.originKey = old.state.pointee.originKey
        // A constant still in its slot (the closure left it, or set the same value) stays: no copy.
        for (i, v) in constants where !Self.identical(v, o.values.base + i) { o.values[i] = v }
        if let r = rowidSlot {
            o.values[r] = .integer(prefetch != nil ? prefetchedRowid : select.int(at: Int32(transfer.oldColumns.count)))
        }
        for (i, fast) in conversions {
            // What `convertCarried` gives a double (`StoredValueConverter.convert`'s first two tries).
            if let (oi, scale) = fast {
                old.load(oi)
                if case .real(let r) = old.values.base[oi] {
                    if let units = StoredValueConverter.exactUnits(r, scale: scale) {
                        o.values.base[i] = .integer(units)
                        continue
                    }
                    if let units = StoredValueConverter.inexactUnits(r, scale: scale) {
                        o.values.base[i] = .integer(units)
                        o.inexact.append(i)
                        continue
                    }
                }
            }
            executor.convertCarried(transfer, into: o, from: old, column: i)
        }
        if !lazy && prefetch == nil { o.detach() }
    }
}
