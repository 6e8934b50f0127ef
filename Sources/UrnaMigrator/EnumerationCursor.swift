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

    let executor: StepExecutor
    let transfer: TypeTransfer
    let block: (MigrationObject, MigrationObject) throws -> Void
    let select: RowStatement
    let db: OpaquePointer
    let lazy: Bool
    let oldLayout: ObjectLayout
    let newLayout: ObjectLayout
    let keyIndex: Int?
    let total: Int
    private let arena = ByteArena()

    private(set) var isDone = false
    /// The error that stopped the enumeration (the INSERT only sees SQLITE_ERROR).
    private(set) var error: Error?
    /// Rows handed to the INSERT so far.
    private(set) var emitted: Int64 = 0
    private var current: MigrationObject?
    private var awaitingWrite: MigrationObject?
    private var spareOld: MigrationObject?
    private var spareNew: MigrationObject?
    private var done = 0
    private var droppedCounts: [Int]
    private let droppedColumns: [Int]
    /// The carry plan, flattened: constants to write, conversions to run, the rowid slot.
    private let constants: [(index: Int, value: SQLValue)]
    private let conversions: [Int]
    private let rowidSlot: Int?
    private let computedMask: UInt64

    init(
        executor: StepExecutor, transfer t: TypeTransfer, select: RowStatement,
        block: @escaping (MigrationObject, MigrationObject) throws -> Void
    ) {
        self.executor = executor
        transfer = t
        self.block = block
        self.select = select
        db = executor.connection.handle
        lazy = t.oldColumns.count <= 64 && t.newColumns.count <= 64
        oldLayout = t.oldLayout!
        newLayout = t.newLayout!
        keyIndex = t.oldKeyIndex
        total = executor.countsBefore[t.name] ?? 0
        droppedCounts = Array(repeating: 0, count: t.droppedColumns.count)
        droppedColumns = t.droppedColumns
        var constants: [(Int, SQLValue)] = []
        var conversions: [Int] = []
        var rowidSlot: Int?
        var mask: UInt64 = 0
        for (i, op) in t.carryOps.enumerated() {
            switch op {
            case .copy: continue
            case .constant(let v): constants.append((i, v))
            case .convert: conversions.append(i)
            case .rowid: rowidSlot = i
            }
            if i < 64 { mask |= 1 << UInt64(i) }
        }
        self.constants = constants
        self.conversions = conversions
        self.rowidSlot = rowidSlot
        computedMask = mask
    }

    /// xFilter / xNext: the next object the INSERT should write.
    func advance() -> Int32 {
        do {
            try finishPrevious()
            while true {
                guard try select.step() else {
                    isDone = true
                    return SQLITE_OK
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
        transfer.droppedCounts = droppedCounts
    }

    /// What happened to the object handed over last: written (its rowid is known now) or skipped.
    private func finishPrevious() throws {
        current = nil
        guard let o = awaitingWrite else { return }
        awaitingWrite = nil
        let t = transfer
        let rowid = sqlite3_last_insert_rowid(db)
        if rowid == Self.sentinel {
            let keyText = t.newKeyIndex.map { "\(o.values[$0])" } ?? "(new)"
            executor.log.record(
                ValidationFailure(
                    check: "unique", type: t.name,
                    message: "object \(keyText) cannot be written: another object of \(t.name) has the same primary key"
                ))
            o.isDeleted = true
        } else {
            t.rowsWritten += 1
            if o.needsRowid {
                o.rowid = rowid
                try executor.noteExplicitLinks(o)
                if !o.lists.isEmpty { try executor.flushLists(of: o) }
            }
        }
        if !o.escaped { spareNew = o }
    }

    /// Runs the closure on the current old row; false when the closure deleted the new object.
    private func prepareNext() throws -> Bool {
        let t = transfer
        var oldObject =
            spareOld
            ?? MigrationObject(
                layout: oldLayout, executor: executor, values: Array(repeating: .null, count: t.oldColumns.count),
                originKey: nil)
        spareOld = nil
        if oldObject.state.pointee.row !== select { oldObject.row = select }
        oldObject.loadedMask = 0
        if !lazy { oldObject.detach() }
        var originKey: SQLValue?
        if let k = keyIndex {
            oldObject.load(k)
            originKey = oldObject.values[k]
        }
        oldObject.originKey = originKey
        // Data the step discards, counted while the row is here (no second scan of the old table).
        if !droppedColumns.isEmpty {
            for (k, c) in droppedColumns.enumerated() where sqlite3_column_type(select.handle, Int32(c)) != SQLITE_NULL
            {
                droppedCounts[k] += 1
            }
        }
        var newObject =
            spareNew
            ?? MigrationObject(
                layout: newLayout, executor: executor, values: Array(repeating: .null, count: t.newColumns.count),
                originKey: nil)
        spareNew = nil
        carry(into: newObject, from: oldObject)
        t.currentPending = newObject
        try block(oldObject, newObject)
        t.currentPending = nil
        if let e = executor.takePendingError() { throw e }
        t.enumerated += 1
        done += 1
        if done % 50_000 == 0 { executor.reporter?.progress(type: t.name, done: done, total: total) }
        if isKnownUniquelyReferenced(&oldObject) { spareOld = oldObject } else { oldObject.detach() }
        let escaped = !isKnownUniquelyReferenced(&newObject)
        if escaped { newObject.detach() }
        guard executor.prepareForWrite(newObject) else {
            if !escaped { spareNew = newObject }
            return false
        }
        try executor.noteKeyChange(newObject)
        newObject.escaped = escaped
        newObject.needsRowid =
            escaped || !newObject.lists.isEmpty || t.trackedLinkColumns.contains { newObject.isDirty($0) }
        current = newObject
        awaitingWrite = newObject
        emitted += 1
        arena.reset()
        sqlite3_set_last_insert_rowid(db, Self.sentinel)
        return true
    }

    /// Makes `newObject` the new form of the old object on the row: untouched values stay on the row
    /// (read on first use), constants and conversions are written now.
    private func carry(into o: MigrationObject, from old: MigrationObject) {
        let st = o.state
        if st.pointee.row !== select { st.pointee.row = select }
        st.pointee.loadedMask = computedMask
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
        for (i, v) in constants { o.values[i] = v }
        if let r = rowidSlot { o.values[r] = .integer(select.int(at: Int32(transfer.oldColumns.count))) }
        for i in conversions { executor.convertCarried(transfer, into: o, from: old, column: i) }
        if !lazy { o.detach() }
    }

    /// xColumn: value i of the current new object (untouched values straight from the old row).
    func column(_ i: Int, into context: OpaquePointer) {
        guard let o = current, i < o.values.count else {
            sqlite3_result_null(context)
            return
        }
        if !o.isLoaded(i) {
            sqlite3_result_value(context, sqlite3_column_value(select.handle, o.layout.rowColumn[i]))
            return
        }
        switch o.values[i] {
        case .null: sqlite3_result_null(context)
        case .integer(let n): sqlite3_result_int64(context, n)
        case .real(let d): sqlite3_result_double(context, d)
        case .text(var s):
            // Copied into the arena, which lives until the next row: SQLite copies it into the record first.
            s.withUTF8 { buf in
                let p = arena.copy(buf)
                sqlite3_result_text(context, p.assumingMemoryBound(to: CChar.self), Int32(buf.count), nil)
            }
        case .blob(let b):
            b.withUnsafeBytes { buf in
                let p = arena.copy(
                    UnsafeBufferPointer(start: buf.baseAddress?.assumingMemoryBound(to: UInt8.self), count: buf.count))
                sqlite3_result_blob(context, p, Int32(buf.count), nil)
            }
        }
    }
}

/// Bytes that must outlive a call by a little: copied into chunks that are reused after `reset`.
final class ByteArena {
    private static let chunkSize = 1 << 16
    private let state:
        UnsafeMutablePointer<(chunks: [(base: UnsafeMutableRawPointer, size: Int)], chunk: Int, offset: Int)>
    /// Where empty values point (SQLite wants a non-null pointer for an empty text).
    private let empty: UnsafeMutableRawPointer = .allocate(byteCount: 1, alignment: 1)

    init() {
        state = .allocate(capacity: 1)
        state.initialize(to: ([], 0, 0))
    }

    deinit {
        for c in state.pointee.chunks { c.base.deallocate() }
        state.deinitialize(count: 1)
        state.deallocate()
        empty.deallocate()
    }

    func reset() {
        state.pointee.chunk = 0
        state.pointee.offset = 0
    }

    /// A copy of `bytes`, valid until the next `reset`.
    func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeRawPointer {
        let n = bytes.count
        guard n > 0, let source = bytes.baseAddress else { return UnsafeRawPointer(empty) }
        var chunk = state.pointee.chunk
        var offset = state.pointee.offset
        while chunk < state.pointee.chunks.count && offset + n > state.pointee.chunks[chunk].size {
            chunk += 1
            offset = 0
        }
        if chunk == state.pointee.chunks.count {
            let size = max(Self.chunkSize, n)
            state.pointee.chunks.append((UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8), size))
        }
        let target = state.pointee.chunks[chunk].base + offset
        target.copyMemory(from: source, byteCount: n)
        state.pointee.chunk = chunk
        state.pointee.offset = offset + n
        return UnsafeRawPointer(target)
    }
}
