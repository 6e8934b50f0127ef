import Foundation
import UrnaPostgres
import UrnaStore

/// What `urna sql --write` on PostgreSQL must leave as it was, as on SQLite files: the family's tables (their
/// columns, types, keys and urna's indexes; indexes and keys of your own may be added), what urna records
/// (`_urna_schema`, `_urna_history`, and its other `_urna_*` tables, which may change but not be emptied), and,
/// unless `--allow-triggers`, no trigger made on the server on those tables may be set off (a statement-level or
/// BEFORE row trigger, which fires even when no row changes, refuses any statement that writes). Keys and
/// indexes are compared by their definitions, tables by their columns and persistence (logged or not). Taken
/// inside the statement's transaction before it runs, compared after it; a difference rolls the statement back.
struct PostgresSQLGuard {
    let schema: Schema
    let tables: [String]
    let shape: Set<String>
    let keysAndIndexes: Set<String>
    let records: [String: String]
    let triggers: [ServerTrigger]
    /// The firing triggers PostgreSQL's per-table row counts cannot show set off: statement-level ones (they
    /// fire on an UPDATE matching no row) and BEFORE row ones (they fire on a row ON CONFLICT DO NOTHING skips).
    let unseen: [ServerTrigger]

    /// The state before the statement, or nil when the database holds no Urna data (nothing to guard).
    static func before(_ pg: PostgresConnection) throws -> PostgresSQLGuard? {
        guard let schema = try PostgresTransfer.recordedSchema(in: pg) else { return nil }
        let tables = try PostgresLayout.tableNames(for: schema) + StorageLayout.metadataTables
        // The keys and indexes urna's layout makes, by the quoted names in their SQL.
        let layout = try PostgresLayout.tables(for: schema).flatMap(\.constraintSQL).joined(separator: "\n")
        let triggers = try PostgresTransfer.serverTriggers(on: tables, in: pg).filter(\.fires)
        return PostgresSQLGuard(
            schema: schema, tables: tables, shape: try shape(of: tables, in: pg),
            keysAndIndexes: try keysAndIndexes(of: tables, in: pg) { layout.contains(Identifier.quoted($0)) },
            records: try records(in: pg), triggers: triggers, unseen: try unseen(triggers, in: pg))
    }

    /// Those of `triggers` that fire per statement (`tgtype` bit 0 clear) or BEFORE the row (bit 1 set).
    static func unseen(_ triggers: [ServerTrigger], in pg: PostgresConnection) throws -> [ServerTrigger] {
        guard !triggers.isEmpty else { return [] }
        let names = Set(
            try pg.query(
                "SELECT c.relname::text || '.' || t.tgname::text FROM pg_catalog.pg_trigger t "
                    + "JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE NOT t.tgisinternal AND n.nspname = $1::text AND (t.tgtype::int & 1 = 0 OR t.tgtype::int & 2 <> 0)",
                [pg.schema]
            ).rows.compactMap { $0[0] })
        return triggers.filter { names.contains($0.qualifiedName) }
    }

    /// Whether this transaction has written anything (PostgreSQL gives it a transaction id on its first write).
    static func wrote(in pg: PostgresConnection) throws -> Bool {
        try pg.scalar("SELECT pg_catalog.txid_current_if_assigned() IS NOT NULL") == "t"
    }

    /// What the statement changed that it may not, in words (empty: nothing).
    func problems(after pg: PostgresConnection) throws -> [String] {
        var found: [String] = []
        let now = try Self.shape(of: tables, in: pg)
        for gone in shape.subtracting(now).sorted() { found.append("\(gone) is gone or changed") }
        for added in now.subtracting(shape).sorted() { found.append("\(added) was added") }
        for gone in keysAndIndexes.subtracting(try Self.keysAndIndexes(of: tables, in: pg)).sorted() {
            found.append("\(gone) was dropped or changed")
        }
        let after = try Self.records(in: pg)
        for table in [StorageLayout.schemaTable, StorageLayout.historyTable] where records[table] != after[table] {
            found.append("\(table) changed")
        }
        for (table, count) in records
        where table != StorageLayout.schemaTable && table != StorageLayout.historyTable && count != "0"
            && after[table] == "0"
        {
            found.append("\(table) was emptied")
        }
        return found
    }

