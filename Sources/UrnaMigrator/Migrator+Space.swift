import Foundation
import UrnaStore

/// The free space a run needs, measured from the file before it starts: an upper bound on how much the file and its
/// journal grow during the run, for the changes the plan can see (see `workBytes`).
public struct SpaceNeed: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Bytes the tables (with their indexes and list tables) the plan rewrites take now, read with `dbstat`.
    public let rewrittenBytes: Int64
    /// Bytes the steps add beyond those tables, estimated: the columns, keys and indexes they add to the rows of
    /// the types they keep, and the objects of new types their closures make from what the steps take away (a
    /// list made into objects, a type merged or renamed, properties moved out), at twice its size.
    public var addedBytes: Int64 = 0
    /// What the file and its journal grow by, at most: the new tables (`rewrittenBytes + addedBytes`) while the
    /// old ones still exist; in WAL mode the WAL holds every page written until the commit's checkpoint copies
    /// them into the file (the new tables again, and the old tables' pages when SQLite zeroes freed pages or a
    /// later step reuses them); a rollback journal holds the old pages a tenth larger. Plus 256 KB for the
    /// schema, the history row and the journal's header pages.
    public let workBytes: Int64
    /// The backup copy (0 without a backup, or when it goes to another disk: see `backupOnOtherDisk`).
    public let backupBytes: Int64

    /// What the file's disk needs free.
    public var totalBytes: Int64 { workBytes + backupBytes }

    public var description: String {
        var s = "\(Self.megabytes(workBytes)) for the rewritten tables (\(Self.megabytes(rewrittenBytes)) now"
        if addedBytes > 0 { s += ", up to \(Self.megabytes(addedBytes)) added by the steps" }
        s += ") and the journal"
        if backupBytes > 0 { s += " + \(Self.megabytes(backupBytes)) for the backup" }
        return s
    }

    /// Bytes as megabytes with one decimal ("12.3 MB").
    public static func megabytes(_ b: Int64) -> String { String(format: "%.1f MB", Double(b) / 1_048_576) }

    /// The growth bound for `rewritten` bytes of tables rewritten and `added` bytes added, in WAL mode or not,
    /// with SQLite zeroing freed pages (`secure_delete`) or not. `rewritten` counts a second time (the old pages
    /// in the journal) unless in WAL mode without `secure_delete`, where only a later step's reuse rewrites them:
    /// counted then too, an upper bound.
    static func workBytes(rewritten: Int64, added: Int64, wal: Bool) -> Int64 {
        let new = rewritten + added
        let journal = wal ? new + rewritten + (new + rewritten) / 100 : rewritten + rewritten / 10
        return new + journal + 262_144
    }
}

extension Migrator {
    /// The free space running `plan` needs on the file's disk, measured from the file: the rewritten tables,
    /// their journal and (with a backup beside the file) the backup.
    public func spaceNeed(for plan: MigrationPlan, backup: BackupPolicy = .besideFile) throws -> SpaceNeed {
        let backupPath = Self.backupPath(plan, backup)
        let sameDisk = backupPath.map { Self.device(near: $0) == Self.device(near: plan.path) } ?? false
        return try Self.spaceNeed(plan, path: plan.path, backupOnSameDisk: sameDisk).need
    }

    static func backupPath(_ plan: MigrationPlan, _ backup: BackupPolicy) -> String? {
        switch backup {
        case .none: nil
        case .besideFile: FileCopy.defaultBackupPath(for: plan.path, version: plan.fromVersion)
        case .at(let p): p
        }
    }

    /// The bytes the tables a plan rewrites take in the file, measured: each type whose table any step
    /// changes (every type, for a step with a closure, which may enumerate any of them), with its indexes and
    /// list tables. Falls back to the whole file's size where `dbstat` is missing.
    static func rewrittenBytes(_ plan: MigrationPlan, connection c: Connection) -> Int64 {
        var types = Set<String>()
        for step in plan.resolved {
            for t in step.from.tableTypes {
                if step.closure != nil || step.to[type: t.name].map({ changed(t, $0, step) }) ?? true {
                    types.insert(t.name)
                }
            }
        }
        let pageSize = (try? c.integer("PRAGMA page_size")) ?? 4096
        let pages = (try? c.integer("PRAGMA page_count")) ?? 0
        let whole = Int64(pageSize) * Int64(pages)
        guard !types.isEmpty else { return 0 }
        var total: Int64 = 0
        do {
            let objects = try c.rows("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")
            for r in objects {
                guard case .text(let name) = r[0], case .text(let table) = r[1] else { continue }
                let owner = types.contains(table) || types.contains { table.hasPrefix($0 + "_") }
                guard owner else { continue }
                total += try c.integer(
                    "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ? AND aggregate = TRUE", [.text(name)])
            }
        } catch {
            return whole
        }
        return min(total, whole)
    }

