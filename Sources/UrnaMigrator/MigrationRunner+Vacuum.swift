import Foundation
import UrnaStore

/// What `VACUUM` after a run did to the file's size (`MigrationOptions.vacuum`).
public struct VacuumResult: Sendable, Codable, Equatable {
    /// The file and its journal after the run's commit, checkpointed, before `VACUUM`.
    public let bytesBefore: Int64
    /// The same after `VACUUM` (and a checkpoint); nil when it failed.
    public let bytesAfter: Int64?
    public let seconds: Double
    /// Why `VACUUM` failed (the disk full, another connection reading); the upgrade itself is committed.
    public let error: String?
}

extension MigrationRunner {
    /// Rebuilds the committed file compactly (a rebuild leaves the old tables' pages free inside the file) and
    /// measures it before and after. A failure does not undo the committed upgrade: it is reported.
    func vacuum(_ c: Connection, path: String) -> VacuumResult {
        let inWAL = (try? c.scalar("PRAGMA journal_mode")) == .text("wal")
        func settle() { if inWAL { _ = try? c.rows("PRAGMA wal_checkpoint(TRUNCATE)") } }
        settle()
        let before = diskBytes(path)
        let started = Date()
        c.clearStatementCache()
        do {
            try c.execute("VACUUM")
            settle()
            return VacuumResult(
                bytesBefore: before, bytesAfter: diskBytes(path), seconds: Date().timeIntervalSince(started), error: nil
            )
        } catch let e as SQLiteError {
            return VacuumResult(
                bytesBefore: before, bytesAfter: nil, seconds: Date().timeIntervalSince(started), error: e.message)
        } catch {
            return VacuumResult(
                bytesBefore: before, bytesAfter: nil, seconds: Date().timeIntervalSince(started),
                error: "\(error)")
        }
    }
}
