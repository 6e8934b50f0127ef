import CSQLite
import Foundation
import Synchronization

/// Owns one prepared statement; finalizes it in deinit.
///
/// A statement from `Connection.prepare` keeps its connection open (an app may step it after dropping the `Store`
/// whose `connection` prepared it: it stepped a freed connection and crashed). One from `cachedStatement` belongs to
/// the connection's cache and does not (that would be a cycle): used after its connection went, it throws.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    unowned let connection: Connection
    /// The connection, held by statements an app prepared (nil for cached ones, which the connection holds).
    private let keptConnection: Connection?
    /// Set when the connection of a cached statement is deinitialised; `step` and `bind` then throw.
    private let detached = Atomic<Bool>(false)

    init(connection: Connection, sql: String, keepsConnection: Bool = false) throws {
        keptConnection = keepsConnection ? connection : nil
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw connection.error(rc, sql: sql) }
        handle = stmt
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }
    public func columnName(_ i: Int) -> String { String(cString: sqlite3_column_name(handle, Int32(i))) }

    /// Text bound since the last `reset()`: SQLite reads it here, in place, instead of copying each value
    /// into an allocation of its own (made on first use; chunks are reused row after row).
    private var boundText: ByteArena?

    /// Resets the statement and clears its bindings. On a store's writer it holds the store's write lock, as `step`
    /// does: the connection's cache hands a statement out again (and resets it) only once its last holder let go, and
    /// the lock orders that holder's last reset before the next one's.
    public func reset() {
        guard !detached.load(ordering: .acquiring) else { return resetHere() }
        connection.exclusiveQuietly { resetHere() }
    }

    private func resetHere() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        boundText?.reset()
    }

    /// Binds values to parameters 1...n.
    public func bind(_ values: [SQLValue]) throws {
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    public func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d): rc = sqlite3_bind_double(handle, index, d)
        case .text(let s): rc = bindTextReturningCode(s, at: index)
        case .blob(let b):
            rc = b.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), sqliteTransient)
            }
        }
        if rc != SQLITE_OK { throw failure(rc) }
    }

    /// The error for `rc` (SQLite's message), or the one saying this statement's connection is gone.
    func failure(_ rc: Int32) -> SQLiteError {
        if detached.load(ordering: .acquiring) { return Self.connectionGone(sql) }
        return connection.error(rc, sql: sql)
    }

    static func connectionGone(_ sql: String) -> SQLiteError {
        SQLiteError(
            code: SQLITE_MISUSE,
            message: "the connection this cached statement was prepared on was closed (its Store was released): "
                + "prepare it with Connection.prepare, which keeps the connection open, or keep the Store alive",
            sql: sql)
    }

    /// Called by the connection's deinit for the statements in its cache.
    func detach() { detached.store(true, ordering: .releasing) }

    /// Binds an integer without building an SQLValue (hot paths).
    @inline(__always) public func bindInt(_ v: Int64, at index: Int32) { sqlite3_bind_int64(handle, index, v) }
    @inline(__always) public func bindNull(at index: Int32) { sqlite3_bind_null(handle, index) }
    @inline(__always) public func bindDouble(_ v: Double, at index: Int32) { sqlite3_bind_double(handle, index, v) }
    @inline(__always) public func bindText(_ s: String, at index: Int32) { _ = bindTextReturningCode(s, at: index) }

    /// Binds text with an explicit byte count, so text holding NUL characters stays whole
    /// (a length of -1 would stop at the first NUL).
    ///
    /// The bytes are copied into `boundText` and bound as SQLITE_STATIC: they stay put until `reset()`, and
    /// SQLite only reads parameters while the statement steps, which needs a reset before it binds again.
    @inline(__always) func bindTextReturningCode(_ s: String, at index: Int32) -> Int32 {
        let arena: ByteArena
        if let a = boundText {
            arena = a
        } else {
            arena = ByteArena(chunkSize: 4096)
            boundText = arena
        }
        // Native strings lend their UTF-8 bytes in place; copying `s` into a `var` for `withUTF8` retained every
        // bound string (an atomic write to memory the import's reading thread allocated and later frees).
        if let rc = s.utf8.withContiguousStorageIfAvailable({ buf in
            let p = arena.copy(buf)
            return sqlite3_bind_text(handle, index, p.assumingMemoryBound(to: CChar.self), Int32(buf.count), nil)
        }) {
            return rc
        }
        var s = s
        return s.withUTF8 { buf in
            let p = arena.copy(buf)
            return sqlite3_bind_text(handle, index, p.assumingMemoryBound(to: CChar.self), Int32(buf.count), nil)
        }
    }

    /// Steps once: true when a row is available, false when done.
    ///
    /// On a store's writer (`store.connection`) each step holds the store's write lock, as the connection's own
    /// methods do: a statement prepared there and run on a thread that is not writing waits for another thread's
    /// open write instead of running inside it (an INSERT reported done, then rolled back with that write).
    @discardableResult
    public func step() throws -> Bool {
        if detached.load(ordering: .acquiring) { throw Self.connectionGone(sql) }
        let (rc, failure) = try connection.exclusive { () -> (Int32, SQLiteError?) in
            let rc = sqlite3_step(handle)
            guard rc != SQLITE_ROW && rc != SQLITE_DONE else { return (rc, nil) }
            // The message is read before another thread's statement can replace it.
            let e = connection.error(rc, sql: sql)
            sqlite3_reset(handle)
            return (rc, e)
        }
        if let failure { throw failure }
        return rc == SQLITE_ROW
    }

    /// Steps until done (for statements that return no rows), then resets, bindings cleared: bind every
    /// parameter again before the next run.
    public func runToCompletion() throws {
        while try step() {}
        reset()
    }

    public func value(at i: Int) -> SQLValue { Statement.columnValue(handle, Int32(i)) }

    /// Column `i` of the current row of any prepared statement handle, as an SQLValue.
    public static func columnValue(_ handle: OpaquePointer, _ i: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, i))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, i))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(handle, i))
            guard n > 0, let p = sqlite3_column_blob(handle, i) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default:
            guard let p = sqlite3_column_text(handle, i) else { return .text("") }
            let n = Int(sqlite3_column_bytes(handle, i))
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        }
    }

    @inline(__always) public func int(at i: Int) -> Int64 { sqlite3_column_int64(handle, Int32(i)) }
    /// The column's storage class in the current row: 1 integer, 2 real, 3 text, 4 blob, 5 null.
    @inline(__always) public func storageClass(at i: Int) -> Int32 { sqlite3_column_type(handle, Int32(i)) }
    /// The UTF-8 bytes of a text column in the current row, valid only inside `body` (no String is made).
    @inline(__always) public func withText<R>(at i: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let p = sqlite3_column_text(handle, Int32(i))
        let n = Int(sqlite3_column_bytes(handle, Int32(i)))
        return try body(UnsafeRawBufferPointer(start: p, count: n))
    }
    @inline(__always) public func isNull(at i: Int) -> Bool { sqlite3_column_type(handle, Int32(i)) == SQLITE_NULL }

    static func value(of v: OpaquePointer) -> SQLValue {
        switch sqlite3_value_type(v) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(v))
        case SQLITE_BLOB:
            let n = Int(sqlite3_value_bytes(v))
            guard n > 0, let p = sqlite3_value_blob(v) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default:
            guard let p = sqlite3_value_text(v) else { return .text("") }
            let n = Int(sqlite3_value_bytes(v))
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        }
    }
}
