import Foundation
import UrnaStore

/// A trigger someone made on the server on one of Urna's tables (a foreign key's own triggers are not these).
public struct ServerTrigger: Sendable, Equatable {
    /// The table it is on.
    public let table: String
    /// Its name.
    public let name: String
    /// `pg_trigger.tgenabled`: `O` (fires in ordinary sessions), `R` (replica sessions only), `A` (always),
    /// `D` (disabled).
    public let enabled: String
    /// Whether it fires in this session, as its `session_replication_role` decides.
    public let fires: Bool
    /// The server's own `CREATE TRIGGER` for it (`pg_get_triggerdef`), for making it again.
    public let definition: String

    /// `Table.name`, as messages and summaries name it.
    public var qualifiedName: String { "\(table).\(name)" }
}

extension PostgresTransfer {
    /// `names` as a PostgreSQL text array literal, for a `$n::text[]` parameter (each element double-quoted).
    public static func textArray(_ names: [String]) -> String {
        "{"
            + names.map {
                "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
            }
            .joined(separator: ",") + "}"
    }

    /// The triggers made on the server on `tables` (in the working schema), disabled ones included, by table
    /// and name.
    public static func serverTriggers(on tables: [String], in pg: PostgresConnection) throws -> [ServerTrigger] {
        guard !tables.isEmpty else { return [] }
        // ENABLE (O) fires in origin and local sessions, ENABLE REPLICA (R) in replica sessions only, ENABLE
        // ALWAYS (A) in all of them, DISABLE (D) never.
        return try pg.query(
            "SELECT c.relname::text, t.tgname::text, t.tgenabled::text, (t.tgenabled = 'A' OR t.tgenabled = CASE "
                + "pg_catalog.current_setting('session_replication_role') WHEN 'replica' THEN 'R' ELSE 'O' END), "
                + "pg_catalog.pg_get_triggerdef(t.oid) FROM pg_catalog.pg_trigger t "
                + "JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE NOT t.tgisinternal AND n.nspname = $1::text AND c.relname = ANY ($2::text[]) ORDER BY 1, 2",
            [pg.schema, textArray(tables)]
        ).rows.compactMap { row in
            guard let table = row[0], let name = row[1], let enabled = row[2], let definition = row[4] else {
                return nil
            }
            return ServerTrigger(
                table: table, name: name, enabled: enabled, fires: row[3] == "t", definition: definition)
        }
    }

    /// Refuses, naming them, triggers made on the server on tables urna refills in place: on its own tables
    /// (`_urna_schema`, `_urna_history`, ...) always, as they would run the database's SQL as urna records its
    /// work; on the family's tables unless `allowing` (`--allow-triggers`), as the refill puts every row back
    /// (TRUNCATE and COPY) and would run them for every row. Disabled triggers, and ones set to fire in another
    /// `session_replication_role`, do not fire and pass.
    static func refuseTriggers(on tables: [String], in pg: PostgresConnection, allowing: Bool = false) throws {
        let metadata = Set(metadataTables)
        let firing = try serverTriggers(on: tables, in: pg).filter(\.fires)
        if let own = firing.first(where: { metadata.contains($0.table) }) {
            throw PostgresTransferError.occupied(
                "\(pg.displayName): \(own.table) has a trigger of its own on the server (\(own.name)); it is this "
                    + "program's own record of the data, and a trigger there would run as it records its work, "
                    + "even with --allow-triggers; nothing was changed: drop it (DROP TRIGGER "
                    + "\(PostgresConnection.quoted(own.name)) ON \(PostgresConnection.quoted(own.table)))")
        }
        guard !allowing, !firing.isEmpty else { return }
        let byTable = Dictionary(grouping: firing, by: \.table)
        let named = byTable.keys.sorted().map { table in
            "\(table) has \(byTable[table]!.count == 1 ? "a trigger" : "triggers") of its own on the server "
                + "(\(byTable[table]!.map(\.name).joined(separator: ", ")))"
        }
        let first = firing[0]
        throw PostgresTransferError.occupied(
            "\(pg.displayName): \(named.joined(separator: "; ")), which the write would run: it puts every row of "
                + "the table back (TRUNCATE and COPY), so a row trigger runs for every row, not only the ones that "
                + "changed; nothing was changed: pass --allow-triggers to let \(firing.count == 1 ? "it" : "them") "
                + "run, or drop \(firing.count == 1 ? "it" : "them") (DROP TRIGGER "
                + "\(PostgresConnection.quoted(first.name)) ON \(PostgresConnection.quoted(first.table))), or disable "
                + "\(firing.count == 1 ? "it" : "them") while you write (ALTER TABLE "
                + "\(PostgresConnection.quoted(first.table)) DISABLE TRIGGER \(PostgresConnection.quoted(first.name)))")
    }

