import Foundation
import UrnaStore

/// How one stored column is typed on PostgreSQL, and how its SQLite value maps to and from it.
public enum PostgresColumnKind: Equatable, Sendable {
    case boolean
    case integer(String)  // smallint, integer or bigint
    case real(String)  // real or double precision
    case text
    case timestamp  // timestamptz; SQLite holds ISO-8601 UTC text with milliseconds
    case bytea
    case uuid
    case numeric(scale: Int)  // exact; SQLite holds the value × 10^scale as an integer
    case json  // jsonb; SQLite holds the embedded object's JSON text

    public var sqlType: String {
        switch self {
        case .boolean: "boolean"
        case .integer(let t), .real(let t): t
        case .text: "text"
        case .timestamp: "timestamptz"
        case .bytea: "bytea"
        case .uuid: "uuid"
        case .numeric(let s): "numeric(38, \(s))"
        case .json: "jsonb"
        }
    }

    /// The type in a column definition: `sqlType`, with text columns collated "C". SQLite compares text
    /// byte by byte (BINARY), and so does PostgreSQL's "C" collation on UTF-8: `ORDER BY`, `<` and `GROUP BY`
    /// in `urna sql` agree with the file whatever the database's default collation, and the keys' indexes are
    /// built by plain byte comparison (about twice as fast as ICU's en-US on a million keys).
    public var columnType: String {
        switch self {
        case .text: #"text COLLATE "C""#
        default: sqlType
        }
    }

    /// The kind of a property (links take their target's key kind).
    public static func of(_ p: Property, in schema: Schema) -> PostgresColumnKind {
        switch p.type {
        case .bool: .boolean
        case .int8, .int16: .integer("smallint")
        case .int32: .integer("integer")
        case .int64: .integer("bigint")
        case .float: .real("real")
        case .double: .real("double precision")
        case .string: .text
        case .date: .timestamp
        case .data: .bytea
        case .uuid: .uuid
        case .decimal(let s): .numeric(scale: s)
        case .embedded: .json
        case .link(let target): keyKind(of: target, in: schema)
        case .list, .linkingObjects: .text  // never a column
        }
    }

    /// The kind of a type's identity column.
    public static func keyKind(of type: String, in schema: Schema) -> PostgresColumnKind {
        guard let pk = schema[type: type]?.primaryKey else { return .integer("bigint") }
        return of(pk, in: schema)
    }

    /// How a column of this PostgreSQL type (information_schema's `data_type`) is copied into SQLite: its
    /// declared type there and the kind that converts its values (plain tables being adopted, and columns a
    /// later urna added to `_urna_history`). Values of other types arrive as their exact text.
    static func forServerColumn(type: String) -> (sqliteType: String, kind: PostgresColumnKind) {
        switch type {
        case "bigint", "integer", "smallint": ("INTEGER", .integer(type))
        case "boolean": ("INTEGER", .boolean)
        case "real", "double precision": ("REAL", .real("double precision"))
        case "bytea": ("BLOB", .bytea)
        case "timestamp with time zone", "timestamp without time zone", "date": ("TEXT", .timestamp)
        default: ("TEXT", .text)
        }
    }

    /// The kind a plain column of this SQLite declared type is copied as (metadata tables).
    static func ofSQLiteType(_ declared: String) -> PostgresColumnKind {
        switch declared.uppercased() {
        case "INTEGER": .integer("bigint")
        case "REAL": .real("double precision")
        case "BLOB": .bytea
        default: .text
        }
    }

    // MARK: SQLite value -> PostgreSQL text

    /// The text PostgreSQL reads for a stored SQLite value, or nil for NULL; throws when the value cannot
    /// be this kind (a text in a number column), naming the column.
    public func postgresText(_ v: SQLValue, column: String) throws -> String? {
        func bad() -> PostgresTransferError {
            .badValue(column: column, value: String(describing: v).prefix(40).description, expected: sqlType)
        }
        switch (self, v) {
        case (_, .null): return nil
        case (.boolean, .integer(let i)): return i != 0 ? "t" : "f"
        case (.integer, .integer(let i)): return String(i)
        case (.real, .real(let d)):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            return "\(d)"
        case (.real, .integer(let i)): return String(i)
        case (.text, .text(let s)), (.json, .text(let s)), (.uuid, .text(let s)), (.timestamp, .text(let s)):
            return s
        case (.text, .integer(let i)): return String(i)
        case (.text, .real(let d)): return "\(d)"
        case (.bytea, .blob(let b)): return SQLDialect.byteaText(b)
        case (.numeric(let scale), .integer(let i)): return PostgresColumnKind.decimalText(i, scale: scale)
        default: throw bad()
        }
    }

