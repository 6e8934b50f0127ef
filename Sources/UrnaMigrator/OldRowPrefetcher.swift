import CSQLite
import Foundation
import UrnaStore

/// Reads an old table's rows on a second thread, through a read-only connection of its own, while the
/// enumeration runs the closures on them: SQLite's stepping and the building of each value's Swift form
/// happen beside the closures and the INSERT instead of between them.
///
/// Only valid while the migration's connection has not changed the old table: steps write their new
/// tables beside the old ones and swap them at the end, so in the first step of a run the old tables hold
/// exactly their committed rows, which is what a second connection reads. In WAL mode that reader never
/// blocks the writer nor waits for it (the migrator uses it only then; see `StepExecutor.readsAhead`).
///
/// Rows come in batches through a small bounded queue; each batch is one buffer of `width` values per row
/// that the consumer moves out of (no copy, no reference counting), then frees.
final class OldRowPrefetcher: @unchecked Sendable {
    /// Values per row: the old columns, then the rowid.
    let width: Int
    static let rowsPerBatch = 512
    static let queueDepth = 4

    private var connection: Connection?
    private var statement: RowStatement?
    private let condition = NSCondition()
    private var queue: [(values: UnsafeMutablePointer<SQLValue>, rows: Int)] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    /// Whether the reading thread was started (`cancel` then waits for `threadDone`).
    private var started = false
    private var threadDone = false
    /// The batch being consumed (consumer thread only).
    private var current: (values: UnsafeMutablePointer<SQLValue>, rows: Int)?
    private var currentRow = 0

    /// A reader of `sql` on its own read-only connection to `path`, opened here; nil when that fails (the
    /// enumeration then reads through the migration's connection, as it does outside the first step).
    init?(path: String, sql: String, width: Int) {
        self.width = width
        do {
            let c = try Connection(path: path, readOnly: true, create: false)
            try c.execute("BEGIN")
            statement = try RowStatement(c, sql)
            connection = c
        } catch {
            return nil
        }
    }

    deinit { cancel() }

    /// Starts the reading thread.
    func start() {
        condition.lock()
        started = true
        condition.unlock()
        startWorkerThread(named: "urna-migrate-reader") { [self] in produce() }
    }

    /// Moves the next row's values into `old[0..<width-1]` and returns its rowid; nil when every row was read.
    /// Throws what stopped the reading thread.
    func next(into old: UnsafeMutablePointer<SQLValue>) throws -> Int64? {
        if current == nil || currentRow == current!.rows {
            if let done = current {
                done.values.deallocate()  // every value was moved out
                current = nil
            }
            guard let batch = try take() else { return nil }
            current = batch
            currentRow = 0
        }
        let row = current!.values + currentRow * width
        currentRow += 1
        for i in 0..<(width - 1) { (old + i).pointee = (row + i).move() }
        let rowid = (row + width - 1).move()
        if case .integer(let r) = rowid { return r }
        return 0
    }

    /// Stops the reader, waits for its thread, and frees every row nobody took; safe to call more than once.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        while started && !threadDone { condition.wait() }
        let left = queue
        queue = []
        condition.unlock()
        for b in left { free(b) }
        if let c = current {
            let taken = currentRow * width
            (c.values + taken).deinitialize(count: c.rows * width - taken)
            c.values.deallocate()
            current = nil
        }
    }

    /// Frees a batch whose `rows` rows all still hold their values.
    private func free(_ batch: (values: UnsafeMutablePointer<SQLValue>, rows: Int)) {
        batch.values.deinitialize(count: batch.rows * width)
        batch.values.deallocate()
    }

    private func take() throws -> (values: UnsafeMutablePointer<SQLValue>, rows: Int)? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished && failure == nil { condition.wait() }
        if let failure { throw failure }
        if queue.isEmpty { return nil }
        let batch = queue.removeFirst()
        condition.broadcast()
        return batch
    }

    // MARK: - Reading thread

    private func produce() {
        defer {
            condition.lock()
            threadDone = true
            condition.broadcast()
            condition.unlock()
        }
        // The connection and statement are this thread's from here on; they are let go of when it ends.
        guard let c = connection, let s = statement else { return }
        defer {
            statement = nil
            try? c.execute("COMMIT")
            connection = nil
        }
        do {
            while true {
                let values = UnsafeMutablePointer<SQLValue>.allocate(capacity: Self.rowsPerBatch * width)
                var rows = 0
                do {
                    while rows < Self.rowsPerBatch, try s.step() {
                        let row = values + rows * width
                        for i in 0..<width { (row + i).initialize(to: RowStatement.value(s.handle, Int32(i))) }
                        rows += 1
                    }
                } catch {
                    free((values, rows))
                    throw error
                }
                let last = rows < Self.rowsPerBatch
                condition.lock()
                while queue.count >= Self.queueDepth && !cancelled { condition.wait() }
                if cancelled {
                    condition.unlock()
                    free((values, rows))
                    return
                }
                if rows > 0 { queue.append((values, rows)) } else { free((values, 0)) }
                if last { finished = true }
                condition.broadcast()
                condition.unlock()
                if last { return }
            }
        } catch {
            condition.lock()
            failure = error
            condition.broadcast()
            condition.unlock()
        }
    }
}
