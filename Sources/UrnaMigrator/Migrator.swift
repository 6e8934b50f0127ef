import Foundation
import UrnaStore

/// Where a real run keeps its backup copy.
public enum BackupPolicy: Sendable, Equatable {
    /// No backup (the run is still atomic: a failure leaves the file as it was).
    case none
    /// `<file>.v<from>.bak` next to the file (the default).
    case besideFile
    /// At this path (which must not exist).
    case at(String)
}

/// How thorough the last check before commit is.
public enum IntegrityCheck: String, Sendable, Codable {
    /// `PRAGMA quick_check` of the whole file (every page, the freelist, NOT NULL and CHECK constraints) and
    /// `PRAGMA integrity_check` of every table the run wrote, its indexes compared with it entry by entry (the
    /// default). Tables the run did not write are as they were before it.
    case full
    /// `PRAGMA quick_check`: the same without comparing indexes to their tables; faster.
    case quick
    /// Skip it (foreign keys, uniqueness, NOT NULL and the table shapes are still checked).
    case none
}

/// Knobs for runs and dry runs.
public struct MigrationOptions: Sendable {
    /// Objects per changed type shown before and after (dry runs default to 3).
    public var sample = 0
    public var integrityCheck = IntegrityCheck.full
    /// Problems listed in reports and errors (all are counted).
    public var maxFailures = 50
    /// PRAGMA statements run on the migration's connection before its transaction begins, e.g.
    /// `["cache_size = -200000"]` for a 200 MB page cache.
    public var pragmas: [String] = []
    /// Read old rows on a second thread, through a second connection, while the closures run (WAL files, first
    /// step of a run; see `OldRowPrefetcher`). Off: every row is read through the migration's connection.
    public var readAhead = true
    /// Losses this run may make without a closure, on top of each step's own allowances (what the command
    /// line's `--allow-loss Type.property` gives): e.g. `MigrationAllowance.loss(of: "Author.fullName")`.
    public var allowances: [MigrationAllowance] = []
    /// The app's version, recorded in `_urna_history` with every row of a real run, failed runs included
    /// (e.g. "library-app 2.1.0").
    public var appVersion: String?
    /// A real run that fails its checks or closures (or is cancelled) adds a `failed` row to `_urna_history`
    /// after rolling back (its objects and tables are as they were); SQLite failures (a damaged file, a full
    /// disk, a lock) add nothing. Off, a failed run leaves the file byte for byte as it was.
    public var recordsFailedRuns = true
    /// Cancels the run from another thread (also set by the `async` forms when their task is cancelled).
    public var cancellation: MigrationCancellation?
    /// `VACUUM` the file after a successful run, so the pages of the tables it rebuilt are given back (the report's
    /// `vacuum` says the sizes; it needs about the file's size again, free, while it runs). A dry run vacuums its
    /// copy. A failed `VACUUM` leaves the upgrade committed and is reported, not thrown.
    public var vacuum = false
    /// How long `migrateIfNeeded` waits for another migrator of the file (this app's other task or scene, an
    /// extension, another process) or a writer holding it, before it throws `migrationRunning`/`busy`. When the
    /// other run has upgraded the file meanwhile, `migrateIfNeeded` returns nil. `plan`/`run` never wait.
    public var waitForOtherMigrator: Duration = .seconds(60)
    /// Fuse consecutive steps of a run: a type one step would copy with SQL and the next step rebuilds again is
    /// read once, through the first step's SELECT, and written once (the plan says which). Off: every step
    /// writes every table it changes, as if run alone.
    public var fusesSteps = true

    public init(
        sample: Int = 0, integrityCheck: IntegrityCheck = .full, maxFailures: Int = 50, pragmas: [String] = [],
        readAhead: Bool = true, allowances: [MigrationAllowance] = [], appVersion: String? = nil,
        recordsFailedRuns: Bool = true, vacuum: Bool = false
    ) {
        self.vacuum = vacuum
        self.appVersion = appVersion
        self.recordsFailedRuns = recordsFailedRuns
        self.sample = sample
        self.integrityCheck = integrityCheck
        self.maxFailures = maxFailures
        self.pragmas = pragmas
        self.readAhead = readAhead
        self.allowances = allowances
    }
}

