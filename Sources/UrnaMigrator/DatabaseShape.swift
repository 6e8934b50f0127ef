import Foundation
import UrnaStore

/// A database's tables as SQLite itself describes them (columns, keys, foreign keys, indexes) plus
/// their normalised SQL, read the same way from a file and from a fresh database built from a
/// descriptor, so the two compare: drift detection, the runner's last check, and tests.
public struct DatabaseShape: Sendable, Equatable {
    /// One column as `PRAGMA table_xinfo` describes it.
    public struct Column: Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let type: String
        public let notNull: Bool
        public let defaultSQL: String?
        public let primaryKeyPosition: Int

        public var description: String {
            var s = "\(name) \(type)"
            if primaryKeyPosition > 0 { s += " PRIMARY KEY" }
            if notNull { s += " NOT NULL" }
            if let d = defaultSQL { s += " DEFAULT \(d)" }
            return s
        }
    }

    /// One foreign key as `PRAGMA foreign_key_list` describes it.
    public struct ForeignKey: Sendable, Equatable, CustomStringConvertible {
        public let from: String
        public let table: String
        public let to: String
        public let onDelete: String

        public var description: String { "\(from) → \(table)(\(to)) ON DELETE \(onDelete)" }
    }

    /// One named index and its columns.
    public struct Index: Sendable, Equatable, CustomStringConvertible {
        public let name: String
        public let columns: [String]
        public let unique: Bool

        public var description: String { "\(name)(\(columns.joined(separator: ", ")))\(unique ? " UNIQUE" : "")" }
    }

    /// One table: columns, foreign keys, named indexes, and its normalised CREATE TABLE text.
    public struct Table: Sendable, Equatable {
        public let name: String
        public let columns: [Column]
        public let foreignKeys: [ForeignKey]
        /// Named indexes (SQLite's automatic ones for keys are compared through `columns`).
        public let indexes: [Index]
        public let sql: String
    }

    public var tables: [String: Table]
    /// Views and triggers, name -> normalised SQL.
    public var others: [String: String]

    /// Reads every table (except SQLite's own), view and trigger of a connection.
    public static func read(_ c: Connection) throws -> DatabaseShape {
        var tables: [String: Table] = [:]
        var others: [String: String] = [:]
        for row in try c.rows("SELECT type, name, sql FROM sqlite_master WHERE lower(substr(name, 1, 7)) <> 'sqlite_' ORDER BY name")
        {
            guard case .text(let type) = row[0], case .text(let name) = row[1] else { continue }
            let sql: String = if case .text(let s) = row[2] { s } else { "" }
            switch type {
            case "table": tables[name] = try readTable(c, name: name, sql: sql)
            case "view", "trigger": others["\(type) \(name)"] = SQLText.normalize(sql)
            default: break
            }
        }
        return DatabaseShape(tables: tables, others: others)
    }

    static func readTable(_ c: Connection, name: String, sql: String) throws -> Table {
        let q = Identifier.quoted(name)
        var columns: [Column] = []
        for r in try c.rows("PRAGMA table_xinfo(\(q))") {
            let dflt: String? = if case .text(let d) = r[4] { d } else { nil }
            columns.append(
                Column(
                    name: "\(r[1])", type: "\(r[2])", notNull: r[3] == .integer(1), defaultSQL: dflt,
                    primaryKeyPosition: { if case .integer(let i) = r[5] { Int(i) } else { 0 } }()))
        }
        var fks: [ForeignKey] = []
        for r in try c.rows("PRAGMA foreign_key_list(\(q))") {
            fks.append(ForeignKey(from: "\(r[3])", table: "\(r[2])", to: "\(r[4])", onDelete: "\(r[6])"))
        }
        fks.sort { ($0.from, $0.table) < ($1.from, $1.table) }
        var indexes: [Index] = []
        for r in try c.rows("PRAGMA index_list(\(q))") {
            guard case .text(let iname) = r[1], !iname.hasPrefix("sqlite_autoindex") else { continue }
            let cols = try c.rows("PRAGMA index_info(\(Identifier.quoted(iname)))").map { "\($0[2])" }
            indexes.append(Index(name: iname, columns: cols, unique: r[2] == .integer(1)))
        }
        indexes.sort { $0.name < $1.name }
        return Table(name: name, columns: columns, foreignKeys: fks, indexes: indexes, sql: SQLText.normalize(sql))
    }

    /// The shape a fresh file of `schema` has (built in memory by the store's own layout code).
    public static func expected(for schema: Schema) throws -> DatabaseShape {
        let c = try Connection(path: ":memory:")
        try c.execute(StorageLayout.metadataSQL)
        for sql in StorageLayout.createSQL(for: schema) { try c.execute(sql) }
        return try read(c)
    }

    /// How this (actual) shape differs from `expected`, one line per difference; empty when equal.
    /// With `allowExtraIndexes`, indexes someone added are not differences; views and triggers are
    /// compared only when `compareOthers`.
    /// With `allowExtraTables`, tables outside the descriptor (the user's own: an FTS5 index and its shadow
    /// tables, a cache) are not differences, except the migrator's leftover staging tables. Without
    /// `compareTableText`, tables are compared column by column only (a file made by hand and adopted).
    public func differences(
        from expected: DatabaseShape, allowExtraIndexes: Bool = false, compareOthers: Bool = false,
        allowExtraTables: Bool = false, compareTableText: Bool = true, missingIndexesAllowed: Set<String> = []
    )
        -> [String]
    {
        var out: [String] = []
        for name in expected.tables.keys.sorted() where tables[name] == nil { out.append("table \(name) is missing") }
        for name in tables.keys.sorted() where expected.tables[name] == nil {
            if allowExtraTables, !name.hasPrefix("_urna") { continue }
            if StorageLayout.optionalMetadataTables.contains(name) { continue }
            out.append("table \(name) is not in the descriptor")
        }
        for name in expected.tables.keys.sorted() {
            guard let a = tables[name], let e = expected.tables[name] else { continue }
            let aCols = Dictionary(uniqueKeysWithValues: a.columns.map { ($0.name, $0) })
            let eCols = Dictionary(uniqueKeysWithValues: e.columns.map { ($0.name, $0) })
            for c in e.columns where aCols[c.name] == nil {
                out.append("\(name): column \(c.name) is missing (expected \(c))")
            }
            // The run ledger's columns, which `urna migrate` adds to `_urna_history` with ALTER TABLE (`RunLedger`),
            // belong there: such a table is compared column by column (its CREATE TABLE text has them too).
            let ledger = name == StorageLayout.historyTable ? Set(RunLedger.columns) : []
            for c in a.columns where eCols[c.name] == nil && !ledger.contains(c.name) {
                out.append("\(name): column \(c.name) is not in the descriptor")
            }
            let ledgerAdded = a.columns.contains { eCols[$0.name] == nil && ledger.contains($0.name) }
            for c in e.columns {
                if let ac = aCols[c.name], ac != c { out.append("\(name): column is \(ac), the descriptor says \(c)") }
            }
            let names = a.columns.map(\.name).filter { eCols[$0] != nil || !ledger.contains($0) }
            if names != e.columns.map(\.name), Set(names) == Set(e.columns.map(\.name)) {
                out.append("\(name): columns are in another order")
            }
            if a.foreignKeys != e.foreignKeys {
                let missing = e.foreignKeys.filter { !a.foreignKeys.contains($0) }
                let extra = a.foreignKeys.filter { !e.foreignKeys.contains($0) }
                for f in missing { out.append("\(name): foreign key \(f) is missing") }
                for f in extra { out.append("\(name): foreign key \(f) is not in the descriptor") }
            }
            for i in e.indexes {
                if let ai = a.indexes.first(where: { $0.name == i.name }) {
                    if ai != i { out.append("\(name): index is \(ai), the descriptor says \(i)") }
                } else if !missingIndexesAllowed.contains(i.name) {
                    out.append("\(name): index \(i) is missing")
                }
            }
            if !allowExtraIndexes {
                for i in a.indexes where !e.indexes.contains(where: { $0.name == i.name }) {
                    out.append("\(name): index \(i) is not in the descriptor")
                }
            }
            if compareTableText, !ledgerAdded, !out.contains(where: { $0.hasPrefix("\(name):") }), a.sql != e.sql {
                out.append(
                    "\(name): its CREATE TABLE text differs from the descriptor's:\n      file:       \(a.sql)\n      descriptor: \(e.sql)"
                )
            }
        }
        if compareOthers {
            for k in Set(others.keys).union(expected.others.keys).sorted() where others[k] != expected.others[k] {
                out.append("\(k) differs")
            }
        }
        return out
    }
}
