import Foundation
import UrnaStore

/// The way back: PostgreSQL into SQLite files (a working copy, `urna copy` to a file, adopt's plain tables).
extension PostgresTransfer {
    // MARK: Plain tables (adopt)

    /// Copies the named tables of `pg` that exist there (tables no urna made: no `_urna_schema` needed) into a
    /// new SQLite file at `path` as plain tables, each column with the SQLite type that holds its values the
    /// way the storage contract does (whole numbers and booleans INTEGER, floats REAL, bytea BLOB, dates
    /// ISO-8601 UTC text, numeric as text, the rest text); NOT NULL is kept. Returns the tables copied.
    @discardableResult
    public static func pullPlainTables(_ names: [String], from pg: PostgresConnection, to path: String) throws
        -> [String]
    {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw PostgresTransferError.occupied("\(path) already exists; the copy never replaces a file")
        }
        var copied: [String] = []
        do {
            let c = try Connection(path: path)
            try c.execute("BEGIN")
            for name in names where try relationExists(name, in: pg) {
                var defs: [String] = []
                var columns: [(name: String, kind: PostgresColumnKind)] = []
                for column in try serverColumns(name, in: pg) {
                    let (sqliteType, kind) = PostgresColumnKind.forServerColumn(type: column.type)
                    defs.append(q(column.name) + " " + sqliteType + (column.nullable ? "" : " NOT NULL"))
                    columns.append((column.name, kind))
                }
                try c.execute("CREATE TABLE \(q(name)) (" + defs.joined(separator: ", ") + ")")
                _ = try pullRows(of: .plain(name, columns), from: pg, to: c)
                copied.append(name)
            }
            try c.execute("COMMIT")
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
            throw error
        }
        return copied
    }

    // MARK: PostgreSQL -> SQLite

    /// Creates a new Urna file at `path` (which must not exist) from the Urna data in `pg`, read in the
    /// caller's PostgreSQL transaction. `resolve` may swap the recorded schema for the code's equal schema,
    /// which carries its views' SQL (a descriptor records views by checksum only). Returns the schema, or nil
    /// (and creates nothing) when `pg` holds no Urna data.
    @discardableResult
    public static func pull(
        from pg: PostgresConnection, to path: String, pageSize: Int? = nil, resolve: (Schema) -> Schema = { $0 },
        progress: ((String, Int) -> Void)? = nil
    ) throws -> Schema? {
        guard let recorded = try recordedSchema(in: pg) else { return nil }
        let schema = resolve(recorded)
        guard !FileManager.default.fileExists(atPath: path) else {
            throw PostgresTransferError.occupied("\(path) already exists; the copy never replaces a file")
        }
        do {
            let c = try Connection(path: path)
            if let pageSize { try c.execute("PRAGMA page_size = \(pageSize)") }
            // A new file is filled as the importer fills one: through a rollback journal (new pages need none,
            // where WAL writes each page twice), with a 32 MiB page cache, and with the secondary indexes built
            // once the rows are in (one sort each instead of a B-tree insert per row into an index that outgrows
            // the cache). WAL afterwards, as the store makes files.
            try c.execute("PRAGMA journal_mode = DELETE")
            try c.execute("PRAGMA cache_size = -32768")
            try c.execute("BEGIN")
            try c.execute(StorageLayout.metadataSQL)
            let statements = StorageLayout.createSQL(for: schema)
            let isIndex = { (sql: String) in sql.hasPrefix("CREATE INDEX ") }
            for sql in statements where !isIndex(sql) { try c.execute(sql) }
            for t in try PostgresLayout.tables(for: schema) {
                let n = try pullRows(of: t, from: pg, to: c)
                progress?(t.name, n)
            }
            // Index builds sort faster in a small cache (see the importer's BulkLoad).
            try c.execute("PRAGMA cache_size = -4096")
            for sql in statements where isIndex(sql) { try c.execute(sql) }
            try pullMetadata(from: pg, to: c)
            try c.setUserVersion(schema.version)
            try c.execute("COMMIT")
            try c.execute("PRAGMA journal_mode = WAL")
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
            throw error
        }
        return schema
    }

    static func pullRows(of t: PostgresTable, from pg: PostgresConnection, to c: Connection) throws -> Int {
        let expressions = t.columns.map { $0.kind.selectExpression(q($0.name)) }.joined(separator: ", ")
        let insert = try c.prepare(
            "INSERT INTO \(q(t.name)) (\(t.columns.map { q($0.name) }.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: t.columns.count).joined(separator: ", ") + ")")
        let binder = CopyLineBinder(t)
        var n = 0
        do {
            try pg.copyOutLines("COPY (SELECT \(expressions) FROM ONLY \(q(t.name))) TO STDOUT") { line in
                insert.reset()
                try binder.bind(line, to: insert)
                try insert.runToCompletion()
                n += 1
            }
        } catch let e as PostgresError where e.sqlState == "22003" {
            throw tooLarge(e, in: t.name)
        }
        return n
    }

    /// numeric(38, s) holds values the store's 64-bit integers do not (money past 92 quadrillion reais): the
    /// server's "out of range" said as what it means for urna.
    static func tooLarge(_ e: PostgresError, in table: String) -> PostgresError {
        PostgresError(
            "a value in \(table) is too large for urna (\(e.message)): money and integers are 64-bit in the "
                + "storage contract (money up to 92,233,720,368,547,758.07); correct it on the server, "
                + "nothing was changed",
            sqlState: e.sqlState, database: e.database)
    }

    /// The metadata rows, adding any `_urna_history` column a newer urna recorded there.
    static func pullMetadata(from pg: PostgresConnection, to c: Connection) throws {
        for table in metadataTables where try relationExists(table, in: pg) {
            if table == StorageLayout.fieldGenerationsTable { try c.execute(StorageLayout.fieldGenerationsSQL) }
            if table == StorageLayout.pendingGoodsTable { try c.execute(StorageLayout.pendingGoodsSQL) }
            let have = Set(
                try c.rows("PRAGMA table_info(\(q(table)))").compactMap { r -> String? in
                    if case .text(let s) = r[1] { s } else { nil }
                })
            var columns: [(name: String, kind: PostgresColumnKind)] = []
            for column in try serverColumns(table, in: pg) {
                let (sqliteType, kind) = PostgresColumnKind.forServerColumn(type: column.type)
                if !have.contains(column.name) {
                    try c.execute("ALTER TABLE \(q(table)) ADD COLUMN \(q(column.name)) \(sqliteType)")
                }
                columns.append((column.name, kind))
            }
            if table == StorageLayout.schemaTable { try c.execute("DELETE FROM \(q(table))") }
            _ = try pullRows(of: .plain(table, columns), from: pg, to: c)
        }
    }
}