/// Upgrades files of one schema family: plans, runs, dry runs, status, diffs.
///
/// ```swift
/// let migrator = Migrator(family: SchemaFamilies.people)
/// let preview = try migrator.dryRun(path: "people.sqlite")      // never touches the file
/// print(preview.renderText())
/// let plan = try migrator.plan(path: "people.sqlite")
/// let report = try migrator.run(plan, backupPath: nil)          // backup next to the file
/// ```
public struct Migrator {
    public let family: SchemaFamily
    public var reporter: MigrationReporter?
    public var options: MigrationOptions

    public init(
        family: SchemaFamily, reporter: MigrationReporter? = nil, options: MigrationOptions = MigrationOptions()
    ) {
        self.family = family
        self.reporter = reporter
        self.options = options
    }

    /// Decides what upgrading the file at `path` to `target` (default: latest) does, or refuses:
    /// missing file, not an Urna file, another family, a file newer than every known version,
    /// already current (`alreadyCurrent`, exit code 0), drift, or a change needing a closure.
    public func plan(path: String, to target: Int? = nil) throws -> MigrationPlan {
        try plan(path: path, to: target, displayPath: path)
    }

    func plan(path: String, to target: Int?, displayPath: String) throws -> MigrationPlan {
        // Even a file with nothing to do loses a killed run's partial backup (of a dead process) here.
        if FileManager.default.fileExists(atPath: displayPath) {
            FileCopy.removeStaleBackupTemporaries(of: displayPath)
            // And the lock file of a run killed after its commit: the file is current, no run would take it again.
            MigrationLock.removeStale(path: displayPath)
        }
        let problems = family.problems()
        guard problems.isEmpty else { throw MigrationError.invalidFamily(family: family.name, problems: problems) }
        let c = try RecordedFile.open(path, readOnly: true)
        // One snapshot for every read of the plan: another migrator committing meanwhile must not show its new
        // tables beside the old descriptor (which read as drift).
        try c.execute("BEGIN")
        defer { try? c.execute("ROLLBACK") }
        let recorded = try RecordedFile.schema(in: c, path: displayPath)
        guard recorded.family == family.name else {
            throw MigrationError.familyMismatch(path: displayPath, file: recorded.family, migrator: family.name)
        }
        if recorded.version > family.latestVersion {
            throw MigrationError.newerThanKnown(
                path: displayPath, family: family.name, fileVersion: recorded.version, latest: family.latestVersion)
        }
        if family.isOlderThanSupported(recorded.version) {
            throw MigrationError.olderThanSupported(
                path: displayPath, family: family.name, fileVersion: recorded.version, minimum: family.minimumVersion,
                advice: family.olderFilesAdvice)
        }
        guard family.schema(version: recorded.version) != nil else {
            throw MigrationError.unknownVersion(
                family: family.name, version: recorded.version, known: family.versionNumbers)
        }
        let to = target ?? family.latestVersion
        guard family.schema(version: to) != nil else {
            throw MigrationError.unknownVersion(family: family.name, version: to, known: family.versionNumbers)
        }
        if to < recorded.version {
            throw MigrationError.downgrade(path: displayPath, fileVersion: recorded.version, target: to)
        }
        if to == recorded.version {
            throw MigrationError.alreadyCurrent(path: displayPath, family: family.name, version: to)
        }
        var drift = try RecordedFile.drift(in: c, recorded: recorded, family: family)
        // A trigger on urna's own tables would run the file's SQL whenever urna records a run (in the failed-run
        // ledger too, after the rollback): never legitimate, so refused like drift.
        for r in try c.rows(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE '\\_urna\\_%' ESCAPE '\\' ORDER BY name"
        ) {
            drift.append(
                "trigger \(r[0]) on \(r[1]): urna's own tables take no triggers (it would run the file's SQL as urna "
                    + "records the run); drop it")
        }
        guard drift.isEmpty else { throw MigrationError.drift(path: displayPath, differences: drift) }
        let misfits = try StoredValueCheck.misfits(in: c, schema: recorded)
        guard misfits.isEmpty else {
            throw MigrationError.valuesDoNotFit(path: displayPath, version: recorded.version, problems: misfits)
        }

        let extra = Set(options.allowances)
        let resolved = try family.resolvedSteps(from: recorded.version, to: to).map {
            ResolvedStep(
                from: $0.from, to: $0.to, renames: $0.renames, allowances: $0.allowances.union(extra),
                closure: $0.closure, summary: $0.summary, sqlBefore: $0.sqlBefore, sqlAfter: $0.sqlAfter)
        }
        let probe = DataProbe(connection: c, start: recorded)
        var refusals: [PlanRefusal] = []
        var planned: [PlannedStep] = []
        for (index, step) in resolved.enumerated() {
            refusals += Self.refusals(step)
            refusals += Self.lossRefusals(
                step, index: index, earlierClosures: resolved[..<index].contains { $0.closure != nil }, probe: probe)
            let analysis = StepAnalysis(step: step)
            planned.append(
                PlannedStep(
                    fromVersion: step.from.version, toVersion: step.to.version, summary: step.summary,
                    hasClosure: step.closure != nil,
                    diff: SchemaDiff(from: step.from, to: step.to, renames: step.renames),
                    sql: analysis.previewSQL()
                        + (options.fusesSteps
                            ? RunFusion.previewLines(
                                analysis, next: index + 1 < resolved.count ? resolved[index + 1] : nil)
                            : []),
                    copiedThroughSwift: analysis.transfers.filter { $0.needsSwift && !$0.isAdded }.map {
                        "\($0.name) (\($0.swiftReason ?? ""))"
                    },
                    descriptorChecksum: SchemaDescriptor.checksum(step.to)))
        }
        guard refusals.isEmpty else { throw MigrationError.refused(path: displayPath, reasons: refusals) }
        return MigrationPlan(
            family: family.name, path: displayPath, fromVersion: recorded.version, toVersion: to, steps: planned,
            brokenUserObjects: Self.brokenUserObjects(resolved, probe: probe), resolved: resolved,
            recordedChecksum: SchemaDescriptor.checksum(recorded))
    }