    /// Whether a step rewrites a type's table (its CREATE TABLE changes, or a property is renamed).
    static func changed(_ old: ObjectSchema, _ new: ObjectSchema, _ step: ResolvedStep) -> Bool {
        StorageLayout.createTableSQL(old, in: step.from) != StorageLayout.createTableSQL(new, in: step.to)
            || step.renames.contains { $0.type == old.name }
            || StorageLayout.indexSQL(for: old, in: step.from) != StorageLayout.indexSQL(for: new, in: step.to)
    }

    /// The need of a run on the file at `path`, measured there before the run starts (see `SpaceNeed.workBytes`),
    /// with the file's bytes again for the backup when `backupOnSameDisk`; also the file's bytes (its pages: what a
    /// backup copies). The one figure the run checks and reports, and the dry run reports (measured on its copy
    /// before the preview changes it).
    static func spaceNeed(_ plan: MigrationPlan, path: String, backupOnSameDisk: Bool) throws -> (
        need: SpaceNeed, fileBytes: Int64
    ) {
        let c = try RecordedFile.open(path, readOnly: true)
        let fileBytes = Int64(try c.integer("PRAGMA page_size")) * Int64(try c.integer("PRAGMA page_count"))
        let rewritten = rewrittenBytes(plan, connection: c)
        let added = addedBytes(plan, connection: c)
        let wal = (try? c.scalar("PRAGMA journal_mode")) == .text("wal")
        let need = SpaceNeed(
            rewrittenBytes: rewritten, addedBytes: added,
            workBytes: SpaceNeed.workBytes(rewritten: rewritten, added: added, wal: wal),
            backupBytes: backupOnSameDisk ? fileBytes : 0)
        return (need, fileBytes)
    }

    /// The bytes the plan's steps add beyond the tables they rewrite (`SpaceGrowth`); where `dbstat` is missing,
    /// the whole file's size once more for each step that adds types.
    static func addedBytes(_ plan: MigrationPlan, connection c: Connection) -> Int64 {
        var growth = SpaceGrowth(connection: c)
        var total: Int64 = 0
        for step in plan.resolved {
            total += growth.addedColumnBytes(step)
            do {
                total += try growth.createdBytes(step)
            } catch {
                let pageSize = (try? c.integer("PRAGMA page_size")) ?? 4096
                total += Int64(pageSize) * Int64((try? c.integer("PRAGMA page_count")) ?? 0)
            }
        }
        return total
    }

    /// Free bytes (for this user) on the disk holding `path`'s folder, or nil when it cannot be told.
    package static func freeBytes(near path: String) -> Int64? {
        let folder = PathText.folder(of: path)
        var s = statvfs()
        guard statvfs(folder.isEmpty ? "." : folder, &s) == 0 else { return nil }
        return Int64(s.f_bavail) * Int64(s.f_frsize)
    }

    /// The device of the disk holding `path`'s folder.
    static func device(near path: String) -> UInt64? {
        let folder = PathText.folder(of: path)
        var st = stat()
        guard stat(folder.isEmpty ? "." : folder, &st) == 0 else { return nil }
        return UInt64(st.st_dev)
    }

    /// Refuses, before anything is written, a run the disks cannot hold: the file's disk needs the rewritten
    /// tables' room (and the backup's, when it goes there); another disk holding the backup needs the backup's.
    static func checkSpace(_ plan: MigrationPlan, path: String, backupPath: String?) throws -> SpaceNeed {
        let sameDisk = backupPath.map { device(near: $0) == device(near: path) } ?? true
        let (need, backupBytes) = try spaceNeed(plan, path: path, backupOnSameDisk: backupPath != nil && sameDisk)
        if let b = backupPath, !sameDisk, let free = freeBytes(near: b), free < backupBytes {
            throw MigrationError.insufficientSpace(
                path: path, backup: b, needed: backupBytes, available: free,
                detail: "the backup takes \(SpaceNeed.megabytes(backupBytes))")
        }
        if let free = freeBytes(near: path), free < need.totalBytes {
            throw MigrationError.insufficientSpace(
                path: path, backup: sameDisk ? backupPath : nil, needed: need.totalBytes, available: free,
                detail: need.description)
        }
        return need
    }
}
