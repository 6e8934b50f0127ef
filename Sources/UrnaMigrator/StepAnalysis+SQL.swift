import Foundation
import UrnaStore

/// The SQL of a step's automatic parts: staging tables, bulk copies, previews.
extension StepAnalysis {
    /// CREATE TABLE for the new form of a type, under its staging name.
    func createStagingSQL(_ t: TypeTransfer) -> String? {
        guard let n = t.new else { return nil }
        return StorageLayout.createTableSQL(n, in: step.to, tableName: Self.stagingName(t.name))
    }

    /// CREATE TABLE for a list's new table, under its staging name.
    func createListStagingSQL(_ l: ListTransfer) -> String? {
        guard let owner = step.to[type: l.owner], let p = owner[property: l.property] else { return nil }
        let sql = StorageLayout.createListTableSQL(owner: owner, property: p, target: l.target, in: step.to)
        return sql.replacingOccurrences(
            of: "CREATE TABLE \(Identifier.quoted(l.newTable))",
            with: "CREATE TABLE \(Identifier.quoted(l.stagingTable))")
    }

    /// The SQL expression of new column `i` of `t` in a bulk copy from the old table aliased `o`;
    /// `keyMaps` names the types whose identities changed (links to them are translated), read from
    /// `keyMapTables` where it names another table for a type (a fused step's copy) or else the step's key map;
    /// `integerKeyMaps`: those copies are keyed by the old keys as integers (probed by the old link as it is).
    func bulkExpression(
        _ t: TypeTransfer, column i: Int, keyMaps: Set<String>, keyMapTables: [String: String] = [:],
        integerKeyMaps: Set<String> = []
    ) -> String {
        var joins: [String]?
        return bulkExpression(
            t, column: i, keyMaps: keyMaps, keyMapTables: keyMapTables, integerKeyMaps: integerKeyMaps, joins: &joins)
    }

    /// `bulkExpression`, translating links through `LEFT JOIN`s that it appends to `joins` (aliased `m0`, `m1`,
    /// ...) when `joins` is not nil: a key map's `old_key` is its primary key, so each row finds at most one entry,
    /// as the scalar subquery does, and SQLite seeks it without running a subquery per row (1M links: 0.09 s
    /// against 0.31 s). Nil: a scalar subquery (an expression that stands alone).
    func bulkExpression(
        _ t: TypeTransfer, column i: Int, keyMaps: Set<String>, keyMapTables: [String: String] = [:],
        integerKeyMaps: Set<String> = [], joins: inout [String]?
    ) -> String {
        let c = t.newColumns[i]
        var expr: String
        switch t.sources[i] {
        case .copy(let oi):
            expr = "o." + Identifier.quoted(t.oldColumns[oi].name)
        case .convert(let oi, let from, let to, _, let nullDefault):
            let col = "o." + Identifier.quoted(t.oldColumns[oi].name)
            expr = StoredValueConverter.sqlExpression(col, from: from, to: to) ?? col
            if let d = nullDefault { expr = "COALESCE(\(expr), \(StorageLayout.literal(d)))" }
        case .rowid:
            expr = "o.rowid"
        case .constant(let v):
            expr = StorageLayout.literal(v)
        }
        if case .link(let target) = c.type, keyMaps.contains(target), let tt = byName[target] {
            let oldRef: String
            if case .copy(let oi) = t.sources[i] {
                oldRef = t.oldColumns[oi].sqlType
            } else {
                oldRef = tt.oldKeySQLType
            }
            let map = keyMapTables[target] ?? tt.keyMapTable
            let probe =
                integerKeyMaps.contains(target) && oldRef == "INTEGER"
                ? expr : Affinity.sqlExpression(expr, from: oldRef, to: tt.newKeySQLType)
            if let made = joins {
                let alias = "m\(made.count)"
                joins = made + ["LEFT JOIN \(map) \(alias) ON \(alias).\"old_key\" = \(probe)"]
                expr = "COALESCE(\(alias).\"new_key\", \(expr))"
            } else {
                expr = "COALESCE((SELECT m.\"new_key\" FROM \(map) m WHERE m.\"old_key\" = \(probe)), \(expr))"
            }
        }
        return expr
    }