    /// Changes a step can't make by itself, when it has neither a closure nor an allowance.
    static func refusals(_ step: ResolvedStep) -> [PlanRefusal] {
        guard step.closure == nil else { return [] }
        var out: [PlanRefusal] = []
        for t in step.to.types {
            guard let o = step.from[type: t.name] else { continue }
            for p in t.properties {
                guard let source = step.oldName(type: t.name, newName: p.name), let op = o[property: source],
                    !(op.ignored || p.ignored)
                else { continue }
                let c = PropertyConversion.classify(
                    type: t.name, old: op, new: p, oldSchema: step.from, newSchema: step.to)
                guard c.kind == .needsClosure else { continue }
                if let a = c.allowance, step.allows(a) { continue }
                var fix =
                    "give step v\(step.to.version) a closure that sets it (migration.enumerateObjects(ofType: \"\(t.name)\"))"
                if let a = c.allowance, p.type.isColumn {
                    switch a {
                    case .lossyConversion: fix += ", or allow \(a.swiftSpelling)"
                    case .nullsBecomeDefault: fix += ", give it a default, or allow \(a.swiftSpelling)"
                    case .discard, .discardType: break
                    }
                    fix += " (command line: --allow-loss \(a.commandLineSpelling))"
                }
                out.append(
                    PlanRefusal(
                        fromVersion: step.from.version, toVersion: step.to.version, type: t.name, property: p.name,
                        reason: "\(PropertySummary.typeText(op)) → \(PropertySummary.typeText(p)): \(c.reason)",
                        fix: fix))
            }
        }
        return out
    }

    /// Runs a plan: backup (unless `backupPath` is... see `run(_:backup:)`), every step in one
    /// transaction, checks, commit. `backupPath` nil keeps the backup at the default path next to the
    /// file; use `run(plan, backup: .none)` for no backup.
    public func run(_ plan: MigrationPlan, backupPath: String?) throws -> MigrationReport {
        try run(plan, backup: backupPath.map(BackupPolicy.at) ?? .besideFile)
    }

    /// Runs a plan with an explicit backup policy. Any failure leaves the file exactly as it was.
    public func run(_ plan: MigrationPlan, backup: BackupPolicy) throws -> MigrationReport {
        let lock = try MigrationLock(path: plan.path)
        defer { withExtendedLifetime(lock) {} }
        let backupPath = Self.backupPath(plan, backup)
        let need = try Self.checkSpace(plan, path: plan.path, backupPath: backupPath)
        let runner = MigrationRunner(
            plan: plan, family: family, dryRun: false, backupPath: backupPath, options: options, reporter: reporter)
        var report = try Self.explainingBrokenForeignKeys(plan, path: plan.path) { try runner.run(at: plan.path) }
        report.spaceNeed = need
        return report
    }

