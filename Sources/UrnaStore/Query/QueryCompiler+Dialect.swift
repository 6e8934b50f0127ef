import Foundation

/// Where SQLite's and PostgreSQL's SQL differ for the same predicate: parameters (typed by casts on
/// PostgreSQL, whose columns are boolean, numeric amounts, timestamptz, uuid), folding, embedded objects.
extension QueryCompiler {
    /// A bound value compared with a key path of `type` (the value as `bindable` made it for SQLite).
    func parameter(_ value: SQLValue, as type: ValueType) -> SQLFragment {
        guard dialect == .postgres else { return "\(bind: value)" }
        switch (type, value) {
        case (_, .null): return "\(bind: value)"
        case (.bool, .integer(let i)): return "\(bind: .text(i != 0 ? "true" : "false"))::boolean"
        case (.decimal(let scale), .integer(let units)):
            return "\(bind: .text(Self.amount(units, scale: scale)))::numeric"
        case (.decimal(let scale), .real):
            // Between two amounts (1000.505 at scale 2): the units, scaled back exactly.
            let factor = scale == 0 ? "1" : "0." + String(repeating: "0", count: scale - 1) + "1"
            return "(\(bind: value)::numeric * \(raw: factor))"
        case (.date, _): return "\(bind: value)::timestamptz"
        case (.uuid, _): return "\(bind: value)::uuid"
        case (.data, _): return "\(bind: value)::bytea"
        case (.string, _): return "\(bind: value)::text"
        case (.link(let target), _):
            switch schema[type: target]?.primaryKey?.type ?? .int64 {
            case .string: return "\(bind: value)::text"
            case .uuid: return "\(bind: value)::uuid"
            default: return "\(bind: value)::bigint"
            }
        case (_, .integer): return "\(bind: value)::bigint"
        case (_, .real): return "\(bind: value)::float8"
        case (_, .text): return "\(bind: value)::text"
        case (_, .blob): return "\(bind: value)::bytea"
        }
    }

    /// `units` × 10^-scale as exact decimal text (`12345` at scale 2 is `123.45`).
    static func amount(_ units: Int64, scale: Int) -> String {
        guard scale > 0 else { return String(units) }
        var digits = String(units.magnitude)
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        let point = digits.index(digits.endIndex, offsetBy: -scale)
        return (units < 0 ? "-" : "") + digits[..<point] + "." + digits[point...]
    }

    /// `x` folded for `[c]` / `[d]`; on PostgreSQL, text compares in the "C" collation (byte order, as in
    /// SQLite), whatever the expression's own.
    func foldedSQL(_ x: SQLFragment, _ options: PredicateOptions, _ type: ValueType) -> SQLFragment {
        switch dialect {
        case .sqlite:
            return options.isEmpty ? x : "\(raw: TextFolding.functionName)(\(x), \(raw: String(options.rawValue)))"
        case .postgres:
            guard type == .string else { return x }
            return "(\(PostgresTextFolding.sql(x, options))) COLLATE \"C\""
        }
    }

    /// A property inside an embedded object's JSON column, as `json_extract` gives it on SQLite: the JSON
    /// holds what the store encodes (numbers, decimals as units, bools as 0/1, dates and uuids as text).
    func embeddedValue(_ column: SQLFragment, path: [String], end: PropertyType?) -> SQLFragment {
        if dialect == .sqlite {
            return "json_extract(\(column), '\(raw: "$." + path.joined(separator: "."))')"
        }
        // The names are validated identifiers: the path is a literal, so it also works in ORDER BY.
        // Typed literals throughout: with an untyped one, an operator of the same name taking text (`#>(jsonb, text)`)
        // in a schema on the path would be chosen over the built-in.
        let element: SQLFragment = "(\(column) #> '{\(raw: path.joined(separator: ","))}'::text[])"
        let text: SQLFragment = "(\(element) #>> '{}'::text[])"
        let number: SQLFragment = "CASE WHEN jsonb_typeof\(element) = 'number' THEN \(text)::numeric END"
        let string: SQLFragment = "CASE WHEN jsonb_typeof\(element) = 'string' THEN \(text) END"
        switch end {
        case nil: return text  // an embedded object: only compared with nil
        case .bool?:
            return
                "(CASE jsonb_typeof\(element) WHEN 'number' THEN \(text)::numeric <> 0::numeric WHEN 'boolean' THEN \(text)::boolean END)"
        case .int8?, .int16?, .int32?, .int64?: return "(\(number))::bigint"
        case .float?, .double?: return "(\(number))::float8"
        case .decimal(let scale)?:
            return "((\(number)) / 1\(raw: String(repeating: "0", count: scale))::numeric)"
        case .date?: return "(\(string))::timestamptz"
        case .uuid?: return "(\(string))::uuid"
        default: return "(\(string)) COLLATE \"C\""
        }
    }
}

extension QueryCompiler {
    /// `text`, bound as a parameter, folded as a comparison with `options` folds a column: for checking that a
    /// server folds as `TextFolding` does (`PostgresQuery.foldsExactly`).
    public func foldedText(parameter text: String, _ options: PredicateOptions) throws -> (
        sql: String, bindings: [SQLValue]
    ) {
        let f = foldedSQL(parameter(.text(text), as: .string), options, .string)
        return (dialect == .postgres ? SQLDialect.numbered(f.sql) : f.sql, f.bindings)
    }
}
