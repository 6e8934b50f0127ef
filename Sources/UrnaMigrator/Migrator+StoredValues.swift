import Foundation
import UrnaStore

/// Values a file holds that its own version's contract cannot read: text in an INTEGER column, 1950.5 in an int,
/// a blob in a string, a date in another format. The store never writes them; a hand edit or another tool can.
/// A migration reads old objects through the contract, so such a value would reach the new file as nil, a
/// default or a truncated number with no word: the plan refuses the file instead, listing the rows.
enum StoredValueCheck {
    /// Rows listed per column (all are counted).
    static let rowsListed = 5

    /// One line per misfit row (at most `rowsListed` per column) and a count line per column with more; empty
    /// when every value fits. One scan per table.
    static func misfits(in c: Connection, schema: Schema) throws -> [String] {
        var out: [String] = []
        let kinds = AdoptionRebuild.valueKinds(schema)
        for (table, columns) in kinds.sorted(by: { $0.key < $1.key }) {
            guard try c.tableExists(table) else { continue }
            let info = try c.rows("PRAGMA table_info(\(Identifier.quoted(table)))")
            let present = Set(info.map { "\($0[1])" })
            let rowid = try rowidColumn(of: table, info: info, in: c)
            let checked = columns.sorted(by: { $0.key < $1.key }).compactMap {
                name, kind -> (name: String, kind: AdoptionRebuild.ValueKind, condition: String, need: String)? in
                // The rowid's own column holds integers only (SQLite refuses to store anything else there): no
                // 64-bit integer in it can misfit, and reading it for every row cost a tenth of the scan.
                if name == rowid, case .integer(let range) = kind, range == Int64.min...Int64.max { return nil }
                let q = Identifier.quoted(name)
                let (misfit, need) = AdoptionRebuild.misfit(q, kind: kind)
                return name == ObjectSchema.rowIdColumn || misfit == "0" || !present.contains(name)
                    ? nil : (name: name, kind: kind, condition: "\(q) IS NOT NULL AND (\(misfit))", need: need)
            }
            guard !checked.isEmpty else { continue }
            let from = Identifier.quoted(table)
            // Columns an index answers for are asked there (two lookups); the rest in one pass that stops at the
            // first misfit. The common answer (none) costs no per-column sums.
            let leading = try indexedColumns(of: table, in: c)
            var scanned: [String] = []
            var found = false
            for column in checked {
                if leading.contains(column.name),
                    let misfit = try misfitByExtremes(column.name, kind: column.kind, of: table, in: c)
                {
                    found = found || misfit
                } else {
                    scanned.append("(\(column.condition))")
                }
            }
            if !found, !scanned.isEmpty {
                let any = scanned.joined(separator: " OR ")
                found = try c.scalar("SELECT EXISTS (SELECT 1 FROM \(from) WHERE \(any))") == .integer(1)
            }
            guard found else { continue }
            let sums = checked.map { "coalesce(sum(\($0.condition)), 0)" }.joined(separator: ", ")
            let counts = try c.rows("SELECT \(sums) FROM \(from)").first ?? []
            let label: String
            if present.contains(ObjectSchema.rowIdColumn) {
                label = "'\(ObjectSchema.rowIdColumn) ' || \(Identifier.quoted(ObjectSchema.rowIdColumn))"
            } else if let key = schema[type: table]?.primaryKey?.name {
                label = "'\(key) ' || quote(\(Identifier.quoted(key)))"
            } else {
                label = "'owner ' || quote(\"owner\") || ', position ' || quote(\"position\")"
            }
            for (i, column) in checked.enumerated() {
                guard i < counts.count, case .integer(let n) = counts[i], n > 0 else { continue }
                let q = Identifier.quoted(column.name)
                let rows = try c.rows(
                    "SELECT \(label), substr(quote(\(q)), 1, 40), typeof(\(q)) FROM \(from) WHERE \(column.condition) LIMIT \(rowsListed)"
                )
                for r in rows {
                    out.append(
                        "\(table) (\(r[0])): \(column.name) is \(r[1]) (\(r[2])); version \(schema.version) stores \(column.need) there"
                    )
                }
                if n > Int64(rows.count) {
                    out.append("\(table).\(column.name): ... and \(n - Int64(rows.count)) more such values")
                }
            }
        }
        return out
    }

    /// Whether a column of text or numbers holds a misfit, from its smallest and largest values: SQLite
    /// orders values by type (numbers, then text, then blobs; NULL aside, as min() and max() leave it out), so
    /// a number is the minimum when there is one and a blob the maximum when there is one, whatever the collation.
    /// With an index led by the column each is one lookup instead of a read of every row; nil for the other kinds
    /// (an integer and a real of equal value sort together). Each aggregate has a query of its own, as SQLite
    /// answers min() or max() from an index only alone.
    static func misfitByExtremes(_ name: String, kind: AdoptionRebuild.ValueKind, of table: String, in c: Connection)
        throws -> Bool?
    {
        func type(_ aggregate: String) throws -> String {
            let v = try c.scalar(
                "SELECT typeof(\(aggregate)(\(Identifier.quoted(name)))) FROM \(Identifier.quoted(table))")
            if case .text(let t) = v { return t }
            return "null"
        }
        switch kind {
        case .text: return try ["integer", "real"].contains(type("min")) || type("max") == "blob"
        case .real: return try ["text", "blob"].contains(type("max"))
        // (The store indexes no blob column.)
        case .integer, .blob, .date, .uuid, .json, .any: return nil
        }
    }

    /// Columns that lead an index of `table` holding every row, compared as bytes (`ForeignKeyProbe.indexes`);
    /// a WITHOUT ROWID table's primary key counts.
    static func indexedColumns(of table: String, in c: Connection) throws -> Set<String> {
        Set(try ForeignKeyProbe.indexes(of: table, in: c).compactMap(\.columns.first))
    }

    /// The column that is the table's rowid (an `INTEGER PRIMARY KEY` of a rowid table), if any. A primary key with
    /// an index of its own is not one: a WITHOUT ROWID table's, or SQLite's `INTEGER PRIMARY KEY DESC` quirk.
    static func rowidColumn(of table: String, info: [[SQLValue]], in c: Connection) throws -> String? {
        let key = info.filter { if case .integer(let pk) = $0[5] { pk > 0 } else { false } }
        guard key.count == 1, case .text(let name) = key[0][1], case .text(let type) = key[0][2],
            type.uppercased() == "INTEGER"
        else { return nil }
        let keyIndexes = try c.rows("PRAGMA index_list(\(Identifier.quoted(table)))").filter {
            $0.count > 3 && $0[3] == .text("pk")
        }
        return keyIndexes.isEmpty ? name : nil
    }
}
