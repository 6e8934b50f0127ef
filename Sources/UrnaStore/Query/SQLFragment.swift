/// A piece of SQL with the values bound to its `?` parameters, in order.
///
/// Built by interpolation so a value can only enter as a parameter: `"\(column) = \(bind: v)"`.
/// Plain strings need `raw:` (for SQL the compiler wrote itself or identifiers already quoted).
struct SQLFragment: ExpressibleByStringInterpolation, CustomStringConvertible {
    var sql: String
    var bindings: [SQLValue]

    init(stringLiteral value: String) {
        sql = value
        bindings = []
    }

    init(stringInterpolation: Interpolation) {
        sql = stringInterpolation.sql
        bindings = stringInterpolation.bindings
    }

    var description: String { sql }

    /// The fragments joined by `separator`, each in parentheses.
    static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var out: SQLFragment = ""
        for (i, p) in parts.enumerated() {
            if i > 0 { out.sql += separator }
            out.sql += "(" + p.sql + ")"
            out.bindings += p.bindings
        }
        return out
    }

    struct Interpolation: StringInterpolationProtocol {
        var sql = ""
        var bindings: [SQLValue] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        mutating func appendLiteral(_ literal: String) { sql += literal }

        mutating func appendInterpolation(_ fragment: SQLFragment) {
            sql += fragment.sql
            bindings += fragment.bindings
        }

        /// A bound parameter.
        mutating func appendInterpolation(bind value: SQLValue) {
            sql += "?"
            bindings.append(value)
        }

        /// A name from the validated schema, double-quoted.
        mutating func appendInterpolation(quoted name: String) { sql += Identifier.quoted(name) }

        /// SQL text the compiler wrote (aliases, keywords); never a value.
        mutating func appendInterpolation(raw text: String) { sql += text }
    }
}
