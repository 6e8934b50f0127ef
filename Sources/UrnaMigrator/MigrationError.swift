import Foundation
import UrnaStore

/// Why a migration did not run (or stopped), said so a person can fix it; `exitCode` tells a
/// command-line tool which exit status fits.
public enum MigrationError: Error, Sendable, CustomStringConvertible {
    /// No file at the path.
    case fileNotFound(path: String)
    /// The file has no `_urna_schema` table (not made by Urna) or its descriptor cannot be read.
    case notAnUrnaFile(path: String, reason: String)
    /// The file records a schema in `_urna_schema`, but its descriptor cannot be read or used (edited by hand,
    /// damaged): nothing was changed.
    case damagedDescriptor(path: String, reason: String)
    /// The file's family is not one this program knows.
    case unknownFamily(path: String, family: String, known: [String])
    /// The file belongs to another family than the migrator's.
    case familyMismatch(path: String, file: String, migrator: String)
    /// The file is newer than every version this program knows: never downgraded.
    case newerThanKnown(path: String, family: String, fileVersion: Int, latest: Int)
    /// A version the family does not declare.
    case unknownVersion(family: String, version: Int, known: [Int])
    /// The file is older than the family's minimum supported version (its history was squashed).
    case olderThanSupported(path: String, family: String, fileVersion: Int, minimum: Int, advice: String?)
    /// The target is older than the file (downgrades are not supported).
    case downgrade(path: String, fileVersion: Int, target: Int)
    /// The file is already at the target version: nothing to do (not a failure).
    case alreadyCurrent(path: String, family: String, version: Int)
    /// The file's tables differ from the descriptor it records.
    case drift(path: String, differences: [String])
    /// The file holds values its own version's contract cannot read (text in an integer column, a blob in a
    /// string): migrating would drop or change them, so nothing was changed.
    case valuesDoNotFit(path: String, version: Int, problems: [String])
    /// The plan has changes that need a closure or an allowance and have neither.
    case refused(path: String, reasons: [PlanRefusal])
    /// The file changed between planning and running.
    case planOutdated(path: String, reason: String)
    /// A migration closure threw; nothing was changed.
    case closureFailed(from: Int, to: Int, message: String)
    /// Checks before commit found problems; nothing was changed.
    case validationFailed(path: String, failures: [ValidationFailure], total: Int)
    /// The backup copy could not be written; nothing was changed.
    case backupFailed(path: String, reason: String)
    /// `MigrationBackup.restore` would not restore from that backup (none found, damaged, another family's);
    /// nothing was changed.
    case restoreRefused(path: String, backup: String, reason: String)
    /// The dry run could not make its private copy in the temporary folder (TMPDIR full or unwritable).
    case previewCopyFailed(folder: String, reason: String)
    /// SQLite failed (disk full, I/O error, ...); nothing was changed.
    case storage(SQLiteError)
    /// The family's declaration is inconsistent (a bug in the code that declares it).
    case invalidFamily(family: String, problems: [String])
    /// A plain SQLite file's tables do not match the version it was to be adopted at; nothing was changed.
    case adoptionRefused(path: String, family: String, version: Int, differences: [String])
    /// The file to adopt already records a schema (another version or family than the one asked): it is migrated,
    /// not adopted; nothing was changed.
    case alreadyAdopted(path: String, family: String, version: Int)
    /// Another process is migrating (or writing) the file right now; nothing was changed.
    case busy(path: String)
    /// The run was cancelled (`MigrationCancellation`, or the task running it); it was rolled back.
    case cancelled(path: String)
    /// Another migrator (process `pid`) is running on the file; nothing was changed.
    case migrationRunning(path: String, pid: Int32?)
    /// The disk holding the file (or, with `backup`, the backup) has less free space than the run measured it
    /// needs; nothing was changed.
    case insufficientSpace(path: String, backup: String?, needed: Int64, available: Int64, detail: String)
    /// The disk holding the file has less free space than `task` (adopting it, restoring it) needs, measured
    /// from the file before anything is written; nothing was changed.
    case noRoom(path: String, task: String, needed: Int64, available: Int64, detail: String)

    /// The exit status a command-line tool should use: 0 nothing to do, 1 failure, 65 bad data, drift
    /// or refused plan, 66 missing file.
    public var exitCode: Int32 {
        switch self {
        case .alreadyCurrent: 0
        case .fileNotFound: 66
        case .notAnUrnaFile, .damagedDescriptor, .unknownFamily, .familyMismatch, .newerThanKnown, .unknownVersion,
            .downgrade, .drift,
            .valuesDoNotFit, .restoreRefused, .refused, .validationFailed, .planOutdated, .adoptionRefused,
            .alreadyAdopted, .olderThanSupported:
            65
        case .closureFailed, .backupFailed, .previewCopyFailed, .storage, .invalidFamily, .busy, .insufficientSpace,
            .noRoom, .migrationRunning,
            .cancelled:
            1
        }
    }

