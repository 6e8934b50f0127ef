import Foundation
import UrnaStore

/// Copies an Urna object graph between an SQLite file and a PostgreSQL database, table by table through
/// `COPY`, with every value converted by its property's type (exact money as numeric, dates as timestamptz,
/// embedded objects as jsonb). Both directions run inside one transaction on each side: a failure leaves
/// nothing behind.
public enum PostgresTransfer {
    static func q(_ name: String) -> String { Identifier.quoted(name) }
    static let metadataTables = StorageLayout.metadataTables

    /// Whether `name` exists as a table (or view) in the connection's working schema (one of the same name
    /// in another schema of the user's search path is not Urna's).
    public static func relationExists(_ name: String, in pg: PostgresConnection) throws -> Bool {
        try pg.scalar("SELECT pg_catalog.to_regclass($1::text) IS NOT NULL", [pg.qualified(name)]) == "t"
    }

    /// The schema a PostgreSQL database records in `_urna_schema`, or nil when it holds no Urna data.
    public static func recordedSchema(in pg: PostgresConnection) throws -> Schema? {
        guard try relationExists(StorageLayout.schemaTable, in: pg) else { return nil }
        // urna makes _urna_schema a table: a view (or anything else) of that name is someone else's.
        if let kind = try pg.scalar(
            "SELECT c.relkind::text FROM pg_catalog.pg_class c WHERE c.oid = pg_catalog.to_regclass($1::text)",
            [pg.qualified(StorageLayout.schemaTable)]), kind != "r"
        {
            throw PostgresTransferError.occupied(
                "\(pg.displayName) has a \(kind == "v" ? "view" : "relation") \(StorageLayout.schemaTable), a name this "
                    + "program keeps for the table that records its schema, so it is not this program's; nothing was "
                    + "read or changed: rename it (ALTER \(kind == "v" ? "VIEW" : "TABLE") "
                    + "\(StorageLayout.schemaTable) RENAME TO ...), or use another database or schema")
        }
        guard let json = try pg.scalar("SELECT descriptor FROM \(q(StorageLayout.schemaTable)) WHERE id = 1") else {
            return nil
        }
        return try SchemaDescriptor.decode(json)
    }