    /// Makes again, after the tables were dropped and created anew (a migration, an adoption), the triggers
    /// `setAside` read from the old ones, each as the server defined it and enabled as it was; so they never
    /// fire on the copy's own rows. One that no longer fits the new tables (a renamed column, a type that went)
    /// stops the write, naming it: nothing is lost silently.
    static func remake(_ setAside: [ServerTrigger], in pg: PostgresConnection) throws {
        for trigger in setAside {
            do {
                try pg.execute("SAVEPOINT urna_trigger")
                try pg.execute(trigger.definition)
                let table = PostgresConnection.quoted(trigger.table)
                let name = PostgresConnection.quoted(trigger.name)
                switch trigger.enabled {
                case "D": try pg.execute("ALTER TABLE \(table) DISABLE TRIGGER \(name)")
                case "R": try pg.execute("ALTER TABLE \(table) ENABLE REPLICA TRIGGER \(name)")
                case "A": try pg.execute("ALTER TABLE \(table) ENABLE ALWAYS TRIGGER \(name)")
                default: break
                }
                try pg.execute("RELEASE SAVEPOINT urna_trigger")
            } catch let e as PostgresError {
                try? pg.execute("ROLLBACK TO SAVEPOINT urna_trigger")
                throw PostgresTransferError.occupied(
                    "\(pg.displayName): the trigger \(trigger.name) on \(trigger.table) cannot be made again on the "
                        + "new tables (\(e.message)); nothing was changed: drop it (DROP TRIGGER "
                        + "\(PostgresConnection.quoted(trigger.name)) ON \(PostgresConnection.quoted(trigger.table))), "
                        + "run this again, and create it anew for the new tables (it was: \(trigger.definition))")
            }
        }
    }

    /// Refuses a write into a database without `_urna_schema` that has a table or view named like urna's other
    /// records (`_urna_history`, ...): it is someone else's, and the write would empty it and fill it with urna's
    /// rows.
    static func refuseForeignMetadataTables(in pg: PostgresConnection) throws {
        guard try !relationExists(StorageLayout.schemaTable, in: pg) else { return }
        for table in metadataTables where try relationExists(table, in: pg) {
            throw PostgresTransferError.occupied(
                "\(pg.displayName) already has a table or view \(table), a name this program keeps for its own records, "
                    + "while it holds no \(StorageLayout.schemaTable) (so it is not this program's); writing would "
                    + "empty it: nothing was changed: rename it (ALTER TABLE \(PostgresConnection.quoted(table)) "
                    + "RENAME TO ...), or use another database or schema")
        }
    }