    /// The message with "this program" replaced by the name of the program that reports it.
    public func description(programName: String) -> String {
        if case .notAnUrnaFile(let p, let reason) = self, programName != "urna" {
            // An app's users know the app, not the library under it.
            return
                "\(p) is not a \(programName) file (\(reason)): only files \(programName) made or adopted record the "
                + "schema a migration needs; to bring a plain SQLite file under a family: `\(programName) adopt --db \(p) "
                + "--family NAME --version N`"
        }
        return description.replacingOccurrences(of: "this program", with: programName)
            .replacingOccurrences(of: "the `init` command", with: "`\(programName) init`")
            .replacingOccurrences(of: "`schema --family", with: "`\(programName) schema --family")
            .replacingOccurrences(of: "`sql --write`", with: "`\(programName) sql --write`")
    }

    /// Another migrator or writer held the file (`migrationRunning`, `busy`): nothing was changed, and a later
    /// attempt may succeed.
    public var isAnotherRunHoldingTheFile: Bool {
        switch self {
        case .migrationRunning, .busy: true
        default: false
        }
    }

    /// False only for "nothing to do".
    public var isFailure: Bool { exitCode != 0 }

    public var description: String {
        switch self {
        case .fileNotFound(let p):
            return "\(p) does not exist: check the path (create a file with the `init` command)"
        case .notAnUrnaFile(let p, let reason):
            return "\(p) is not an Urna file (\(reason)): only files made by Urna record the schema a migration needs"
        case .damagedDescriptor(let p, let reason):
            return "\(p): " + DamagedDescriptor.detail(path: p, reason: reason)
        case .unknownFamily(let p, let f, let known):
            return
                "\(p) holds schema family '\(f)', which this program does not know (it knows \(known.joined(separator: ", "))): use the program that made the file, or a newer version of it"
        case .familyMismatch(let p, let f, let m):
            return "\(p) holds family '\(f)', not '\(m)': migrate it with the '\(f)' family"
        case .newerThanKnown(let p, let f, let v, let latest):
            return
                "\(p) is at \(f) version \(v), newer than every version this program knows (latest \(latest)): use a newer version of the program that made it; files are never downgraded"
        case .unknownVersion(let f, let v, let known):
            return
                "\(f) has no version \(v) (it has \(known.map(String.init).joined(separator: ", "))): pick one of those"
        case .olderThanSupported(let p, let f, let v, let minimum, let advice):
            return
                "\(p) is at \(f) version \(v), older than version \(minimum), the oldest this program upgrades (the "
                + "steps before it were squashed); the file was not changed: "
                + (advice
                    ?? "upgrade it to version \(minimum) first with an earlier release of the program that made it, then run this one")
        case .downgrade(let p, let v, let t):
            return
                "\(p) is at version \(v); migrating to \(t) would be a downgrade, which is not supported: restore a backup instead"
        case .alreadyCurrent(let p, let f, let v):
            return "\(p) is already at \(f) version \(v): nothing to do"
        case .drift(let p, let diffs):
            return "\(p) does not match the schema it records (was it changed by hand?):\n"
                + diffs.map { "  - \($0)" }.joined(separator: "\n")
                + "\nfix the file (or restore a backup) so its tables match its descriptor, then migrate"
        case .valuesDoNotFit(let p, let v, let problems):
            return "\(p) holds values that version \(v) of its schema does not store (was it changed by hand or by "
                + "another tool?); migrating would drop or change them, so the file was not changed:\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
                + "\ncorrect or clear those values (for example with `sql --write` and an UPDATE naming the rows), "
                + "then migrate"
        case .refused(let p, let reasons):
            return "the upgrade of \(p) is refused:\n" + reasons.map { "  - \($0)" }.joined(separator: "\n")
        case .planOutdated(let p, let reason):
            return "\(p) changed since the plan was made (\(reason)): plan again"
        case .closureFailed(let from, let to, let message):
            return
                "the migration closure of step v\(from) → v\(to) failed: \(message); the file's data and version were "
                + "not changed (a real run records the failure in _urna_history)"
        case .validationFailed(let p, let failures, let total):
            var s =
                "the upgrade of \(p) failed its checks (\(total) problem\(total == 1 ? "" : "s")); the file's data and "
                + "version were not changed (a real run records the failure in _urna_history):\n"
            s += failures.map { "  - \($0)" }.joined(separator: "\n")
            if total > failures.count { s += "\n  ... and \(total - failures.count) more" }
            return s + "\nrun with --dry-run to see every problem"
        case .backupFailed(let p, let reason):
            let full = reason.lowercased().contains("space") || reason.lowercased().contains("full")
            // restore's safety copy has no --backup option: its name is fixed beside the file.
            if p.contains(".before-restore") {
                return "cannot write the copy of the file as it was, \(p): \(reason); the file was not changed ("
                    + (full ? "free some space on that disk)" : "move what is there away)")
            }
            return
                "cannot write the backup \(p): \(reason); the file was not changed ("
                + (full
                    ? "free some space or choose --backup PATH)" : "choose --backup PATH, or move what is there away)")
        case .restoreRefused(let p, let b, let reason):
            return "\(p) was not restored from \(b): \(reason); the file was not changed"
        case .previewCopyFailed(let folder, let reason):
            return "the dry run cannot copy the file into \(folder): \(reason); nothing was changed: point TMPDIR at a "
                + "folder with room for a copy of the file (and its -wal)"
        case .storage(let e):
            if e.isDiskFull {
                return "the disk is full (\(e.message)); the file was not changed: free some space and run again"
            }
            return "\(e); the file was not changed"
        case .invalidFamily(let f, let problems):
            return "the schema family \(f) is declared inconsistently: " + problems.joined(separator: "; ")
        case .alreadyAdopted(let p, let f, let v):
            return "\(p) cannot be adopted: it is already an Urna file (\(f) version \(v)): migrate it instead; "
                + "the file was not changed"
        case .adoptionRefused(let p, let f, let v, let diffs):
            return
                "\(p) cannot be adopted as \(f) version \(v): its tables differ from that version's storage contract:\n"
                + diffs.map { "  - \($0)" }.joined(separator: "\n")
                + "\nchange the tables to match (see `schema --family \(f) --version \(v)`) or pick the version they match; "
                + "the file was not changed"
        case .insufficientSpace(let p, let backup, let needed, let available, let detail):
            let figures =
                "it needs about \(SpaceNeed.megabytes(needed)) free (\(detail)), \(SpaceNeed.megabytes(available)) are free"
            if let backup {
                // The space check refuses before the backup is begun: nothing was written, no disk filled up.
                return "the upgrade was refused before writing the backup \(backup): the disk has too little free "
                    + "space: \(figures) on that disk; nothing was written and the file was not changed: free some "
                    + "space or choose --backup PATH on another disk"
            }
            return
                "the disk holding \(p) is full for this upgrade: \(figures); nothing was changed: free some space and run again"
        case .noRoom(let p, let task, let needed, let available, let detail):
            return "the disk holding \(p) has no room to \(task): it needs about \(SpaceNeed.megabytes(needed)) free "
                + "(\(detail)), \(SpaceNeed.megabytes(available)) are free; the file was not changed: free some space "
                + "and run again"
        case .cancelled(let p):
            return "the migration of \(p) was cancelled; it was rolled back and the file was not changed"
        case .migrationRunning(let p, let pid):
            return "another migration is running on \(p)" + (pid.map { " (process \($0))" } ?? "")
                + "; the file was not changed: run again when it finishes"
        case .busy(let p):
            return "\(p) is locked by another process that is writing to it (or another migration); the file was not "
                + "changed: try again when it finishes"
        }
    }
}

/// Why a plan is refused, and what fixes it.
public struct PlanRefusal: Sendable, Codable, Equatable, CustomStringConvertible {
    public let fromVersion: Int
    public let toVersion: Int
    public let type: String
    public let property: String?
    public let reason: String
    public let fix: String

    public var description: String {
        let what = property.map { "\(type).\($0)" } ?? type
        return "v\(fromVersion) → v\(toVersion): \(what): \(reason); \(fix)"
    }
}

/// One problem found while running or checking a step.
public struct ValidationFailure: Sendable, Codable, Equatable, CustomStringConvertible {
    /// `closure`, `conversion`, `required`, `unique`, `foreign-key`, `integrity`, `shape`, `view`, ...
    public let check: String
    public let type: String?
    public let property: String?
    public let message: String

    public init(check: String, type: String? = nil, property: String? = nil, message: String) {
        self.check = check
        self.type = type
        self.property = property
        self.message = message
    }

    public var description: String {
        let what = [type, property].compactMap { $0 }.joined(separator: ".")
        return "[\(check)] " + (what.isEmpty ? "" : "\(what): ") + message
    }
}
