import Foundation
import UrnaStore

/// Rebuilding a plain file's tables into a version's storage contract, for `Migrator.adopt`: used when a table
/// holds the contract's columns in another form (a rowid table with no `_id`, nullable or untyped columns,
/// another column order, a CHECK or UNIQUE the contract lacks). Rows are copied as they are, SQLite's column
/// affinity making the only conversions (`'31'` into an INTEGER column is 31), then checked against the
/// contract; whatever does not fit is listed and the caller rolls the whole transaction back.
struct AdoptionRebuild {
    /// A contract table that the file lacks or holds in another form.
    struct Table {
        let name: String
        let createSQL: String
        /// The file's table of that name; nil when the file has none (it is created empty).
        let existing: DatabaseShape.Table?
        /// Contract column and the SQL that reads its value from the file's table.
        let sources: [(column: String, expression: String)]
        /// Why the table is rebuilt (its differences from the contract).
        let reasons: [String]
        let checks: [ColumnCheck]
        /// SQL naming a row of the file's table in messages (`'rowid ' || rowid`).
        let oldRowLabel: String
        /// The same for the rebuilt table (`'_id ' || "_id"`).
        let newRowLabel: String
        let primaryKey: [String]
    }

    /// How the values of one contract column must look.
    struct ColumnCheck {
        let column: String
        let required: Bool
        /// SQL over the quoted column, true for a value that does not fit.
        let misfit: String
        /// What the contract needs, for messages ("an integer").
        let need: String
        /// The column as the contract declares it.
        let declared: String
    }

    /// Rows listed per column and check (all are counted).
    static let rowsListed = 5
    static let stagingPrefix = "_urna_adopt_"

    let tables: [Table]
    /// What keeps the file from being rebuilt at all (a missing or extra column): found before anything changes.
    let problems: [String]