    /// Refuses a write when a table that is not Urna's has a foreign key into one of `tables`: the refill must
    /// empty or drop them, which the key forbids (and `TRUNCATE ... CASCADE` would empty the other table).
    static func refuseForeignKeysInto(_ tables: [String], in pg: PostgresConnection) throws {
        guard !tables.isEmpty else { return }
        let rows = try pg.query(
            "SELECT src.relname::text, k.conname::text, dst.relname::text, sn.nspname::text FROM pg_catalog.pg_constraint k "
                + "JOIN pg_catalog.pg_class src ON src.oid = k.conrelid JOIN pg_catalog.pg_namespace sn ON sn.oid = src.relnamespace "
                + "JOIN pg_catalog.pg_class dst ON dst.oid = k.confrelid JOIN pg_catalog.pg_namespace dn ON dn.oid = dst.relnamespace "
                + "WHERE k.contype = 'f' AND dn.nspname = $1::text AND dst.relname = ANY ($2::text[]) "
                + "AND NOT (sn.nspname = $1::text AND src.relname = ANY ($2::text[])) ORDER BY 4, 1, 2",
            [pg.schema, textArray(tables)]
        ).rows
        guard let first = rows.first, let table = first[0], let key = first[1], let target = first[2],
            let schema = first[3]
        else { return }
        let qualified =
            schema == pg.schema
            ? PostgresConnection.quoted(table)
            : PostgresConnection.quoted(schema) + "." + PostgresConnection.quoted(table)
        let others = rows.count > 1 ? " (and \(rows.count - 1) more such keys)" : ""
        throw PostgresTransferError.occupied(
            "\(pg.displayName): the table \(qualified), which is not this program's, has a foreign key \(key) into "
                + "\(target)\(others); the write empties \(target) and fills it again, which the key forbids, "
                + "and nothing of that table may be touched; nothing was changed: drop the key and keep the column "
                + "(ALTER TABLE \(qualified) DROP CONSTRAINT \(PostgresConnection.quoted(key))), checking it with "
                + "a query instead")
    }

    /// Refuses a write when a table that is not Urna's inherits from one of `tables` (INHERITS, or a partition
    /// of it; Urna's tables are never partitioned): TRUNCATE and DROP reach such a child, and reads of the parent
    /// take its rows, so its rows would be emptied or pulled in as Urna's.
    static func refuseInheritorsOf(_ tables: [String], in pg: PostgresConnection) throws {
        guard !tables.isEmpty else { return }
        let rows = try pg.query(
            "SELECT cn.nspname::text, child.relname::text, parent.relname::text FROM pg_catalog.pg_inherits i "
                + "JOIN pg_catalog.pg_class parent ON parent.oid = i.inhparent "
                + "JOIN pg_catalog.pg_namespace pn ON pn.oid = parent.relnamespace "
                + "JOIN pg_catalog.pg_class child ON child.oid = i.inhrelid "
                + "JOIN pg_catalog.pg_namespace cn ON cn.oid = child.relnamespace "
                + "WHERE pn.nspname = $1::text AND parent.relname = ANY ($2::text[]) ORDER BY 1, 2, 3",
            [pg.schema, textArray(tables)]
        ).rows
        guard !rows.isEmpty else { return }
        let named = rows.compactMap { row -> String? in
            guard let schema = row[0], let child = row[1], let parent = row[2] else { return nil }
            let qualified =
                schema == pg.schema
                ? PostgresConnection.quoted(child)
                : PostgresConnection.quoted(schema) + "." + PostgresConnection.quoted(child)
            return
                "\(qualified) (of \(parent): ALTER TABLE \(qualified) NO INHERIT \(PostgresConnection.quoted(parent)), "
                + "or DETACH PARTITION for a partition)"
        }
        throw PostgresTransferError.occupied(
            "\(pg.displayName): \(named.count == 1 ? "a table" : "\(named.count) tables") not this program's "
                + "inherit\(named.count == 1 ? "s" : "") from its tables: \(named.joined(separator: "; ")); "
                + "the write empties those tables and fills them again, which would empty \(named.count == 1 ? "it" : "them") "
                + "too, and reads would take \(named.count == 1 ? "its" : "their") rows as this program's; nothing "
                + "was changed: detach \(named.count == 1 ? "it" : "them") as shown, and run this again")
    }
}