    /// `12345` at scale 2 -> `123.45`; exact for every Int64.
    static func decimalText(_ value: Int64, scale: Int) -> String {
        guard scale > 0 else { return String(value) }
        let negative = value < 0
        var digits = String(value.magnitude)
        if digits.count <= scale { digits = String(repeating: "0", count: scale - digits.count + 1) + digits }
        let point = digits.index(digits.endIndex, offsetBy: -scale)
        return (negative ? "-" : "") + digits[..<point] + "." + digits[point...]
    }

    // MARK: PostgreSQL -> SQLite value

    static let unrepresentable = "urna-unrepresentable:"

    /// The SELECT expression whose text `sqliteValue` turns back into the stored SQLite value.
    public func selectExpression(_ quotedColumn: String) -> String {
        switch self {
        case .boolean: "\(quotedColumn)::int"
        // A date urna cannot store as it is (infinity, BC, finer than milliseconds) comes out marked, and
        // sqliteValue refuses it: never silently rounded, moved to AD or emptied.
        case .timestamp:
            "CASE WHEN \(quotedColumn) IS NULL THEN NULL WHEN isfinite(\(quotedColumn)) AND \(quotedColumn) >= '0001-01-01T00:00:00Z' "
                + "AND date_trunc('milliseconds', \(quotedColumn)) = \(quotedColumn) "
                + "THEN to_char(\(quotedColumn) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') "
                + "ELSE '\(Self.unrepresentable)' || \(quotedColumn)::text END"
        case .uuid, .json: "\(quotedColumn)::text"
        // float4 printed as float4 would not read back as the same Double: widen it exactly first.
        case .real("real"): "\(quotedColumn)::double precision"
        // Typed literal: an operator taking (numeric, integer) in a schema on the path would match better than the built-in.
        case .numeric(let s): "round(\(quotedColumn) * 1\(String(repeating: "0", count: s))::numeric)::bigint"
        default: quotedColumn
        }
    }

    /// The SQLite value for the text `selectExpression` produced.
    public func sqliteValue(_ text: String?, column: String) throws -> SQLValue {
        guard let text else { return .null }
        switch self {
        case .boolean, .integer, .numeric:
            guard let i = Int64(text) else {
                throw PostgresTransferError.badValue(column: column, value: text, expected: "a whole number")
            }
            return .integer(i)
        case .real:
            guard let d = Double(text) else {
                throw PostgresTransferError.badValue(column: column, value: text, expected: "a number")
            }
            return .real(d)
        case .bytea:
            let b = Array(text.utf8)
            guard b.count >= 2, b[0] == 92, b[1] == 120, b.count % 2 == 0 else {
                throw PostgresTransferError.badValue(column: column, value: text, expected: "bytea in hex form")
            }
            func nibble(_ c: UInt8) -> UInt8? {
                switch c {
                case 48...57: c - 48
                case 97...102: c - 87
                case 65...70: c - 55
                default: nil
                }
            }
            var out: [UInt8] = []
            out.reserveCapacity((b.count - 2) / 2)
            var i = 2
            while i < b.count {
                guard let hi = nibble(b[i]), let lo = nibble(b[i + 1]) else {
                    throw PostgresTransferError.badValue(column: column, value: text, expected: "bytea in hex form")
                }
                out.append(hi << 4 | lo)
                i += 2
            }
            return .blob(out)
        case .timestamp:
            guard !text.hasPrefix(Self.unrepresentable), ISODate.parse(text) != nil else {
                throw PostgresTransferError.badValue(
                    column: column,
                    value: String(
                        text.dropFirst(text.hasPrefix(Self.unrepresentable) ? Self.unrepresentable.count : 0)),
                    expected: "a date urna can store (finite, from year 1, in whole milliseconds)")
            }
            return .text(text)
        case .text, .uuid, .json: return .text(text)
        }
    }

    /// A literal of this kind for a column DEFAULT, from the SQLite default value.
    func defaultLiteral(_ v: SQLValue, column: String) throws -> String {
        guard let text = try postgresText(v, column: column) else { return "NULL" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'::" + sqlType
    }
}

/// Why a copy between SQLite and PostgreSQL stopped.
public enum PostgresTransferError: Error, CustomStringConvertible, Sendable {
    case badValue(column: String, value: String, expected: String)
    case notUrna(String)
    case occupied(String)
    /// A table or column name longer than PostgreSQL keeps (63 bytes): it would be cut, and two cut names
    /// could meet or the copy back would not find the table.
    case nameTooLong(name: String, what: String)