    /// INSERT ... SELECT copying every old object of `t` into its staging table; `from` is where the old rows
    /// are (the old table, or the SELECT an earlier step of the run left for them: `RunFusion`).
    func bulkCopySQL(_ t: TypeTransfer, keyMaps: Set<String>, from: String? = nil) -> String {
        let cols = t.newColumns.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        var joins: [String]? = []
        let exprs = t.newColumns.indices.map { bulkExpression(t, column: $0, keyMaps: keyMaps, joins: &joins) }
        let joined = (joins ?? []).map { " " + $0 }.joined()
        return
            "INSERT INTO \(Identifier.quoted(Self.stagingName(t.name))) (\(cols)) SELECT \(exprs.joined(separator: ", ")) FROM \(from ?? Identifier.quoted(t.name)) o\(joined) ORDER BY o.rowid"
    }

    /// The rows the bulk copy of `t` would write, as a SELECT (new columns by name, then the old `rowid`): what a
    /// fused next step reads instead of a table this step did not write.
    func carriedSelectSQL(
        _ t: TypeTransfer, from: String, keyMapTables: [String: String], integerKeyMaps: Set<String>
    ) -> String {
        let keyMaps = Set(keyMapTables.keys)
        var joins: [String]? = []
        let exprs = t.newColumns.indices.map {
            bulkExpression(
                t, column: $0, keyMaps: keyMaps, keyMapTables: keyMapTables, integerKeyMaps: integerKeyMaps,
                joins: &joins) + " AS " + Identifier.quoted(t.newColumns[$0].name)
        }
        let joined = (joins ?? []).map { " " + $0 }.joined()
        return "SELECT \((exprs + ["o.rowid AS rowid"]).joined(separator: ", ")) FROM \(from) o\(joined)"
    }