    /// Begins a REPEATABLE READ READ ONLY transaction whose snapshot comes after any running urna write has
    /// committed: LOCK (which takes no snapshot) on _urna_schema waits for a writer holding it. Returns false
    /// (with the transaction begun) when the database has no _urna_schema.
    @discardableResult
    public static func beginSnapshot(_ pg: PostgresConnection) throws -> Bool {
        try pg.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            try pg.execute("LOCK TABLE \(q(StorageLayout.schemaTable)) IN ACCESS SHARE MODE")
            return true
        } catch let e as PostgresError where e.sqlState == "42P01" {  // no such table: no Urna data
            try pg.execute("ROLLBACK")
            try pg.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return false
        }
    }

    /// Begins a writer's transaction and takes urna's advisory lock (two urna writers never interleave). A
    /// transaction that would be read-only (`default_transaction_read_only`, a standby) is refused at once,
    /// before any work that its first write would throw away.
    public static func beginWriting(_ pg: PostgresConnection) throws {
        try pg.execute("BEGIN")
        if try pg.scalar("SHOW transaction_read_only") == "on" {
            try pg.execute("ROLLBACK")
            throw PostgresTransferError.occupied(
                "\(pg.displayName) is read-only for this session (default_transaction_read_only is on for the role "
                    + "or database, or the server is a standby); nothing was changed: connect to the primary, or "
                    + "as a role that may write (ALTER ROLE ... SET default_transaction_read_only = off)")
        }
        do {
            // Before any work: an event trigger would run inside this transaction during the write-back's DDL.
            try refuseEventTriggers(in: pg)
        } catch {
            try? pg.execute("ROLLBACK")
            throw error
        }
        // A write urna reports as stored survives a server crash: synchronous_commit = off (the role's or
        // database's) is raised to local flushing for this transaction; stronger settings are kept.
        if try pg.scalar("SHOW synchronous_commit") == "off" { try pg.execute("SET LOCAL synchronous_commit = local") }
        try pg.execute("SELECT pg_catalog.pg_advisory_xact_lock(\(PostgresWorkingCopy.advisoryLockKey)::bigint)")
    }

    /// Refuses, with the grant that fixes it, when this role may not create tables in the working schema.
    public static func requireCreate(_ pg: PostgresConnection) throws {
        guard try pg.scalar("SELECT pg_catalog.has_schema_privilege($1::text, 'CREATE')", [pg.schema]) == "t" else {
            let role = try pg.scalar("SELECT CURRENT_USER::text") ?? "this role"
            throw PostgresTransferError.occupied(
                "\(pg.displayName): \(role) may not create tables in schema \(pg.schema), where urna would put its "
                    + "tables; nothing was changed: GRANT CREATE ON SCHEMA \(PostgresConnection.quoted(pg.schema)) TO "
                    + "\(PostgresConnection.quoted(role)), or choose a schema of yours with "
                    + "?options=-csearch_path%3DNAME")
        }
    }

    /// Rows copied per table.
    public typealias Counts = [(table: String, rows: Int)]

    // MARK: SQLite -> PostgreSQL

    /// Copies the Urna file open on `sqlite` into `pg`, inside the caller's PostgreSQL transaction. The tables
    /// of `replacing` (what the database held before, nil when it held no Urna data) are emptied, or dropped
    /// and created again when the schema changed. A table of the new schema that exists without being Urna's
    /// is never touched: the copy stops with its name. `recreate` drops and creates the tables even when the
    /// schema is the same (adopt: the old tables are plain ones of that schema's names). `binaryCopy` sends
    /// the tables `CopyBinaryEncoder` can write by binary COPY (the same rows; false: text COPY only, for
    /// comparing the two).
    ///
    /// Triggers made on the server on the old tables: when the tables are refilled in place (the same schema)
    /// they would run for every row put back, so they are refused by name unless `allowTriggers`, and
    /// `triggers` is told the ones that ran; when the tables are dropped and created again (a new schema,
    /// `recreate`) they are set aside and made again after the load, as the server defined them, and `triggers`
    /// is told those. Triggers on urna's own tables are refused either way.
    @discardableResult
    public static func push(
        from sqlite: Connection, to pg: PostgresConnection, replacing old: Schema?, recreate: Bool = false,
        resolve: (Schema) -> Schema = { $0 }, progress: ((String, Int) -> Void)? = nil, binaryCopy: Bool = true,
        allowTriggers: Bool = false, triggers: ((_ ran: [ServerTrigger], _ remade: [ServerTrigger]) -> Void)? = nil
    ) throws -> Counts {
        guard let schema = try Store.recordedSchema(in: sqlite) else {
            throw PostgresTransferError.notUrna(
                "\(sqlite.path) is not an Urna file (it has no \(StorageLayout.schemaTable) table)")
        }
        let tables = try PostgresLayout.tables(for: schema)
        // First of all: readers take _urna_schema before anything else (see beginSnapshot), so holding it here
        // makes them wait for this commit instead of meeting tables half refilled (or deadlocking with them).
        if try relationExists(StorageLayout.schemaTable, in: pg) {
            try pg.execute("LOCK TABLE \(q(StorageLayout.schemaTable)) IN ACCESS EXCLUSIVE MODE")
        }
        if let old, !recreate { try refuseServerOnlyColumns(of: old, in: pg) }
        // Index builds and key checks after the load sort in memory instead of spilling (this transaction only).
        try pg.execute("SET LOCAL maintenance_work_mem = '256MB'")
        let sameShape =
            !recreate && (old.map { SchemaDescriptor.encode($0) == SchemaDescriptor.encode(schema) } ?? false)
        let oldNames = Set(old.map { PostgresLayout.tableNames(for: $0) } ?? [])
        try refuseForeignKeysInto(oldNames.sorted(), in: pg)
        try refuseInheritorsOf(oldNames.sorted() + metadataTables, in: pg)
        var setAside: [ServerTrigger] = []
        var ran: [ServerTrigger] = []
        if sameShape {
            try refuseTriggers(on: oldNames.sorted() + metadataTables, in: pg, allowing: allowTriggers)
            ran = try serverTriggers(on: oldNames.sorted(), in: pg).filter(\.fires)
        } else {
            try refuseTriggers(on: metadataTables, in: pg)
            // DROP TABLE takes its triggers with it: read them first, to make them again on the new tables.
            setAside = try serverTriggers(on: oldNames.sorted(), in: pg)
        }
        try refuseEventTriggers(in: pg)
        try refuseForeignMetadataTables(in: pg)
        for t in tables where !oldNames.contains(t.name) {
            if try relationExists(t.name, in: pg) {
                throw PostgresTransferError.occupied(
                    "\(pg.displayName) already has a table \(t.name) that no Urna schema recorded there owns; "
                        + "nothing was changed: rename it, or use another database")
            }
        }
        // Urna's own views go first and come back from code after the load (a view of someone else's on them stops
        // the run, as on the tables).
        for name in Set((old?.views ?? []).map(\.name) + schema.views.map(\.name)).sorted()
        where try pg.scalar(
            "SELECT 1 FROM pg_catalog.pg_views WHERE schemaname = $1::text AND viewname = $2::text", [pg.schema, name])
            == "1"
        {
            try pg.execute("DROP VIEW \(q(name))")
        }
        if sameShape {
            // Emptied, not dropped: a view, grant or index of someone else's on these tables stays. Each table is
            // emptied once (a TRUNCATE trigger allowed to run runs once): the ones copied in binary under their
            // own savepoint (copyRowsPreferringBinary), the others here, after the keys between them are gone.
            for t in tables { for sql in t.dropConstraintSQL { try pg.execute(sql) } }
            let emptiedHere = tables.filter { !binaryCopy || CopyBinaryEncoder($0) == nil }.map(\.name)
                .filter(oldNames.contains)
            if !emptiedHere.isEmpty {
                try pg.execute("TRUNCATE " + emptiedHere.sorted().map { "ONLY " + q($0) }.joined(separator: ", "))
            }
        } else if !oldNames.isEmpty {
            // RESTRICT (the default): a view or key of someone else's that depends on these tables stops the run.
            try pg.execute("DROP TABLE IF EXISTS " + oldNames.sorted().map(q).joined(separator: ", "))
        }
        if !sameShape { for t in tables { try pg.execute(t.createSQL(in: pg)) } }
        var counts: Counts = []
        for t in tables {
            // Every table was created or emptied by TRUNCATE above, in this transaction: its rows can go in frozen.
            let n: Int
            do {
                n =
                    try binaryCopy
                    ? copyRowsPreferringBinary(of: t, from: sqlite, to: pg)
                    : copyRows(of: t, from: sqlite, to: pg, freeze: true)
            } catch let e as PostgresError where e.sqlState == "22021" && e.message.contains("0x00") {
                throw try nulCharacter(in: t, of: sqlite) ?? e
            }
            counts.append((t.name, n))
            progress?(t.name, n)
        }
        // Deferred constraint triggers allowed to run fire now, before the keys are added (ALTER TABLE refuses a
        // table with trigger events pending) and checked against whatever they changed.
        if !ran.isEmpty { try pg.execute("SET CONSTRAINTS ALL IMMEDIATE") }
        if !sameShape { for t in tables { if let pk = t.primaryKeySQL { try pg.execute(pk) } } }
        for t in tables { for sql in t.constraintSQL { try pg.execute(sql) } }
        for t in tables {
            guard let id = t.identityColumn else { continue }
            try pg.execute(
                "SELECT setval(pg_get_serial_sequence('\(q(t.name))', '\(id)'), COALESCE(max(\(q(id))), 0) + 1, false) FROM ONLY \(q(t.name))"
            )
        }
        try pushMetadata(from: sqlite, to: pg)
        // The views in PostgreSQL's SQL, from the code's schema (a file records only their names and checksums).
        let code = resolve(schema)
        if SchemaDescriptor.encode(code) == SchemaDescriptor.encode(schema) {
            for v in code.views {
                guard let sql = v.postgresSQL else { continue }
                try pg.execute("CREATE VIEW \(pg.qualified(v.name)) AS\n\(sql)")
                try pg.execute(
                    "COMMENT ON VIEW \(q(v.name)) IS '\(v.viewDescription.replacingOccurrences(of: "'", with: "''"))'")
            }
        }
        try remake(setAside, in: pg)
        triggers?(ran, setAside)
        return counts
    }

    /// Copies every row of `t` from the file; `freeze` (a table created or emptied by TRUNCATE in this
    /// transaction) stores them already frozen, so the first reads after the commit need not rewrite every
    /// page to set hint bits, nor a vacuum to freeze them later.
    static func copyRows(of t: PostgresTable, from sqlite: Connection, to pg: PostgresConnection, freeze: Bool = false)
        throws -> Int
    {
        let columns = t.columns.map { q($0.name) }.joined(separator: ", ")
        let select = try sqlite.prepare("SELECT \(columns) FROM \(q(t.name))")
        let encoder = CopyRowEncoder(t)
        // The count is the server's own: the rows COPY stored.
        return try pg.copyIn("COPY \(q(t.name)) (\(columns)) FROM STDIN" + (freeze ? " WITH (FREEZE)" : "")) { w in
            var buffer = CopyBuffer(capacity: 1 << 17)
            while try select.step() {
                try encoder.encodeRow(of: select, into: &buffer)
                if buffer.count >= 1 << 16 {
                    try buffer.withBytes { try w.send($0) }
                    buffer.removeAll()
                }
            }
            try buffer.withBytes { try w.send($0) }
        }
    }

    /// A table's columns on the server, in order: name, information_schema's `data_type`, and whether NULL is allowed.
    static func serverColumns(_ table: String, in pg: PostgresConnection) throws -> [(
        name: String, type: String, nullable: Bool
    )] {
        try pg.query(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1::text "
                + "AND table_schema = $2::text ORDER BY ordinal_position", [table, pg.schema]
        ).rows.compactMap { row in
            guard let name = row[0], let type = row[1] else { return nil }
            return (name, type, row[2] != "NO")
        }
    }

    /// Refuses when a table urna refills holds a column its schema does not have (added with psql): its
    /// values would be lost by the refill.
    static func refuseServerOnlyColumns(of schema: Schema, in pg: PostgresConnection) throws {
        for t in try PostgresLayout.tables(for: schema) {
            let expected = Set(t.columns.map(\.name))
            if let extra = try serverColumns(t.name, in: pg).map(\.name).first(where: { !expected.contains($0) }) {
                throw PostgresTransferError.occupied(
                    "\(pg.displayName): \(t.name) has a column \(extra) that \(schema.family) version \(schema.version) does not have; "
                        + "writing would lose its values, so nothing was changed: move it to a table of your own (or drop it)"
                )
            }
        }
    }

    /// Refills the metadata tables in place (a reader waiting on _urna_schema finds the same table after the
    /// commit), adding any column the file's urna gave them.
    static func pushMetadata(from sqlite: Connection, to pg: PostgresConnection) throws {
        for table in metadataTables where try sqlite.tableExists(table) {
            let info = try sqlite.rows("PRAGMA table_info(\(q(table)))")
            var defs: [String] = []
            var columns: [(name: String, kind: PostgresColumnKind)] = []
            var primaryKey: [(Int64, String)] = []
            for row in info {
                guard case .text(let name) = row[1] else { continue }
                let kind = PostgresColumnKind.ofSQLiteType({ if case .text(let s) = row[2] { s } else { "" } }())
                var d = "\(q(name)) \(kind.columnType)"
                if case .integer(1) = row[3] { d += " NOT NULL" }
                if case .integer(let pk) = row[5], pk > 0 { primaryKey.append((pk, name)) }
                defs.append(d)
                columns.append((name, kind))
            }
            if !primaryKey.isEmpty {
                defs.append(
                    "PRIMARY KEY (" + primaryKey.sorted { $0.0 < $1.0 }.map { q($0.1) }.joined(separator: ", ") + ")")
            }
            if try relationExists(table, in: pg) {
                let have = Set(try serverColumns(table, in: pg).map(\.name))
                for (c, kind) in columns where !have.contains(c) {
                    try pg.execute("ALTER TABLE \(q(table)) ADD COLUMN \(q(c)) \(kind.columnType)")
                }
                try pg.execute("DELETE FROM ONLY \(q(table))")
            } else {
                try pg.execute("CREATE TABLE \(pg.qualified(table)) (\n  " + defs.joined(separator: ",\n  ") + "\n)")
            }
            _ = try copyRows(of: .plain(table, columns), from: sqlite, to: pg)
        }
    }
}
