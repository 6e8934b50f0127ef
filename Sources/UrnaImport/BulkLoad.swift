import UrnaStore

/// Speeds up loading into empty tables: their secondary indexes are dropped before the rows go in
/// and re-created (from the exact SQL the file recorded for them) before the transaction commits,
/// which builds each index by one sort instead of one B-tree insert per row.
///
/// Tables that already hold rows keep their indexes: the upserts need them to find existing rows.
struct BulkLoad {
    private var dropped: [(name: String, sql: String)] = []

    /// Drops the secondary indexes of those of `tables` that are empty (inside the open transaction).
    mutating func prepare(_ connection: Connection, tables: [String]) throws {
        for table in tables {
            let isEmpty = try connection.rows("SELECT 1 FROM \(Identifier.quoted(table)) LIMIT 1").isEmpty
            guard isEmpty else { continue }
            let indexes = try connection.rows(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name",
                [.text(table)])
            for row in indexes {
                guard case .text(let name) = row[0], case .text(let sql) = row[1] else { continue }
                dropped.append((name, sql))
                try connection.execute("DROP INDEX \(Identifier.quoted(name))")
            }
        }
        if !dropped.isEmpty { connection.clearStatementCache() }
    }

    /// Page cache while the indexes are built. SQLite's sorter keeps runs of up to the cache's size in
    /// memory before merging them: 4 MiB runs sort in the processor's caches, and building the ten indexes of
    /// the 500k + 1M benchmark took about 15% less time than with the import's 32 MiB cache (and 12 MB of
    /// memory instead of 86 MB, measured with sqlite3 on the benchmark's file).
    static let indexBuildCacheKiB = 4096

    /// Re-creates every index `prepare` dropped.
    mutating func restore(_ connection: Connection) throws {
        guard !dropped.isEmpty else { return }
        let cacheSize = try connection.integer("PRAGMA cache_size")
        try connection.execute("PRAGMA cache_size = -\(Self.indexBuildCacheKiB)")
        for index in dropped { try connection.execute(index.sql) }
        try connection.execute("PRAGMA cache_size = \(cacheSize)")
        connection.clearStatementCache()
        dropped = []
    }
}
