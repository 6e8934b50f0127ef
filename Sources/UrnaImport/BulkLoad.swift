import UrnaStore

/// Speeds up loading into empty tables: Urna's own secondary indexes on them are dropped before the rows
/// go in and built again (from the schema, never from SQL the file recorded) before the transaction
/// commits, which builds each index by one sort instead of one B-tree insert per row.
///
/// The SQL in `sqlite_master` is never run: a file can carry an index whose recorded text was edited to
/// hold more statements (`...; COMMIT; ATTACH ...`). Indexes someone added to the tables stay in place
/// (SQLite maintains them row by row), so none of their SQL has to run again either.
///
/// Tables that already hold rows keep their indexes: the upserts need them to find existing rows.
struct BulkLoad {
    private var dropped: [(table: String, sql: String)] = []

    /// Drops Urna's secondary indexes of those of `tables` that are empty (inside the open transaction).
    mutating func prepare(_ connection: Connection, tables: [String], schema: Schema) throws {
        let ours = Self.indexStatements(for: schema)
        for table in tables {
            let isEmpty = try connection.rows("SELECT 1 FROM \(Identifier.quoted(table)) LIMIT 1").isEmpty
            guard isEmpty, let statements = ours[table] else { continue }
            for (name, sql) in statements {
                try connection.execute("DROP INDEX IF EXISTS \(Identifier.quoted(name))")
                dropped.append((table, sql))
            }
        }
        if !dropped.isEmpty { connection.clearStatementCache() }
    }

    /// Page cache while the indexes are built. SQLite's sorter keeps runs of up to the cache's size in
    /// memory before merging them: 4 MiB runs sort in the processor's caches, and building the ten indexes of
    /// the 500k + 1M benchmark took about 15% less time than with the import's 32 MiB cache (and 12 MB of
    /// memory instead of 86 MB, measured with sqlite3 on the benchmark's file).
    static let indexBuildCacheKiB = 4096

    /// Runs `body` with the small page cache of the index builds, then puts the import's cache back.
    ///
    /// SQLite's sorter helper threads (`PRAGMA threads = 1` or `2`) were tried here: on the 500k + 1M benchmark they
    /// took 1.8 s of sorting off the writing thread but cost 1.5-2 s more processor time in all (187 short-lived
    /// threads), and no run on the shared two-processor machine finished sooner, so the sorts stay on this thread.
    static func withSortSettings<T>(_ connection: Connection, _ body: () throws -> T) throws -> T {
        let cacheSize = try connection.integer("PRAGMA cache_size")
        try connection.execute("PRAGMA cache_size = -\(indexBuildCacheKiB)")
        defer { try? connection.execute("PRAGMA cache_size = \(cacheSize)") }
        return try body()
    }

    /// Builds the indexes `prepare` dropped, from the schema's layout, in the order they were dropped; those of
    /// the tables in `later` stay dropped for a second call (which builds the rest). The order of the
    /// `CREATE INDEX` statements, hence of `sqlite_master`, is the same either way as long as `later` holds
    /// the last tables `prepare` was given.
    mutating func restore(_ connection: Connection, except later: Set<String> = []) throws {
        guard !dropped.isEmpty else { return }
        let now = dropped.filter { !later.contains($0.table) }
        try Self.withSortSettings(connection) {
            for index in now { try connection.execute(index.sql) }
        }
        connection.clearStatementCache()
        dropped = dropped.filter { later.contains($0.table) }
    }

    /// Urna's `CREATE INDEX` statements for `schema`, by table: (index name, SQL).
    static func indexStatements(for schema: Schema) -> [String: [(name: String, sql: String)]] {
        var out: [String: [(name: String, sql: String)]] = [:]
        for t in schema.tableTypes {
            for sql in StorageLayout.indexSQL(for: t, in: schema) where sql.hasPrefix("CREATE INDEX ") {
                // The layout writes `CREATE INDEX "name" ON "table"(...)` with validated names.
                let parts = sql.split(separator: "\"", omittingEmptySubsequences: false)
                guard parts.count >= 4 else { continue }
                out[String(parts[3]), default: []].append((String(parts[1]), sql))
            }
        }
        return out
    }
}