    public var description: String {
        switch self {
        case .badValue(let column, let value, let expected):
            "\(column) holds '\(value)', which is not \(expected); nothing was copied"
        case .notUrna(let m), .occupied(let m): m
        case .nameTooLong(let name, let what):
            "\(what) '\(name)' is \(name.utf8.count) bytes long and PostgreSQL keeps only the first "
                + "\(PostgresLayout.maxNameBytes) bytes of a name; nothing was copied: rename it in the schema "
                + "(a declared rename in a migration step) before moving the data to PostgreSQL"
        }
    }
}

/// A foreign key or index added once a table's rows are in, and the statement that drops it again.
public struct PostgresConstraint: Sendable {
    public let createSQL: String
    public let dropSQL: String
}

/// One table as it is copied: its name, its columns with their kinds, and the DDL that creates it on PostgreSQL.
public struct PostgresTable: Sendable {
    public let name: String
    public let columns: [(name: String, kind: PostgresColumnKind)]
    /// The primary key, added once the rows are in (one sorted index build instead of an insert per row);
    /// nil for tables copied as plain columns.
    public var primaryKeySQL: String? = nil
    /// CREATE TABLE with columns, NOT NULL and defaults; the primary key and foreign keys come after the rows.
    /// The name is unqualified: on a `PostgresConnection` (whose search path begins with `pg_catalog`) run
    /// `createSQL(in:)`.
    public var createSQL: String = ""
    /// Foreign keys and indexes, added once the rows are in (and dropped before refilling a table that has
    /// them: checking each copied row against its keys one by one is many times slower).
    public var constraints: [PostgresConstraint] = []
    /// The hidden `_id` identity whose sequence must follow the copied rows.
    public var identityColumn: String? = nil

    public var constraintSQL: [String] { constraints.map(\.createSQL) }

    /// `createSQL` with the table's name qualified by the connection's working schema (the search path begins
    /// with `pg_catalog`, where nothing may be created).
    public func createSQL(in pg: PostgresConnection) -> String {
        let prefix = "CREATE TABLE " + Identifier.quoted(name)
        precondition(createSQL.hasPrefix(prefix), "createSQL must begin with \(prefix)")
        return "CREATE TABLE " + pg.qualified(name) + createSQL.dropFirst(prefix.count)
    }
    public var dropConstraintSQL: [String] { constraints.map(\.dropSQL) }

    /// A table copied column by column as it is (metadata, plain tables being adopted): no DDL of its own.
    static func plain(_ name: String, _ columns: [(name: String, kind: PostgresColumnKind)]) -> PostgresTable {
        PostgresTable(name: name, columns: columns)
    }
}

/// The storage contract on PostgreSQL: the same tables, columns, keys and indexes as on SQLite
/// (`StorageLayout`), with PostgreSQL's types.
public enum PostgresLayout {
    static func q(_ name: String) -> String { Identifier.quoted(name) }

    /// The tables of `schema` (types, then lists), in an order that creates referenced tables first.
    public static func tables(for schema: Schema) throws -> [PostgresTable] {
        var out: [PostgresTable] = []
        var lists: [PostgresTable] = []
        try refuseLongNames(in: schema)
        for t in schema.tableTypes {
            var columns: [(name: String, kind: PostgresColumnKind)] = []
            var defs: [String] = []
            var constraints: [PostgresConstraint] = []
            var identity: String?
            if t.primaryKey == nil {
                columns.append((ObjectSchema.rowIdColumn, .integer("bigint")))
                defs.append("\(q(ObjectSchema.rowIdColumn)) bigint NOT NULL GENERATED BY DEFAULT AS IDENTITY")
                identity = ObjectSchema.rowIdColumn
            }
            for p in t.storedProperties {
                let kind = PostgresColumnKind.of(p, in: schema)
                columns.append((p.name, kind))
                var d = "\(q(p.name)) \(kind.columnType)"
                if p.primaryKey {
                    d += " NOT NULL"
                } else if !p.optional {
                    let sqliteDefault = ValueCodec.encode(p.effectiveDefault, as: p.type, schema: schema)
                    d += " NOT NULL DEFAULT " + (try kind.defaultLiteral(sqliteDefault, column: "\(t.name).\(p.name)"))
                }
                defs.append(d)
                if case .link(let target) = p.type, let tt = schema[type: target] {
                    constraints.append(
                        foreignKey(t.name, p.name, references: target, tt.keyColumn, onDelete: "SET NULL"))
                }
                var wantsIndex = p.indexed && !p.primaryKey
                if case .link = p.type { wantsIndex = true }
                if wantsIndex {
                    constraints.append(
                        index(
                            constraintName(StorageLayout.indexName(type: t.name, property: p.name)), on: t.name, p.name)
                    )
                }
            }
            out.append(
                PostgresTable(
                    name: t.name, columns: columns,
                    primaryKeySQL:
                        "ALTER TABLE \(q(t.name)) ADD CONSTRAINT \(q(constraintName(t.name, "pkey"))) PRIMARY KEY (\(q(t.keyColumn)))",
                    createSQL: "CREATE TABLE \(q(t.name)) (\n  " + defs.joined(separator: ",\n  ") + "\n)",
                    constraints: constraints, identityColumn: identity))
            for p in t.properties where !p.ignored {
                guard case .list(let target) = p.type else { continue }
                let table = StorageLayout.listTable(type: t.name, property: p.name)
                let ownerKind = PostgresColumnKind.keyKind(of: t.name, in: schema)
                let targetKind = PostgresColumnKind.keyKind(of: target, in: schema)
                let targetKey = schema[type: target]?.keyColumn ?? ObjectSchema.rowIdColumn
                lists.append(
                    PostgresTable(
                        name: table,
                        columns: [("owner", ownerKind), ("position", .integer("bigint")), ("target", targetKind)],
                        primaryKeySQL:
                            "ALTER TABLE \(q(table)) ADD CONSTRAINT \(q(constraintName(table, "pkey"))) PRIMARY KEY (\"owner\", \"position\")",
                        createSQL: """
                            CREATE TABLE \(q(table)) (
                              "owner" \(ownerKind.columnType) NOT NULL,
                              "position" bigint NOT NULL,
                              "target" \(targetKind.columnType) NOT NULL
                            )
                            """,
                        constraints: [
                            foreignKey(table, "owner", references: t.name, t.keyColumn, onDelete: "CASCADE"),
                            foreignKey(table, "target", references: target, targetKey, onDelete: "CASCADE"),
                            index(constraintName(table, "target_idx"), on: table, "target"),
                        ]))
            }
        }
        return out + lists
    }

