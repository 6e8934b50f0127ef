import Foundation
import UrnaStore

/// What an upgrade will do, decided before anything runs: the version path and, per step, the schema
/// diff, whether a closure runs, and the SQL of the automatic parts. Making a plan refuses upgrades
/// that can't be done safely (see `MigrationError`).
///
/// ```swift
/// let plan = try migrator.plan(path: "people.sqlite")
/// print(plan.renderText())
/// let report = try migrator.run(plan, backupPath: nil)
/// ```
public struct MigrationPlan: Sendable {
    public let family: String
    public let path: String
    public let fromVersion: Int
    public let toVersion: Int
    public let steps: [PlannedStep]
    /// The file's own views, triggers and indexes (not the family's) that use a table or column the upgrade
    /// removes or renames: recreating them would fail.
    public let brokenUserObjects: [String]
    let resolved: [ResolvedStep]
    /// The checksum of the descriptor the file recorded when the plan was made.
    let recordedChecksum: String

    /// The versions the file passes through.
    public var versionPath: [Int] { [fromVersion] + steps.map(\.toVersion) }
}

/// One step of a plan.
public struct PlannedStep: Sendable, Codable {
    public let fromVersion: Int
    public let toVersion: Int
    public let summary: String
    public let hasClosure: Bool
    public let diff: SchemaDiff
    /// The statements of the automatic parts (closure work shows in a dry run).
    public let sql: [String]
    /// Types whose objects will be copied one by one through Swift, and why.
    public let copiedThroughSwift: [String]
    public let descriptorChecksum: String
}

