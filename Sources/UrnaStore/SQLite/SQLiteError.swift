import CSQLite
import Foundation

/// A failed SQLite call: result code, SQLite's message and the SQL it ran (never the bound values,
/// which may be personal data).
public struct SQLiteError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let code: Int32
    public let message: String
    public let sql: String?
    /// The database file, when the error is about the disk holding it (disk full): the library's own message
    /// named no file, so an app could not tell its user where to free space.
    public var file: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (SQLITE_BUSY, SQLITE_FULL, ...) without extended bits.
    public var primaryCode: Int32 { code & 0xFF }

    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    public var isDiskFull: Bool { primaryCode == SQLITE_FULL }
    public var isReadOnly: Bool { primaryCode == SQLITE_READONLY }
    public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }

    public var description: String {
        var s = "SQLite error \(code): \(message)"
        if isDiskFull, let file { s += ": the disk holding \(file) is full; free space there and try again" }
        if let sql { s += " (while running: \(sql.count > 300 ? String(sql.prefix(300)) + "..." : sql))" }
        return s
    }

    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
