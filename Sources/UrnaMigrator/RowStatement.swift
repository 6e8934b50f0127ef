import CSQLite
import Foundation
import UrnaStore

/// A prepared statement for the migrator's per-object work: owns its sqlite3_stmt (finalized in
/// deinit) and exposes the handle, so an enumeration can hand a column of the old row to SQLite
/// without copying it into Swift.
final class RowStatement {
    let handle: OpaquePointer
    let sql: String
    let connection: Connection

    init(_ connection: Connection, _ sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(connection.handle),
                message: String(cString: sqlite3_errmsg(connection.handle)), sql: sql)
        }
        handle = stmt
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Steps once: true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let error = SQLiteError(
            code: sqlite3_extended_errcode(connection.handle),
            message: String(cString: sqlite3_errmsg(connection.handle)), sql: sql)
        sqlite3_reset(handle)
        throw error
    }

    /// Runs a statement that returns no rows, then resets it (bindings are kept until rebound).
    func run() throws {
        let rc = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else {
            throw SQLiteError(
                code: sqlite3_extended_errcode(connection.handle),
                message: String(cString: sqlite3_errmsg(connection.handle)), sql: sql)
        }
    }

    func reset() { sqlite3_reset(handle) }

    @inline(__always) func int(at i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }

    /// Column i of the current row. One `sqlite3_column_value` call, then the value's own accessors
    /// (cheaper than three `sqlite3_column_*` calls). The value is SQLite's "unprotected" kind, which
    /// may be read like this on the one thread that uses the connection (opened NOMUTEX).
    @inline(__always) func value(at i: Int32) -> SQLValue { Self.value(handle, i) }

    /// Column i of the current row of a statement handle (see `value(at:)`).
    @inline(__always) static func value(_ handle: OpaquePointer, _ i: Int32) -> SQLValue {
        guard let v = sqlite3_column_value(handle, i) else { return .null }
        switch sqlite3_value_type(v) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(v))
        case SQLITE_NULL: return .null
        case SQLITE_FLOAT: return .real(sqlite3_value_double(v))
        case SQLITE_TEXT:
            return .text(text(v))
        default:
            let p = sqlite3_value_blob(v)
            let n = Int(sqlite3_value_bytes(v))
            guard n > 0, let p else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        }
    }

    /// A text value as a String, built straight from SQLite's bytes: one copy into the String's own
    /// storage, validated there (ill-formed UTF-8 is repaired, as `String(decoding:as:)` would), with
    /// no validation at all for short ASCII text.
    @inline(__always) static func text(_ v: OpaquePointer) -> String {
        guard let p = sqlite3_value_text(v) else { return "" }
        let n = Int(sqlite3_value_bytes(v))
        guard n > 0 else { return "" }
        return String(unsafeUninitializedCapacity: n) { buf in
            UnsafeMutableRawPointer(buf.baseAddress!).copyMemory(from: p, byteCount: n)
            return n
        }
    }

    func bind(_ v: SQLValue, at i: Int32) {
        switch v {
        case .null: sqlite3_bind_null(handle, i)
        case .integer(let n): sqlite3_bind_int64(handle, i, n)
        case .real(let d): sqlite3_bind_double(handle, i, d)
        case .text(var s):
            s.withUTF8 { buf in
                if let base = buf.baseAddress, buf.count > 0 {
                    _ = sqlite3_bind_text(
                        handle, i, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buf.count),
                        rowStatementTransient)
                } else {
                    _ = sqlite3_bind_text(handle, i, "", 0, rowStatementTransient)
                }
            }
        case .blob(let b):
            _ = b.withUnsafeBytes {
                sqlite3_bind_blob(handle, i, $0.baseAddress, Int32($0.count), rowStatementTransient)
            }
        }
    }
}

let rowStatementTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// SQLITE_STATIC: SQLite reads the bytes where they are (they must stay put until it is done with them).
let rowStatementStatic: sqlite3_destructor_type? = nil
