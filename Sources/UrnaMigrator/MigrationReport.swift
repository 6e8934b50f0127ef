import Foundation
import UrnaStore

/// What a migration did (or, for a dry run, would do): per step and in total.
///
/// ```swift
/// let report = try migrator.dryRun(path: "elections.sqlite")
/// print(report.renderText())
/// ```
public struct MigrationReport: Sendable, Codable {
    /// How the run or dry run ended.
    public enum Outcome: String, Sendable, Codable {
        /// The real run committed.
        case applied
        /// A dry run that would succeed.
        case previewed
        /// A dry run that found problems (the real run would change nothing and fail).
        case failed
    }

    public let family: String
    public var path: String
    public let fromVersion: Int
    public let toVersion: Int
    public let dryRun: Bool
    public var outcome: Outcome
    /// The versions the file passes through, from its own to the target.
    public var versionPath: [Int]
    public var steps: [StepReport] = []
    /// The backup kept next to the file (real runs).
    public var backupPath: String?
    /// Where an earlier backup at `backupPath` that held other data was kept (never replaced), or nil.
    public var earlierBackupKeptAt: String?
    /// Problems found, at most the first 50 (`failureCount` counts them all).
    public var failures: [ValidationFailure] = []
    public var failureCount = 0
    /// The checks that ran before commit, and what they found.
    public var checks: [CheckResult] = []
    public var countsBefore: [String: Int] = [:]
    public var countsAfter: [String: Int] = [:]
    public var durationSeconds: Double = 0
    /// Dry runs: the time the real run should take (copying the file for the backup plus the steps).
    public var projectedSeconds: Double?
    /// The free space the (real) run needs on the file's disk, measured from the file before it started.
    public var spaceNeed: SpaceNeed?
    /// Dry runs: the free bytes on the disk beside the file when the preview ran, nil when they cannot be told.
    public var spaceAvailable: Int64?
    /// How much the file and its journal grew during the run: the larger of the growth measured just before the
    /// commit and just after it (when the commit's checkpoint has grown the file and the WAL still holds its pages).
    public var measuredGrowthBytes: Int64?
    /// The file's size before and after `VACUUM`, when `MigrationOptions.vacuum` asked for it (a dry run
    /// vacuums its copy: the size the real run would leave).
    public var vacuum: VacuumResult?

    /// Dry runs: the real run would be refused before it starts because the disk beside the file has less free than
    /// `spaceNeed` (the preview itself runs on a copy elsewhere, so its steps can succeed while the real run cannot).
    public var realRunLacksSpace: Bool {
        guard dryRun, let need = spaceNeed, let free = spaceAvailable else { return false }
        return free < need.totalBytes
    }

    /// Every type's objects created, deleted and changed by closures, summed over steps.
    public var totalActivity: [TypeActivity] {
        var byType: [String: TypeActivity] = [:]
        var order: [String] = []
        for s in steps {
            for a in s.activity {
                if byType[a.type] == nil { order.append(a.type) }
                byType[a.type, default: TypeActivity(type: a.type)].add(a)
            }
        }
        return order.compactMap { byType[$0] }
    }
}