    /// A deferred foreign key `<table>_<column>_fkey` on `column`.
    static func foreignKey(
        _ table: String, _ column: String, references target: String, _ targetKey: String, onDelete: String
    ) -> PostgresConstraint {
        let name = q(constraintName(table, column, "fkey"))
        return PostgresConstraint(
            createSQL:
                "ALTER TABLE \(q(table)) ADD CONSTRAINT \(name) FOREIGN KEY (\(q(column))) REFERENCES \(q(target))(\(q(targetKey))) ON DELETE \(onDelete) DEFERRABLE INITIALLY DEFERRED",
            dropSQL: "ALTER TABLE \(q(table)) DROP CONSTRAINT IF EXISTS \(name)")
    }

    /// An index on one column, named as on SQLite.
    static func index(_ name: String, on table: String, _ column: String) -> PostgresConstraint {
        PostgresConstraint(
            createSQL: "CREATE INDEX \(q(name)) ON \(q(table))(\(q(column)))",
            dropSQL: "DROP INDEX IF EXISTS \(q(name))")
    }

    /// The longest name PostgreSQL keeps whole (NAMEDATALEN - 1 bytes); it cuts longer ones.
    public static let maxNameBytes = 63

    /// Refuses a schema whose tables or columns PostgreSQL would cut to 63 bytes, naming the first.
    static func refuseLongNames(in schema: Schema) throws {
        for t in schema.tableTypes {
            if t.name.utf8.count > maxNameBytes { throw PostgresTransferError.nameTooLong(name: t.name, what: "type") }
            for p in t.properties where !p.ignored {
                switch p.type {
                case .linkingObjects: continue
                case .list:
                    let table = StorageLayout.listTable(type: t.name, property: p.name)
                    if table.utf8.count > maxNameBytes {
                        throw PostgresTransferError.nameTooLong(
                            name: table, what: "the table of list \(t.name).\(p.name)")
                    }
                default:
                    if p.name.utf8.count > maxNameBytes {
                        throw PostgresTransferError.nameTooLong(name: p.name, what: "property \(t.name).\(p.name)")
                    }
                }
            }
        }
    }

    /// The parts joined by `_` (`Book_author_fkey`, `Book_pkey`, `Book_title_idx`), kept within PostgreSQL's
    /// 63-byte names: a longer one keeps its first whole characters up to 50 bytes and a hash of the full name,
    /// so two long names never meet.
    static func constraintName(_ parts: String...) -> String {
        let full = parts.joined(separator: "_")
        guard full.utf8.count > maxNameBytes else { return full }
        var h: UInt32 = 2_166_136_261
        for b in full.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        var head = ""
        for ch in full {
            if head.utf8.count + String(ch).utf8.count > 50 { break }
            head.append(ch)
        }
        return head + "_" + String(h, radix: 16)
    }

    /// Every table name the schema stores (types and lists), for DROP and LOCK.
    public static func tableNames(for schema: Schema) -> [String] {
        var names = schema.tableTypes.map(\.name)
        for t in schema.tableTypes {
            for p in t.properties where !p.ignored {
                if case .list = p.type { names.append(StorageLayout.listTable(type: t.name, property: p.name)) }
            }
        }
        return names
    }
}
