import CSQLite
import Foundation
import UrnaStore

/// One statement the user typed, prepared on a connection the command owns: the C handle is finalized in
/// `deinit`. It knows whether it writes (`sqlite3_stmt_readonly`), binds named parameters and steps row by row.
final class SQLStatement {
    private let handle: OpaquePointer
    private let connection: Connection
    let sql: String

    /// Prepares exactly one statement; bad SQL is a `UsageError` with SQLite's message, the 1-based position
    /// and the statement with a caret under it.
    init(_ sql: String, on connection: Connection) throws {
        self.sql = sql
        self.connection = connection
        var stmt: OpaquePointer?
        let bytes = Array(sql.utf8CString)
        var tailOffset = bytes.count - 1
        let rc = bytes.withUnsafeBufferPointer { buffer in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(connection.handle, buffer.baseAddress, -1, &stmt, &tail)
            if let tail { tailOffset = buffer.baseAddress!.distance(to: tail) }
            return rc
        }
        guard rc == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(connection.handle))
            let offset = Int(sqlite3_error_offset(connection.handle))
            sqlite3_finalize(stmt)
            let hint = SQLNameHint.hint(for: message, sql: sql, connection: connection.handle)
            throw UsageError(Self.describe(message + hint, in: sql, byteOffset: offset))
        }
        guard let stmt else { throw UsageError("no SQL statement to run (the text is empty or only comments)") }
        handle = stmt
        let rest = String(decoding: bytes[tailOffset..<(bytes.count - 1)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if try Self.holdsStatement(rest, connection: connection) {
            throw UsageError(
                "the SQL holds more than one statement: urna sql runs one at a time (remove the text after the first ';')"
            )
        }
    }

    deinit { sqlite3_finalize(handle) }

    /// Whether the statement would change the file (INSERT, UPDATE, DELETE, CREATE, DROP, ...).
    var writes: Bool { sqlite3_stmt_readonly(handle) == 0 }

    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    /// Binds `--param NAME=VALUE` pairs to `:NAME`, `@NAME` or `$NAME`. A value written as a plain whole
    /// number binds as an integer, anything else as text. Every parameter must be given and every given one used.
    func bind(_ parameters: [(name: String, value: String)]) throws {
        var unused = Set(parameters.map(\.name))
        let count = sqlite3_bind_parameter_count(handle)
        guard count > 0 else {
            if let first = parameters.first {
                throw UsageError("--param \(first.name) is given but the SQL has no parameters (write :\(first.name))")
            }
            return
        }
        for i in 1...count {
            guard let cName = sqlite3_bind_parameter_name(handle, i) else {
                throw UsageError("the SQL uses a nameless '?' parameter: name it, like :sq, and give --param sq=VALUE")
            }
            let written = String(cString: cName)
            let name = String(written.dropFirst())
            guard let value = parameters.last(where: { $0.name == name })?.value else {
                throw UsageError("the SQL uses \(written): give --param \(name)=VALUE")
            }
            unused.remove(name)
            let rc: Int32
            if let integer = Int64(value), String(integer) == value {
                rc = sqlite3_bind_int64(handle, i, integer)
            } else {
                rc = sqlite3_bind_text(handle, i, value, -1, Self.transient)
            }
            guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "cannot bind \(written)", sql: sql) }
        }
        if let extra = unused.sorted().first {
            throw UsageError(
                "--param \(extra) is not used by the SQL (it uses: \(usedNames().joined(separator: ", ")))")
        }
    }

    /// Moves to the next row; false at the end. Run-time failures are `SQLiteError`s.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw SQLiteError(
            code: sqlite3_extended_errcode(connection.handle),
            message: String(cString: sqlite3_errmsg(connection.handle)), sql: sql)
    }

    /// The current row's values.
    func row() -> [SQLValue] {
        (0..<sqlite3_column_count(handle)).map { Statement.columnValue(handle, $0) }
    }

    private func usedNames() -> [String] {
        (1...max(1, sqlite3_bind_parameter_count(handle))).compactMap { i in
            sqlite3_bind_parameter_name(handle, i).map { String(String(cString: $0).dropFirst()) }
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Whether text after the first statement holds another one (not only spaces, `;` or comments).
    private static func holdsStatement(_ rest: String, connection: Connection) throws -> Bool {
        guard rest.contains(where: { !$0.isWhitespace && $0 != ";" }) else { return false }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(connection.handle, rest, -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        return rc != SQLITE_OK || stmt != nil
    }

    /// `bad SQL at 15: no such column: nam` (line:column when the SQL has several lines) and the line with
    /// a caret under the place; SQLite gives no place for some errors, then the message stands alone.
    static func describe(_ message: String, in sql: String, byteOffset: Int) -> String {
        guard byteOffset >= 0, byteOffset <= sql.utf8.count else { return "bad SQL: \(message)" }
        let before = String(decoding: sql.utf8.prefix(byteOffset), as: UTF8.self)
        let lines = sql.split(separator: "\n", omittingEmptySubsequences: false)
        let lineIndex = before.filter { $0 == "\n" }.count
        let column = (before.split(separator: "\n", omittingEmptySubsequences: false).last.map(\.count) ?? 0) + 1
        let place = lines.count > 1 ? "\(lineIndex + 1):\(column)" : "\(column)"
        let line = lineIndex < lines.count ? String(lines[lineIndex]) : ""
        return "bad SQL at \(place): \(message)\n  \(line)\n  " + String(repeating: " ", count: column - 1) + "^"
    }
}