extension MigrationPlan {
    /// The plan for people: the version path and, per step, the schema changes and SQL.
    public func renderText() -> String {
        var out = [
            "Plan for \(path): \(family) v\(fromVersion) → v\(toVersion) (\(steps.count) step\(steps.count == 1 ? "" : "s"), one transaction)"
        ]
        for s in steps {
            out.append("")
            out.append(
                "Step v\(s.fromVersion) → v\(s.toVersion)" + (s.summary.isEmpty ? "" : ": \(s.summary)")
                    + (s.hasClosure ? " [closure]" : " [automatic]"))
            out += s.diff.renderLines(indent: "  ")
            for c in s.copiedThroughSwift { out.append("  copied through Swift: \(c)") }
            out.append("  SQL:")
            for sql in s.sql {
                out.append(
                    "    " + sql.replacingOccurrences(of: "\n", with: "\n    ") + (sql.hasPrefix("--") ? "" : ";"))
            }
        }
        if !brokenUserObjects.isEmpty {
            out.append("")
            out.append("Your own objects that would break:")
            for b in brokenUserObjects { out.append("  - \(b)") }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// The plan as one JSON object (stable key order).
    public func renderJSON() -> String {
        struct Body: Encodable {
            let family: String
            let path: String
            let fromVersion: Int
            let toVersion: Int
            let versionPath: [Int]
            let steps: [PlannedStep]
            let brokenUserObjects: [String]
        }
        return JSONRendering.encode(
            Body(
                family: family, path: path, fromVersion: fromVersion, toVersion: toVersion, versionPath: versionPath,
                steps: steps, brokenUserObjects: brokenUserObjects))
    }
}

/// Reading what a file records about itself.
enum RecordedFile {
    /// Opens an existing file (never creating one).
    static func open(_ path: String, readOnly: Bool) throws -> Connection {
        guard FileManager.default.fileExists(atPath: path) else { throw MigrationError.fileNotFound(path: path) }
        do {
            return try Connection(path: path, readOnly: readOnly, create: false)
        } catch let e as SQLiteError {
            throw MigrationError.notAnUrnaFile(path: path, reason: e.message)
        }
    }

    /// The schema the file records; throws when it records none.
    static func schema(in c: Connection, path: String) throws -> Schema {
        do {
            guard let s = try Store.recordedSchema(in: c) else {
                throw MigrationError.notAnUrnaFile(path: path, reason: "it has no \(StorageLayout.schemaTable) table")
            }
            return s
        } catch let e as SQLiteError {
            throw MigrationError.notAnUrnaFile(path: path, reason: e.message)
        } catch {
            if let reason = DamagedDescriptor.reason(of: error) {
                throw MigrationError.damagedDescriptor(path: path, reason: reason)
            }
            if let e = error as? StoreError { throw MigrationError.notAnUrnaFile(path: path, reason: e.description) }
            throw error
        }
    }

    /// Where the file's tables differ from its descriptor (and the descriptor from the family's).
    static func drift(in c: Connection, recorded: Schema, family: SchemaFamily?) throws -> [String] {
        var out: [String] = []
        let expected = try DatabaseShape.expected(for: recorded)
        let actual = RunLedger.withoutLedgerColumns(try DatabaseShape.read(c), expected: expected)
        // A file adopted from plain SQLite keeps its own CREATE TABLE text until a step rebuilds the table.
        let adopted =
            try c.tableExists(StorageLayout.historyTable)
            && c.integer(
                "SELECT count(*) FROM \"\(StorageLayout.historyTable)\" WHERE from_version = to_version AND objects_touched = 0"
            ) > 0
        out += actual.differences(
            from: expected, allowExtraIndexes: true, allowExtraTables: true, compareTableText: !adopted)
        let userVersion = try c.userVersion()
        if userVersion != recorded.version {
            out.append("PRAGMA user_version is \(userVersion), the descriptor says version \(recorded.version)")
        }
        if let family, let declared = family.schema(version: recorded.version),
            SchemaDescriptor.encode(declared) != SchemaDescriptor.encode(recorded)
        {
            let diff = SchemaDiff(from: declared, to: recorded)
            let detail = diff.isEmpty ? "property details differ" : diff.renderLines(indent: "").joined(separator: "; ")
            out.append(
                "the descriptor the file records for version \(recorded.version) is not this program's version \(recorded.version) (\(detail))"
            )
        }
        return out
    }

    /// The history table's rows (applied steps, adoptions, failed runs), oldest first.
    static func history(in c: Connection, family: String) throws -> [HistoryEntry] {
        guard try c.tableExists(StorageLayout.historyTable) else { return [] }
        let have = Set(try c.rows("PRAGMA table_info(\"\(StorageLayout.historyTable)\")").map { "\($0[1])" })
        let ledger = RunLedger.columns.allSatisfy(have.contains)
        let extra = ledger ? ", outcome, message, app_version" : ""
        return try c.rows(
            "SELECT from_version, to_version, applied_at, duration_ms, objects_touched, descriptor_checksum\(extra) FROM \"\(StorageLayout.historyTable)\" WHERE family = ? ORDER BY id",
            [.text(family)]
        ).map { r in
            func int(_ v: SQLValue) -> Int { if case .integer(let i) = v { Int(i) } else { 0 } }
            func text(_ i: Int) -> String? { if ledger, case .text(let s) = r[i] { s } else { nil } }
            return HistoryEntry(
                fromVersion: int(r[0]), toVersion: int(r[1]), appliedAt: "\(r[2])", durationMs: int(r[3]),
                objectsTouched: int(r[4]),
                descriptorChecksum: "\(r[5])", outcome: text(6) ?? "applied", message: text(7), appVersion: text(8))
        }
    }
}

/// A row of the history table: one applied step, an adoption or a failed run.
public struct HistoryEntry: Sendable, Codable, Equatable {
    public let fromVersion: Int
    public let toVersion: Int
    public let appliedAt: String
    public let durationMs: Int
    public let objectsTouched: Int
    public let descriptorChecksum: String
    /// `applied` (a step, or an adoption when `fromVersion == toVersion`) or `failed` (a run rolled back).
    public var outcome: String = "applied"
    /// Why a failed run failed.
    public var message: String?
    /// The app's version that ran it, when the app said (`MigrationOptions.appVersion`).
    public var appVersion: String?
}