    init(schema: Schema, actual: DatabaseShape, expected: DatabaseShape, differences: [String]) {
        var tables: [Table] = []
        var problems: [String] = []
        let kinds = Self.valueKinds(schema)
        for (name, createSQL) in Self.tableSQL(for: schema).sorted(by: { $0.key < $1.key }) {
            guard let e = expected.tables[name] else { continue }
            var reasons = differences.filter { $0.hasPrefix("\(name):") }.map {
                String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces)
            }
            // SQLite's names ignore case: a file's "person" is the contract's "Person" (renamed by the rebuild).
            let found = actual.tables[name] ?? actual.tables.values.first { $0.name.lowercased() == name.lowercased() }
            guard let a = found else {
                tables.append(
                    Table(
                        name: name, createSQL: createSQL, existing: nil, sources: [],
                        reasons: ["the file has no such table"],
                        checks: [], oldRowLabel: "''", newRowLabel: "''", primaryKey: []))
                continue
            }
            if a.name != name {
                reasons.insert("the table is named \(a.name)", at: 0)
            } else if reasons.isEmpty {
                // The contract's columns, keys and indexes in the file's own spelling (no quotes, other spacing or
                // type names): every migration compares a table it does not rewrite with the contract's text, so
                // such a table is rebuilt too, or the adopted file's first `migrate` fails its checks.
                guard SQLText.normalize(a.sql) != SQLText.normalize(e.sql) else { continue }
                reasons.append("its CREATE TABLE text is not the storage contract's (quotes, spacing or type names)")
            }
            let words = Migrator.sqlWords(a.sql)
            let hasRowid = !(words.contains("without") && words.contains("rowid"))
            var byName: [String: DatabaseShape.Column] = [:]
            for c in a.columns { byName[c.name.lowercased()] = c }
            var sources: [(String, String)] = []
            for c in e.columns {
                if let have = byName[c.name.lowercased()] {
                    sources.append((c.name, Identifier.quoted(have.name)))
                } else if c.name == ObjectSchema.rowIdColumn, c.primaryKeyPosition > 0, hasRowid {
                    sources.append((c.name, "rowid"))
                } else {
                    problems.append(
                        "\(name): column \(c.name) is missing (expected \(c)); add it, or adopt at the version without it"
                    )
                }
            }
            let wanted = Set(e.columns.map { $0.name.lowercased() })
            for c in a.columns where !wanted.contains(c.name.lowercased()) {
                problems.append(
                    "\(name): column \(c.name) is not in the storage contract (its values would be lost); "
                        + "drop it, or adopt at the version that has it")
            }
            let checks = e.columns.map { c in
                Self.check(c, kind: kinds[name]?[c.name] ?? .any)
            }
            let oldKey: String =
                hasRowid
                ? "'rowid ' || rowid"
                : a.columns.filter { $0.primaryKeyPosition > 0 }.sorted {
                    $0.primaryKeyPosition < $1.primaryKeyPosition
                }
                .map { "'\($0.name) ' || quote(\(Identifier.quoted($0.name)))" }.joined(separator: " || ', ' || ")
            let key = e.columns.filter { $0.primaryKeyPosition > 0 }.sorted {
                $0.primaryKeyPosition < $1.primaryKeyPosition
            }.map(\.name)
            let newKey = key.map { "'\($0) ' || quote(\(Identifier.quoted($0)))" }.joined(separator: " || ', ' || ")
            tables.append(
                Table(
                    name: name, createSQL: createSQL, existing: a, sources: sources, reasons: reasons, checks: checks,
                    oldRowLabel: oldKey.isEmpty ? "''" : oldKey, newRowLabel: newKey.isEmpty ? "''" : newKey,
                    primaryKey: key))
        }
        self.tables = tables
        self.problems = problems
    }

    var isEmpty: Bool { tables.isEmpty }

    /// The CREATE TABLE of every table of the contract (types and lists), by table name.
    static func tableSQL(for schema: Schema) -> [String: String] {
        var out: [String: String] = [:]
        for t in schema.tableTypes {
            out[t.name] = StorageLayout.createTableSQL(t, in: schema)
            for p in t.properties where !p.ignored {
                if case .list(let target) = p.type {
                    out[StorageLayout.listTable(type: t.name, property: p.name)] =
                        StorageLayout.createListTableSQL(owner: t, property: p, target: target, in: schema)
                }
            }
        }
        return out
    }

    // MARK: - Values

    /// What a column's values are, as the store reads them.
    enum ValueKind {
        case integer(ClosedRange<Int64>)
        case real, text, date, uuid, blob, json, any
    }

    static func valueKinds(_ schema: Schema) -> [String: [String: ValueKind]] {
        func keyKind(_ type: String) -> ValueKind {
            guard let pk = schema[type: type]?.primaryKey else { return .integer(Int64.min...Int64.max) }
            return kind(pk.type)
        }
        func kind(_ t: PropertyType) -> ValueKind {
            switch t {
            case .bool, .int8, .int16, .int32, .int64, .decimal: .integer(t.integerRange ?? Int64.min...Int64.max)
            case .float, .double: .real
            case .string: .text
            case .date: .date
            case .uuid: .uuid
            case .data: .blob
            case .embedded: .json
            case .link(let target): keyKind(target)
            case .list, .linkingObjects: .any
            }
        }
        var out: [String: [String: ValueKind]] = [:]
        for t in schema.tableTypes {
            var columns: [String: ValueKind] = [ObjectSchema.rowIdColumn: .integer(Int64.min...Int64.max)]
            for p in t.storedProperties { columns[p.name] = kind(p.type) }
            out[t.name] = columns
            for p in t.properties where !p.ignored {
                guard case .list(let target) = p.type else { continue }
                out[StorageLayout.listTable(type: t.name, property: p.name)] = [
                    "owner": keyKind(t.name), "position": .integer(Int64.min...Int64.max), "target": keyKind(target),
                ]
            }
        }
        return out
    }

    static func check(_ c: DatabaseShape.Column, kind: ValueKind) -> ColumnCheck {
        let (misfit, need) = misfit(Identifier.quoted(c.name), kind: kind)
        return ColumnCheck(
            column: c.name, required: c.notNull || c.primaryKeyPosition > 0, misfit: misfit, need: need,
            declared: c.description)
    }

    /// SQL over the quoted column `q`, true for a non-NULL value a column of that kind cannot hold ("0" for
    /// `.any`; for NULL the answer is unspecified, so callers test `IS NOT NULL` first), and what the kind needs,
    /// for messages ("an integer").
    static func misfit(_ q: String, kind: ValueKind) -> (misfit: String, need: String) {
        switch kind {
        case .integer(let range):
            if range == Int64.min...Int64.max { return ("typeof(\(q)) <> 'integer'", "an integer") }
            return (
                "typeof(\(q)) <> 'integer' OR \(q) < \(range.lowerBound) OR \(q) > \(range.upperBound)",
                "an integer from \(range.lowerBound) to \(range.upperBound)"
            )
        case .real:
            // Text and blobs sort after every number (SQLite's order across types), and '' first among texts: one
            // comparison instead of a call of typeof() for each value (a third of the plan's scan of 1M prices).
            // `+` keeps the column's affinity off the literal; callers test NULL first.
            return ("+\(q) >= '' COLLATE BINARY", "a number")
        case .text:
            return ("typeof(\(q)) <> 'text'", "text")
        case .date:
            let d = "[0-9]"
            let pattern = "\(d)\(d)\(d)\(d)-\(d)\(d)-\(d)\(d)T\(d)\(d):\(d)\(d):\(d)\(d).\(d)\(d)\(d)Z"
            // The right shape, and a real day and time: julianday() carries 2020-02-30 over to 2020-03-01.
            let day = "substr(\(q), 1, 10)"
            return (
                "typeof(\(q)) <> 'text' OR \(q) NOT GLOB '\(pattern)' OR strftime('%Y-%m-%d', julianday(\(day))) IS NOT \(day) "
                    + "OR substr(\(q), 12, 2) > '23' OR substr(\(q), 15, 2) > '59' OR substr(\(q), 18, 2) > '59'",
                "an ISO-8601 UTC date as text (2016-04-12T00:00:00.000Z)"
            )
        case .uuid:
            let h = "[0-9a-f]"
            let pattern = [8, 4, 4, 4, 12].map { String(repeating: h, count: $0) }.joined(separator: "-")
            return ("typeof(\(q)) <> 'text' OR \(q) NOT GLOB '\(pattern)'", "a lowercase UUID as text")
        case .blob:
            // Every number and text sorts before the empty blob, and every blob at or after it.
            return ("+\(q) < x''", "a blob")
        case .json:
            return (
                "CASE WHEN typeof(\(q)) <> 'text' THEN 1 WHEN json_valid(\(q)) = 0 THEN 1 WHEN json_type(\(q)) <> 'object' THEN 1 ELSE 0 END",
                "a JSON object as text"
            )
        case .any:
            return ("0", "a value")
        }
    }

    // MARK: - Checks and copy

    /// Rows of the file's tables that cannot go into the contract's (missing required values, duplicate keys):
    /// read before anything changes.
    func rowsThatDoNotFit(_ c: Connection) throws -> [String] {
        var out: [String] = []
        for t in tables {
            guard let a = t.existing else { continue }
            let from = Identifier.quoted(a.name)
            let source = Dictionary(uniqueKeysWithValues: t.sources.map { ($0.column, $0.expression) })
            for check in t.checks where check.required {
                guard let s = source[check.column], s != "rowid" else { continue }
                out += try list(
                    c, table: t.name, label: t.oldRowLabel, from: from, condition: "\(s) IS NULL",
                    problem: { _ in "\(check.column) is NULL; the contract needs a value (\(check.declared))" })
            }
            let keySources = t.primaryKey.compactMap { source[$0] }
            if !keySources.isEmpty, keySources.count == t.primaryKey.count, keySources != ["rowid"] {
                let keys = keySources.joined(separator: ", ")
                let label = keySources.map { "quote(\($0))" }.joined(separator: " || ', ' || ")
                let duplicates = try c.rows(
                    "SELECT \(label), count(*) FROM \(from) GROUP BY \(keys) HAVING count(*) > 1 LIMIT \(Self.rowsListed + 1)"
                )
                let total = try c.integer(
                    "SELECT count(*) FROM (SELECT 1 FROM \(from) GROUP BY \(keys) HAVING count(*) > 1)")
                for r in duplicates.prefix(Self.rowsListed) {
                    out.append(
                        "\(t.name): \(t.primaryKey.joined(separator: ", ")) \(r[0]) is held by \(r[1]) rows; the contract's primary key needs one"
                    )
                }
                if total > Int64(Self.rowsListed) {
                    out.append("\(t.name): ... and \(total - Int64(Self.rowsListed)) more duplicate keys")
                }
            }
        }
        return out
    }

    /// An index or trigger of the file on a table that is rebuilt (dropped with it, then made again).
    struct UserObject {
        let kind: String
        let name: String
        let sql: String
    }

    /// The file's own indexes and triggers on the tables to rebuild, read before renaming rewrites them.
    /// Their recorded SQL is run again by `finish`, so each must be one plain CREATE of its kind, name and table
    /// (`SchemaObjectSQL`): `refusals` says which are not, before anything is changed.
    func userObjects(_ c: Connection) throws -> (objects: [UserObject], refusals: [String]) {
        var out: [UserObject] = []
        var refusals: [String] = []
        for t in tables {
            guard let a = t.existing else { continue }
            for r in try c.rows(
                "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND sql IS NOT NULL AND tbl_name = ? COLLATE NOCASE",
                [.text(a.name)])
            {
                let object = UserObject(kind: "\(r[0])", name: "\(r[1])", sql: "\(r[3])")
                do {
                    try SchemaObjectSQL.check(object.sql, type: object.kind, name: object.name, table: "\(r[2])")
                } catch let refusal as SchemaObjectSQL.Refusal {
                    refusals.append(refusal.description)
                }
                out.append(object)
            }
        }
        return (out, refusals)
    }

    /// Moves each file table aside, creates the contract's, copies the rows (old rowid order); returns the rows
    /// copied per table. The old tables stay until `finish`, so messages can still name their rows.
    func copy(_ c: Connection) throws -> [String: Int] {
        var copied: [String: Int] = [:]
        for t in tables {
            if let a = t.existing {
                try c.execute(
                    "ALTER TABLE \(Identifier.quoted(a.name)) RENAME TO \(Identifier.quoted(Self.stagingPrefix + t.name))"
                )
            }
        }
        for t in tables { try c.execute(t.createSQL) }
        for t in tables {
            guard let a = t.existing else {
                copied[t.name] = 0
                continue
            }
            let words = Migrator.sqlWords(a.sql)
            let order = words.contains("without") && words.contains("rowid") ? "" : " ORDER BY rowid"
            let columns = t.sources.map { Identifier.quoted($0.column) }.joined(separator: ", ")
            let values = t.sources.map(\.expression).joined(separator: ", ")
            try c.execute(
                "INSERT INTO \(Identifier.quoted(t.name)) (\(columns)) SELECT \(values) FROM \(Identifier.quoted(Self.stagingPrefix + t.name))\(order)"
            )
            copied[t.name] = c.changes
        }
        return copied
    }

    /// Values in the rebuilt tables that are not what the contract's type reads (text in an INTEGER column,
    /// a date in another format), and links to rows that do not exist.
    func valuesThatDoNotFit(_ c: Connection) throws -> [String] {
        var out: [String] = []
        for t in tables where t.existing != nil {
            for check in t.checks where check.misfit != "0" {
                let q = Identifier.quoted(check.column)
                out += try list(
                    c, table: t.name, label: t.newRowLabel, from: Identifier.quoted(t.name),
                    condition: "\(q) IS NOT NULL AND (\(check.misfit))",
                    value: "substr(quote(\(q)), 1, 40) || ' (' || typeof(\(q)) || ')'",
                    problem: { value in "\(check.column) is \(value); the contract needs \(check.need)" })
            }
        }
        let rebuilt = Set(tables.map { $0.name.lowercased() })
        var violations: [String: Int] = [:]
        var listed: [String] = []
        // Table by table, leaving out the file's own tables staged for the rebuild: their foreign keys are the
        // file's as it was (one naming a parent column that is not a key, e.g. `REFERENCES Customer(rowid)`,
        // makes SQLite refuse the whole-file check with "foreign key mismatch").
        var checks: [[SQLValue]] = []
        for t in try c.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?2) <> ?1",
            [.text(Self.stagingPrefix), .integer(Int64(Self.stagingPrefix.utf8.count))])
        {
            guard case .text(let name) = t[0] else { continue }
            do {
                checks += try c.rows("PRAGMA foreign_key_check(\(Identifier.quoted(name)))")
            } catch  where !rebuilt.contains(name.lowercased()) {
                // A table of the app's own whose declared key SQLite cannot check: it was so before, and urna
                // leaves it alone.
                continue
            }
        }
        for r in checks {
            let table = "\(r[0])"
            let parent = "\(r[2])"
            guard rebuilt.contains(table.lowercased()) || rebuilt.contains(parent.lowercased()) else { continue }
            let key = "\(table) → \(parent)"
            violations[key, default: 0] += 1
            if violations[key]! <= Self.rowsListed {
                let row = r[1] == .null ? "a row" : "rowid \(r[1])"
                listed.append("\(table) (\(row)): a link to \(parent) names a row \(parent) does not have")
            }
        }
        out += listed
        for (key, n) in violations.sorted(by: { $0.key < $1.key }) where n > Self.rowsListed {
            out.append("\(key): ... and \(n - Self.rowsListed) more broken links")
        }
        return out
    }

    /// Drops the old tables and puts back the contract's indexes and the file's own indexes and triggers on them.
    func finish(_ c: Connection, schema: Schema, userObjects: [UserObject]) throws -> [String] {
        var problems: [String] = []
        for t in tables where t.existing != nil {
            try c.execute("DROP TABLE \(Identifier.quoted(Self.stagingPrefix + t.name))")
        }
        // SQLite's names ignore case, and the contract's keep theirs ("Book_tags_target_idx"): compared in lower
        // case, an index the contract has on a table left as it is is not made twice, nor the file's copy of a
        // contract index on a rebuilt table run again ("index ... already exists" refused the whole adoption).
        let contractIndexes = StepAnalysis.indexStatements(schema)
        let contractNames = Set(contractIndexes.keys.map { $0.lowercased() })
        let existing = Set(
            try c.rows("SELECT lower(name) FROM sqlite_master WHERE type = 'index'").map { "\($0[0])" })
        for (name, sql) in contractIndexes.sorted(by: { $0.key < $1.key }) where !existing.contains(name.lowercased()) {
            try c.execute(sql)
        }
        let contractByName = Dictionary(
            contractIndexes.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        for object in userObjects {
            if object.kind == "index", let contract = contractByName[object.name.lowercased()] {
                // The file's copy of a contract index is left to the contract's; an index of the file's own that only
                // shares its name (another case, other columns, UNIQUE) would be lost without a word: refused.
                if Self.spelledAlike(object.sql, contract) { continue }
                problems.append(
                    "the file's index \(object.name) (\(object.sql)) has the name of the contract's index "
                        + "(\(contract)) but not its definition: rename or drop it before adopting")
                continue
            }
            do {
                try c.execute(object.sql)
            } catch let e as SQLiteError {
                problems.append("the file's \(object.kind) \(object.name) cannot be recreated: \(e.message)")
            }
        }
        return problems
    }

    /// Two CREATE statements that differ only in quoting, letter case and spacing.
    static func spelledAlike(_ a: String, _ b: String) -> Bool {
        func plain(_ s: String) -> String {
            String(s.lowercased().filter { !$0.isWhitespace && $0 != "\"" && $0 != "`" && $0 != "[" && $0 != "]" })
        }
        return plain(a) == plain(b)
    }

    private func list(
        _ c: Connection, table: String, label: String, from: String, condition: String, value: String = "NULL",
        problem: (String) -> String
    ) throws -> [String] {
        let rows = try c.rows(
            "SELECT \(label), \(value) FROM \(from) WHERE \(condition) LIMIT \(Self.rowsListed)")
        guard !rows.isEmpty else { return [] }
        var out = rows.map { "\(table) (\($0[0])): " + problem("\($0[1])") }
        let total = try c.integer("SELECT count(*) FROM \(from) WHERE \(condition)")
        if total > Int64(rows.count) {
            out.append("\(table): ... and \(total - Int64(rows.count)) more such rows")
        }
        return out
    }
}
