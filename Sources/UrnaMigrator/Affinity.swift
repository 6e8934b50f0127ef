import Foundation
import UrnaStore

/// How SQLite's column affinity turns a value stored into a column of `sqlType`.
enum Affinity {
    /// The value SQLite stores when `v` is written into a column declared `sqlType`.
    static func apply(_ v: SQLValue, sqlType: String) -> SQLValue {
        switch (sqlType, v) {
        case ("TEXT", .integer(let i)): return .text(String(i))
        case ("TEXT", .real(let d)): return .text(realText(d))
        case ("INTEGER", .text(let s)):
            let t = s.trimmingCharacters(in: .whitespaces)
            if let i = Int64(t) { return .integer(i) }
            if let d = Double(t), d.isFinite { return Int64(exactly: d).map(SQLValue.integer) ?? .real(d) }
            return v
        case ("INTEGER", .real(let d)): return Int64(exactly: d).map(SQLValue.integer) ?? v
        case ("REAL", .integer(let i)): return .real(Double(i))
        default: return v
        }
    }

    /// SQLite's text for a REAL stored into a TEXT column (`21.0`, `0.5`).
    static func realText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(format: "%.1f", d) }
        return String(d)
    }

    /// An SQL expression giving the value column `expr` would have after being stored into a column
    /// declared `sqlType` (so lookups in tables of that affinity match).
    static func sqlExpression(_ expr: String, from oldSQLType: String, to sqlType: String) -> String {
        if oldSQLType == sqlType { return expr }
        switch sqlType {
        case "TEXT":
            return "CASE WHEN typeof(\(expr)) IN ('integer', 'real') THEN CAST(\(expr) AS TEXT) ELSE \(expr) END"
        case "INTEGER":
            return "CASE WHEN CAST(\(expr) AS INTEGER) = \(expr) THEN CAST(\(expr) AS INTEGER) ELSE \(expr) END"
        default: return expr
        }
    }
}