    /// The triggers on the family's tables the statement set off: those whose event (INSERT, UPDATE, DELETE)
    /// matches rows this transaction wrote in their table (PostgreSQL counts them per transaction; a TRUNCATE
    /// trigger is not seen this way).
    func firedTriggers(in pg: PostgresConnection) throws -> [ServerTrigger] {
        guard !triggers.isEmpty else { return [] }
        let rows = try pg.query(
            "SELECT s.relname::text, s.n_tup_ins, s.n_tup_upd, s.n_tup_del, t.tgname::text, t.tgtype::int "
                + "FROM pg_catalog.pg_stat_xact_user_tables s JOIN pg_catalog.pg_trigger t ON t.tgrelid = s.relid "
                + "WHERE s.schemaname = $1::text AND NOT t.tgisinternal", [pg.schema]
        ).rows
        var fired: Set<String> = []
        for row in rows {
            guard let table = row[0], let name = row[4], let type = row[5].flatMap({ Int($0) }) else { continue }
            let ins = Int(row[1] ?? "0") ?? 0
            let upd = Int(row[2] ?? "0") ?? 0
            let del = Int(row[3] ?? "0") ?? 0
            if (type & 4 != 0 && ins > 0) || (type & 16 != 0 && upd > 0) || (type & 8 != 0 && del > 0) {
                fired.insert("\(table).\(name)")
            }
        }
        return triggers.filter { fired.contains($0.qualifiedName) }
    }

    /// Each column of the tables as `table.column type [NOT NULL]`, and each table as `table` (`(unlogged)` or
    /// `(temporary)` after it unless it is an ordinary logged table).
    static func shape(of tables: [String], in pg: PostgresConnection) throws -> Set<String> {
        Set(
            try pg.query(
                "SELECT c.relname::text, a.attname::text, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, "
                    + "c.relpersistence::text "
                    + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                    + "LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
                    + "WHERE n.nspname = $1::text AND c.relname = ANY ($2::text[]) AND c.relkind IN ('r', 'p')",
                [pg.schema, PostgresTransfer.textArray(tables)]
            ).rows.flatMap { row -> [String] in
                guard let name = row[0] else { return [] }
                let persistence = ["u": " (unlogged)", "t": " (temporary)"][row[4] ?? "p"] ?? ""
                let table = "the table \(name)\(persistence)"
                guard let column = row[1], let type = row[2] else { return [table] }
                return [
                    table,
                    "the column \(name).\(column) (\(type)\(row[3] == "t" ? " NOT NULL" : ""))",
                ]
            })
    }

    /// The keys and indexes on the tables, by name and definition (`pg_get_constraintdef`, `pg_get_indexdef`),
    /// so one remade under its name as something else counts as gone; `own` keeps the ones urna made (primary
    /// keys, and the keys and indexes its layout names), so dropping one of your own is fine.
    static func keysAndIndexes(of tables: [String], in pg: PostgresConnection, own: (String) -> Bool = { _ in true })
        throws -> Set<String>
    {
        let list = PostgresTransfer.textArray(tables)
        let keys = try pg.query(
            "SELECT k.conname::text, c.relname::text, k.contype = 'p', pg_catalog.pg_get_constraintdef(k.oid) FROM pg_catalog.pg_constraint k JOIN "
                + "pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = $1::text AND c.relname = ANY ($2::text[])", [pg.schema, list]
        ).rows.compactMap { row in
            (row[2] == "t" || own(row[0] ?? "")) ? "the key \(row[0] ?? "") on \(row[1] ?? "") (\(row[3] ?? ""))" : nil
        }
        let indexes = try pg.query(
            "SELECT i.relname::text, c.relname::text, x.indisprimary, pg_catalog.pg_get_indexdef(x.indexrelid) FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON "
                + "i.oid = x.indexrelid JOIN pg_catalog.pg_class c ON c.oid = x.indrelid JOIN pg_catalog.pg_namespace n "
                + "ON n.oid = c.relnamespace WHERE n.nspname = $1::text AND c.relname = ANY ($2::text[])",
            [pg.schema, list]
        ).rows.compactMap { row in
            (row[2] == "t" || own(row[0] ?? ""))
                ? "the index \(row[0] ?? "") on \(row[1] ?? "") (\(row[3] ?? ""))" : nil
        }
        return Set(keys + indexes)
    }

    /// `_urna_schema` and `_urna_history` by a digest of their rows; urna's other tables by their row counts.
    static func records(in pg: PostgresConnection) throws -> [String: String] {
        var out: [String: String] = [:]
        for table in StorageLayout.metadataTables where try PostgresTransfer.relationExists(table, in: pg) {
            let qualified = pg.qualified(table)
            if table == StorageLayout.schemaTable || table == StorageLayout.historyTable {
                out[table] =
                    try pg.scalar(
                        "SELECT pg_catalog.md5(COALESCE(pg_catalog.string_agg(t::text, '|' ORDER BY t::text), '')) "
                            + "FROM \(qualified) t") ?? ""
            } else {
                out[table] = try pg.scalar("SELECT pg_catalog.count(*)::text FROM \(qualified)") ?? "0"
            }
        }
        return out
    }
}