    /// Runs the real upgrade, closures included, on a private copy of the file in a temporary
    /// directory, and reports what it would do; the file (and its -wal/-shm) is never opened.
    public func dryRun(path: String, to target: Int? = nil, sample: Int = 3) throws -> MigrationReport {
        let copy = try PreviewCopy(of: path)
        return try dryRun(copy: copy, to: target, sample: sample)
    }

    func dryRun(copy: PreviewCopy, to target: Int?, sample: Int) throws -> MigrationReport {
        let plan = try self.plan(path: copy.path, to: target, displayPath: copy.originalPath)
        var options = self.options
        options.sample = sample
        let runner = MigrationRunner(
            plan: plan, family: family, dryRun: true, backupPath: nil, options: options, reporter: reporter)
        // The copy's disk must hold the run; the report says what the real run needs beside the file, measured as
        // the run measures it (the same function) on the copy before the preview migrates it: measured after, it
        // was the upgraded file's tables, another figure than the run's own.
        _ = try Self.checkSpace(plan, path: copy.path, backupPath: nil)
        let sameDisk = Self.device(near: copy.originalPath) != nil
        let need = try Self.spaceNeed(plan, path: copy.path, backupOnSameDisk: sameDisk).need
        var report = try Self.explainingBrokenForeignKeys(plan, path: copy.originalPath) {
            try runner.run(at: copy.path)
        }
        report.spaceNeed = need
        // The copy's disk held the preview; the real run is refused when the file's own disk cannot hold it.
        report.spaceAvailable = Self.freeBytes(near: copy.originalPath)
        report.path = copy.originalPath
        report.projectedSeconds = report.durationSeconds + copy.seconds
        return report
    }

    /// SQLite's foreign key check refuses a whole file whose own table has a foreign key to a column the run
    /// removed ("foreign key mismatch"): the failure says which table, as the plan does, instead of SQLite's words.
    static func explainingBrokenForeignKeys<T>(_ plan: MigrationPlan, path: String, _ body: () throws -> T) throws -> T
    {
        do {
            return try body()
        } catch MigrationError.storage(let e) where e.message.contains("foreign key mismatch") {
            let broken = plan.brokenUserObjects.filter { $0.contains("has a foreign key to") }
            guard !broken.isEmpty else { throw MigrationError.storage(e) }
            throw MigrationError.validationFailed(
                path: path,
                failures: broken.map {
                    ValidationFailure(
                        check: "foreign-key", type: $0.split(separator: " ").dropFirst().first.map(String.init),
                        message: $0)
                }, total: broken.count)
        }
    }

    /// Where the file stands: its version, the family's latest, the steps still to run, the history,
    /// and any drift.
    public func status(path: String) throws -> MigrationStatus {
        let c = try RecordedFile.open(path, readOnly: true)
        let recorded = try RecordedFile.schema(in: c, path: path)
        guard recorded.family == family.name else {
            throw MigrationError.familyMismatch(path: path, file: recorded.family, migrator: family.name)
        }
        let newer = recorded.version > family.latestVersion
        let older = family.isOlderThanSupported(recorded.version)
        var status = MigrationStatus(
            path: path, family: family.name, fileVersion: recorded.version, latestVersion: family.latestVersion,
            knownVersions: family.versionNumbers,
            pending: newer || older ? [] : family.pendingSteps(from: recorded.version, to: family.latestVersion),
            isNewerThanKnown: newer,
            drift: try RecordedFile.drift(in: c, recorded: recorded, family: newer || older ? nil : family),
            history: try RecordedFile.history(in: c, family: family.name))
        if older {
            status.olderThanSupported =
                MigrationError.olderThanSupported(
                    path: path, family: family.name, fileVersion: recorded.version, minimum: family.minimumVersion,
                    advice: family.olderFilesAdvice
                ).description
        }
        return status
    }

    /// The schema diff between two versions of the family.
    public func diff(from: Int, to: Int) throws -> SchemaDiff { try family.diff(from: from, to: to) }

