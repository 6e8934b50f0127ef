import Foundation

/// The SQL a `QueryCompiler` writes: SQLite's, over the file's storage contract, or PostgreSQL's, over the
/// same tables with PostgreSQL's types (boolean, numeric(38, s) amounts, timestamptz, uuid, jsonb, text
/// COLLATE "C"; README: PostgreSQL).
///
/// The predicates mean the same on both: nils, folding (`PostgresTextFolding`), byte order for text, NULLs
/// first when sorting ascending (SQLite's order; PostgreSQL puts them last unless told).
public enum SQLDialect: Sendable, Equatable {
    case sqlite
    /// Parameters are `$1`, `$2`, ... with explicit casts; bindings stay `SQLValue`s, sent as text by
    /// `postgresText(_:)`: decimals as their amount, bools as true/false, blobs in hex.
    case postgres

    var trueSQL: String { self == .sqlite ? "1" : "TRUE" }
    var falseSQL: String { self == .sqlite ? "0" : "FALSE" }
    /// `(x) IS NOT 1`: true where a condition is false or NULL.
    var isNotTrue: String { self == .sqlite ? "IS NOT 1" : "IS NOT TRUE" }
    /// Null-safe equality and inequality.
    var isSame: String { self == .sqlite ? "IS" : "IS NOT DISTINCT FROM" }
    var isNotSame: String { self == .sqlite ? "IS NOT" : "IS DISTINCT FROM" }

    /// The text a PostgreSQL parameter carries for a binding the compiler made (nil for NULL).
    public static func postgresText(_ value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let i): return String(i)
        case .real(let d): return "\(d)"
        case .text(let s): return s
        case .blob(let b): return byteaText(b)
        }
    }

    /// Bytes as PostgreSQL's bytea hex input (`\x0aff`).
    public static func byteaText(_ bytes: [UInt8]) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [92, 120]  // \x
        out.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `sql` with its `?` parameters (outside quotes) numbered `$1`, `$2`, ... from `first`.
    static func numbered(_ sql: String, from first: Int = 1) -> String {
        var out = ""
        out.reserveCapacity(sql.utf8.count + 16)
        var n = first
        var quote: Character?
        for c in sql {
            if let q = quote {
                if c == q { quote = nil }
                out.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                out.append(c)
            } else if c == "?" {
                out += "$\(n)"
                n += 1
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// An NSPredicate LIKE pattern (`*` any run, `?` one character, `\*` and `\?` literal, another `\` itself)
    /// as a PostgreSQL LIKE pattern with `\` as its escape.
    static func likePattern(_ pattern: String) -> String {
        var out = ""
        var escaped = false
        func literal(_ c: Character) {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        for c in pattern {
            if escaped {
                if c != "*" && c != "?" { literal("\\") }
                literal(c)
                escaped = false
                continue
            }
            switch c {
            case "\\": escaped = true
            case "*": out.append("%")
            case "?": out.append("_")
            default: literal(c)
            }
        }
        if escaped { literal("\\") }
        return out
    }

    /// `text` as a LIKE pattern matching itself.
    static func likeLiteral(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