    /// The prepared INSERT used for objects copied through Swift.
    func insertSQL(_ t: TypeTransfer, table: String? = nil) -> String {
        let cols = t.newColumns.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: t.newColumns.count).joined(separator: ", ")
        return "INSERT INTO \(Identifier.quoted(table ?? t.tableName)) (\(cols)) VALUES (\(marks))"
    }

    /// The SELECT streaming a type's old objects (stored columns, then rowid).
    func selectOldSQL(_ t: TypeTransfer, from: String? = nil, after: Int64? = nil) -> String {
        let cols = (t.oldColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
        let past = after.map { " WHERE rowid > \($0)" } ?? ""
        return "SELECT \(cols) FROM \(from ?? Identifier.quoted(t.name))\(past) ORDER BY rowid"
    }

    /// Index statements of a schema, by index name (list tables excluded).
    static func indexStatements(_ schema: Schema) -> [String: String] {
        var out: [String: String] = [:]
        for t in schema.tableTypes {
            for sql in StorageLayout.indexSQL(for: t, in: schema) where sql.hasPrefix("CREATE INDEX") {
                if let name = SQLText.createdName(sql) { out[name] = sql }
            }
        }
        return out
    }

    /// The renamed columns (old name, new name) when they are the table's only change: every column carried
    /// unchanged at its place with its SQL type, no key change, at least one name new. Nil otherwise.
    func columnRenamesOnly(_ t: TypeTransfer) -> [(String, String)]? {
        guard t.old != nil, t.new != nil, !t.needsSwift, t.oldColumns.count == t.newColumns.count else { return nil }
        var renames: [(String, String)] = []
        for (i, source) in t.sources.enumerated() {
            guard case .copy(let oi) = source, oi == i, t.oldColumns[i].sqlType == t.newColumns[i].sqlType else {
                return nil
            }
            if t.oldColumns[i].name != t.newColumns[i].name {
                renames.append((t.oldColumns[i].name, t.newColumns[i].name))
            }
        }
        return renames.isEmpty ? nil : renames
    }

    /// The statements the automatic part of the step runs, for a plan's preview (closure work and the
    /// translation of links to re-keyed objects are decided while running; the dry run shows them).
    func previewSQL() -> [String] {
        var out: [String] = []
        let hasClosure = step.closure != nil
        for t in transfers where !t.isRemoved && (t.tableChanges || t.isAdded) {
            if let sql = createStagingSQL(t) { out.append(sql) }
            if t.isAdded { continue }
            if t.needsSwift {
                out.append(
                    "INSERT OR IGNORE INTO \(Identifier.quoted(Self.stagingName(t.name))) (...) SELECT ... FROM \"urna_rows_\(t.name)\"  -- each object through Swift: \(t.swiftReason ?? "conversion")"
                )
            } else if let renames = columnRenamesOnly(t) {
                out.append(
                    renames.map {
                        "ALTER TABLE \(Identifier.quoted(t.name)) RENAME COLUMN \(Identifier.quoted($0.0)) TO \(Identifier.quoted($0.1))"
                    }.joined(separator: "; ")
                        + "  -- the table is kept\(hasClosure ? " unless the closure writes \(t.name) objects" : ""); else: "
                        + bulkCopySQL(t, keyMaps: []))
            } else {
                out.append(
                    bulkCopySQL(t, keyMaps: []) + (hasClosure ? "  -- unless the closure enumerates \(t.name)" : ""))
            }
        }
        if hasClosure {
            out.append(
                "-- each type the closure enumerates: INSERT OR IGNORE INTO \"_urna_new_<Type>\" (...) SELECT ... FROM \"urna_rows_<Type>\", the closure run object by object"
            )
        }
        for l in lists where l.tableChanges {
            if let sql = createListStagingSQL(l) { out.append(sql) }
            if let old = l.oldTable {
                out.append(
                    "INSERT INTO \(Identifier.quoted(l.stagingTable)) (\"owner\", \"position\", \"target\") SELECT \"owner\", \"position\", \"target\" FROM \(Identifier.quoted(old))"
                )
            }
        }
        for t in transfers where t.isRemoved { out.append("DROP TABLE \(Identifier.quoted(t.name))") }
        for d in droppedLists { out.append("DROP TABLE \(Identifier.quoted(d.table))") }
        for t in transfers where !t.isRemoved && !t.isAdded && t.tableChanges {
            out.append("DROP TABLE \(Identifier.quoted(t.name))")
            out.append(
                "ALTER TABLE \(Identifier.quoted(Self.stagingName(t.name))) RENAME TO \(Identifier.quoted(t.name))")
        }
        for t in transfers where t.isAdded {
            out.append(
                "ALTER TABLE \(Identifier.quoted(Self.stagingName(t.name))) RENAME TO \(Identifier.quoted(t.name))")
        }
        for l in lists where l.tableChanges {
            if let old = l.oldTable { out.append("DROP TABLE \(Identifier.quoted(old))") }
            out.append("ALTER TABLE \(Identifier.quoted(l.stagingTable)) RENAME TO \(Identifier.quoted(l.newTable))")
        }
        let oldIndexes = Self.indexStatements(step.from)
        let newIndexes = Self.indexStatements(step.to)
        let rebuiltTables = Set(
            transfers.filter { $0.tableChanges }.map(\.name) + lists.filter(\.tableChanges).map(\.newTable))
        for (name, _) in oldIndexes.sorted(by: { $0.key < $1.key }) where newIndexes[name] == nil {
            out.append("DROP INDEX IF EXISTS \(Identifier.quoted(name))")
        }
        for (name, sql) in newIndexes.sorted(by: { $0.key < $1.key }) {
            let table = SQLText.indexedTable(sql) ?? ""
            if oldIndexes[name].map(SQLText.normalize) != SQLText.normalize(sql) || rebuiltTables.contains(table) {
                out.append(sql)
            }
        }
        for l in lists where l.tableChanges {
            out.append(
                "CREATE INDEX \(Identifier.quoted(l.newTable + "_target_idx")) ON \(Identifier.quoted(l.newTable))(\"target\")"
            )
        }
        out.append(
            "-- record version \(step.to.version) in \(StorageLayout.schemaTable) and a row in \(StorageLayout.historyTable)"
        )
        return out
    }
}

/// Small helpers over SQL text.
enum SQLText {
    /// Whitespace collapsed, so two spellings of one statement compare equal.
    static func normalize(_ sql: String) -> String {
        var out = ""
        out.reserveCapacity(sql.count)
        var pendingSpace = false
        for ch in sql {
            if ch.isWhitespace {
                pendingSpace = true
                continue
            }
            if pendingSpace, let last = out.last, !"(,".contains(last), !"),".contains(ch) { out.append(" ") }
            pendingSpace = false
            out.append(ch)
        }
        return out
    }

    /// The quoted name after CREATE INDEX / CREATE TABLE.
    static func createdName(_ sql: String) -> String? {
        guard let start = sql.firstIndex(of: "\"") else { return nil }
        let rest = sql[sql.index(after: start)...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// The table an index statement indexes (`... ON "T"(...)`).
    static func indexedTable(_ sql: String) -> String? {
        guard let on = sql.range(of: " ON ") else { return nil }
        return createdName(String(sql[on.upperBound...]))
    }
}