    /// Plans and runs the upgrade to the latest version when the file needs one (Realm's
    /// migrate-on-open); nil when the file is already current.
    @discardableResult
    public func migrateIfNeeded(path: String, backup: BackupPolicy = .besideFile) throws -> MigrationReport? {
        // Inside a store's write on the same file, the lock the run waits for is this thread's own: it waited out
        // `waitForOtherMigrator` (60 s) before failing.
        if Store.callingThreadIsWriting(path: path) { throw StoreError.alreadyInWriteTransaction }
        let deadline = ContinuousClock.now + options.waitForOtherMigrator
        while true {
            do {
                return try run(plan(path: path), backup: backup)
            } catch MigrationError.alreadyCurrent {
                return nil
            } catch MigrationError.planOutdated where ContinuousClock.now < deadline {
                continue  // another run changed the file between this plan and this run: plan again
            } catch let e as MigrationError {
                // Another migrator (or a writer) has the file: wait for it, then plan again (it may have upgraded it).
                guard e.isAnotherRunHoldingTheFile, ContinuousClock.now < deadline else { throw e }
                if options.cancellation?.isCancelled == true { throw MigrationError.cancelled(path: path) }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// `migrateIfNeeded` off the caller's thread: the run goes to a thread of its own (it blocks on SQLite), and
    /// cancelling the task cancels the run, which rolls back and throws `MigrationError.cancelled`.
    ///
    /// ```swift
    /// let task = Task { try await migrator.migrateIfNeeded(path: path) }
    /// task.cancel()   // the file stays as it was
    /// ```
    @discardableResult
    public func migrateIfNeeded(path: String, backup: BackupPolicy = .besideFile) async throws -> MigrationReport? {
        var migrator = self
        let cancellation = options.cancellation ?? MigrationCancellation()
        migrator.options.cancellation = cancellation
        let box = UncheckedBox(migrator)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<MigrationReport?, Error>) in
                Thread.detachNewThread {
                    do {
                        if Task.isCancelled || cancellation.isCancelled {
                            throw MigrationError.cancelled(path: path)
                        }
                        continuation.resume(returning: try box.value.migrateIfNeeded(path: path, backup: backup))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

/// Carries a non-Sendable value (a migrator with its reporter) to the one thread that uses it.
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A byte copy of a database (and its -wal/-journal) in a private temporary directory, removed when
/// the copy is released: what a dry run works on, so the original is never opened.
final class PreviewCopy {
    let originalPath: String
    let path: String
    /// How long the copy took (about what the real run's backup will take).
    let seconds: Double
    private let directory: String

    init(of original: String) throws {
        guard FileManager.default.fileExists(atPath: original) else {
            throw MigrationError.fileNotFound(path: original)
        }
        originalPath = original
        // A killed real run's lock file goes too: a dry run after it leaves nothing in the temporary folder.
        MigrationLock.removeStale(path: original)
        directory = try FileCopy.makeTemporaryDirectory()
        // A full TMPDIR said only "database or disk is full" (or, from a byte copy, "The operation could not be
        // completed"): the reason now gives the room the copy takes and the room there is.
        let needed = FileCopy.size(original) + FileCopy.size(original + "-wal")
        let probe = (directory as NSString).appendingPathComponent("copy")
        func noRoom(free: Int64?) -> String {
            "the disk is full: it needs about \(SpaceNeed.megabytes(needed)) free for the copy of the file (and its "
                + "-wal), \(free.map(SpaceNeed.megabytes) ?? "an unknown amount") are free there"
        }
        if let free = Migrator.freeBytes(near: probe), free < needed {
            try? FileManager.default.removeItem(atPath: directory)
            throw MigrationError.previewCopyFailed(folder: directory, reason: noRoom(free: free))
        }
        let started = Date()
        do {
            path = try FileCopy.copyForPreview(original, into: directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            let base = PathText.folder(of: directory)
            let reason =
                FileCopy.isDiskFull(error)
                ? noRoom(free: Migrator.freeBytes(near: (base as NSString).appendingPathComponent("x")))
                : error.localizedDescription
            throw MigrationError.previewCopyFailed(folder: directory, reason: reason)
        }
        seconds = Date().timeIntervalSince(started)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
