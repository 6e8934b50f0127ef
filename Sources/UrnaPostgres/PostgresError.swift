import Foundation

/// A failure reported by libpq or the server: the message, the SQLSTATE when the server sent one, and the
/// database it happened on (password hidden).
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let sqlState: String?
    public let database: String
    /// Where in the statement the server found the error (1-based, in characters), when it said.
    public let position: Int?

    public init(_ message: String, sqlState: String? = nil, database: String, position: Int? = nil) {
        self.message = message
        self.sqlState = sqlState
        self.database = database
        self.position = position
    }

    /// A statement the server could not take as written (SQLSTATE class 42: syntax, unknown table, column or
    /// function, permission): the user's SQL is at fault, not the server.
    public var isBadStatement: Bool { sqlState?.hasPrefix("42") ?? false }

    /// lock_timeout (55P03) or a deadlock (40P01): another session holds what this one needs.
    public var isLockTimeout: Bool { sqlState == "55P03" || sqlState == "40P01" }

    public var description: String {
        "PostgreSQL at \(database): \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
    }
}
