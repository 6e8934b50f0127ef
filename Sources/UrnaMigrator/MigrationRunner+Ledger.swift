import Foundation
import UrnaStore

/// The run ledger: `_urna_history` gets a row for a failed run too (outcome, message), and every row of a run
/// the app's version when the app gives one (`MigrationOptions.appVersion`). The columns `outcome`,
/// `message` and `app_version` are added to the table the first time one is needed, so files whose runs
/// never need them keep the table exactly as the storage contract makes it.
enum RunLedger {
    static let columns = ["outcome", "message", "app_version"]

    static func ensureColumns(_ c: Connection) throws {
        let have = Set(try c.rows("PRAGMA table_info(\"\(StorageLayout.historyTable)\")").map { "\($0[1])" })
        for name in columns where !have.contains(name) {
            try c.execute("ALTER TABLE \"\(StorageLayout.historyTable)\" ADD COLUMN \"\(name)\" TEXT")
        }
    }

    /// The largest row id before a run writes its rows.
    static func lastId(_ c: Connection) -> Int64 {
        (try? c.integer("SELECT coalesce(max(id), 0) FROM \"\(StorageLayout.historyTable)\"")).map { Int64($0) } ?? 0
    }

    /// Marks the rows a successful run wrote (inside its transaction) with the app's version.
    static func markApplied(_ c: Connection, after id: Int64, appVersion: String) throws {
        try ensureColumns(c)
        try c.run(
            "UPDATE \"\(StorageLayout.historyTable)\" SET outcome = 'applied', app_version = ? WHERE id > ?",
            [.text(appVersion), .integer(id)])
    }

    /// Records a failed run in a transaction of its own, after the run's was rolled back. Best effort: a file
    /// that cannot take the row (a full disk, say) keeps the error the run already reports.
    static func recordFailure(
        _ c: Connection, family: String, plan: MigrationPlan, seconds: Double, message: String, appVersion: String?
    ) {
        do {
            try c.execute("BEGIN IMMEDIATE")
            try ensureColumns(c)
            try c.run(
                "INSERT INTO \"\(StorageLayout.historyTable)\" (family, from_version, to_version, applied_at, duration_ms, objects_touched, descriptor_checksum, outcome, message, app_version) VALUES (?, ?, ?, ?, ?, 0, ?, 'failed', ?, ?)",
                [
                    .text(family), .integer(Int64(plan.fromVersion)), .integer(Int64(plan.toVersion)),
                    .text(ISODate.format(Date())), .integer(Int64((seconds * 1000).rounded())),
                    .text(plan.steps.last?.descriptorChecksum ?? ""), .text(String(message.prefix(2000))),
                    appVersion.map(SQLValue.text) ?? .null,
                ])
            try c.execute("COMMIT")
        } catch {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
        }
    }

    /// Drops the ledger's added columns from a shape, so they are not counted as drift.
    static func withoutLedgerColumns(_ shape: DatabaseShape, expected: DatabaseShape) -> DatabaseShape {
        var s = shape
        guard let t = s.tables[StorageLayout.historyTable], let e = expected.tables[StorageLayout.historyTable]
        else { return s }
        let kept = t.columns.filter { !columns.contains($0.name) }
        guard kept.count != t.columns.count else { return s }
        s.tables[StorageLayout.historyTable] = DatabaseShape.Table(
            name: t.name, columns: kept, foreignKeys: t.foreignKeys, indexes: t.indexes, sql: e.sql)
        return s
    }
}