/// One step of a report.
public struct StepReport: Sendable, Codable {
    public let fromVersion: Int
    public let toVersion: Int
    public let summary: String
    /// `SchemaDescriptor.checksum` of the step's target descriptor (also in the history row).
    public let descriptorChecksum: String
    public var diff: SchemaDiff
    /// The statements the step ran, in order; per-object statements appear once.
    public var sql: [String] = []
    public var countsBefore: [String: Int] = [:]
    /// The objects per type after the step; empty when the step stopped before it finished (see `completed`).
    public var countsAfter: [String: Int] = [:]
    /// Whether the step ran to its end and counted its objects after it; false when it stopped on a failure first
    /// (a closure that threw, a check that refused it): its changes were rolled back and it has no counts after.
    public var completed = false
    /// Objects enumerated, created, deleted and changed per type.
    public var activity: [TypeActivity] = []
    /// Data the step discards.
    public var droppedData: [DroppedData] = []
    /// A few objects of each changed type before and after.
    public var samples: [TypeSample] = []
    public var failures: [ValidationFailure] = []
    /// Types whose objects were copied one by one through Swift (the others with one SQL statement).
    public var copiedThroughSwift: [String] = []
    /// Types whose old rows were read on a second thread while the closures ran (`MigrationOptions.readAhead`).
    public var readAhead: [String] = []
    /// Types this step did not write because the next step of the run rebuilds them again: the next step read
    /// their rows through this step's SELECT (fused steps: each table rebuilt once).
    public var fusedIntoNextStep: [String] = []
    /// Links set to nil and list entries removed because the objects they pointed at were deleted in this step
    /// (by the closure, or `deleteData`), per `Type.property`: `["Visit.site": 6, "Visit.observers": 8]`.
    public var clearedLinks: [String: Int] = [:]
    /// Types the closure enumerated but only read (fused runs): their objects were written in one statement after
    /// the closure, not one by one while it ran.
    public var readOnlyPasses: [String] = []
    /// Types such a closure only read whose change was dropping columns: `ALTER TABLE ... DROP COLUMN` in place,
    /// no copy of the table.
    public var droppedInPlace: [String] = []
    public var objectsTouched = 0
    public var durationSeconds: Double = 0

    init(fromVersion: Int, toVersion: Int, summary: String, descriptorChecksum: String, diff: SchemaDiff) {
        self.fromVersion = fromVersion
        self.toVersion = toVersion
        self.summary = summary
        self.descriptorChecksum = descriptorChecksum
        self.diff = diff
    }
}

/// What the step did to one type's objects.
public struct TypeActivity: Sendable, Codable, Equatable {
    public let type: String
    /// Old objects the closure saw.
    public var enumerated = 0
    public var created = 0
    public var deleted = 0
    /// New objects the closure changed (a set that stored a different value).
    public var changed = 0
    /// Objects written into the new table (copied or rewritten).
    public var copied = 0
    /// Per property: values converted with loss under an allowance.
    public var lossyValues: [String: Int] = [:]

    public init(
        type: String, enumerated: Int = 0, created: Int = 0, deleted: Int = 0, changed: Int = 0, copied: Int = 0,
        lossyValues: [String: Int] = [:]
    ) {
        self.type = type
        self.enumerated = enumerated
        self.created = created
        self.deleted = deleted
        self.changed = changed
        self.copied = copied
        self.lossyValues = lossyValues
    }

    var isEmpty: Bool {
        enumerated == 0 && created == 0 && deleted == 0 && changed == 0 && copied == 0 && lossyValues.isEmpty
    }

    mutating func add(_ other: TypeActivity) {
        enumerated += other.enumerated
        created += other.created
        deleted += other.deleted
        changed += other.changed
        copied += other.copied
        for (k, v) in other.lossyValues { lossyValues[k, default: 0] += v }
    }
}

/// Data an upgrade discards: non-nil values of a removed property (or rows of a removed list), or
/// the objects of a removed type (`property` nil).
public struct DroppedData: Sendable, Codable, Equatable {
    public let type: String
    public let property: String?
    public let values: Int
    /// The step's closure read this data on every object before it went (it may have moved it elsewhere, as
    /// people v1 moves firstName and lastName into fullName); false: nothing read it.
    public let readByClosure: Bool

    public init(type: String, property: String?, values: Int, readByClosure: Bool = false) {
        self.type = type
        self.property = property
        self.values = values
        self.readByClosure = readByClosure
    }
}

/// Sample objects of one type, before and after the step (same objects, same order).
public struct TypeSample: Sendable, Codable, Equatable {
    public let type: String
    public let before: [ObjectSample]
    public let after: [ObjectSample]
}

/// One object as text, property by property.
public struct ObjectSample: Sendable, Codable, Equatable {
    public let key: String
    public let fields: [SampleField]

    /// The text of one field, or nil.
    public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }
}

/// One property of a sample object, its value as text.
public struct SampleField: Sendable, Codable, Equatable {
    public let name: String
    public let value: String
}

/// One check run before commit.
public struct CheckResult: Sendable, Codable, Equatable {
    public let name: String
    public let passed: Bool
    public let detail: String
}
