import Foundation
import UrnaStore

/// Runs a plan's steps in one transaction on one file: the real run, or a dry run on a private copy.
/// One code path for both, so a preview can't drift from the real thing.
final class MigrationRunner {
    let plan: MigrationPlan
    let family: SchemaFamily
    let dryRun: Bool
    let backupPath: String?
    let options: MigrationOptions
    let reporter: MigrationReporter?
    /// The overall fraction and cancellation, when someone listens or may cancel.
    let tracker: ProgressTracker?

    init(
        plan: MigrationPlan, family: SchemaFamily, dryRun: Bool, backupPath: String?, options: MigrationOptions,
        reporter: MigrationReporter?
    ) {
        self.plan = plan
        self.family = family
        self.dryRun = dryRun
        self.backupPath = backupPath
        self.options = options
        if reporter != nil || options.cancellation != nil {
            let t = ProgressTracker(inner: reporter, cancellation: options.cancellation, steps: plan.resolved.count)
            tracker = t
            self.reporter = t
        } else {
            tracker = nil
            self.reporter = reporter
        }
    }

    var isCancelled: Bool { options.cancellation?.isCancelled ?? false }

    /// Records a cancelled real run in the ledger and says so.
    func cancelled(_ c: Connection, started: Date) -> MigrationError {
        if !dryRun, options.recordsFailedRuns {
            RunLedger.recordFailure(
                c, family: family.name, plan: plan, seconds: Date().timeIntervalSince(started), message: "cancelled",
                appVersion: options.appVersion)
        }
        return MigrationError.cancelled(path: plan.path)
    }

    func run(at path: String) throws -> MigrationReport {
        // Whatever this run does (a dry run, --no-backup, another --backup path), a killed run's partial backup
        // beside the file goes now.
        FileCopy.removeStaleBackupTemporaries(of: plan.path)
        var clock = PhaseClock(reporter: reporter)
        let report = try run(at: path, clock: &clock)
        // The connection is closed now (which checkpoints the WAL into the file).
        clock.mark("close")
        return report
    }

    private func run(at path: String, clock: inout PhaseClock) throws -> MigrationReport {
        let started = Date()
        let c = try RecordedFile.open(path, readOnly: false)
        let startBytes = diskBytes(path)
        tracker?.install(on: c)
        defer { ProgressTracker.uninstall(from: c) }
        let written = WrittenTables()
        written.install(on: c)
        defer { WrittenTables.uninstall(from: c) }
        var report = MigrationReport(
            family: plan.family, path: plan.path, fromVersion: plan.fromVersion, toVersion: plan.toVersion,
            dryRun: dryRun,
            outcome: dryRun ? .previewed : .applied, versionPath: plan.versionPath)
        let log = FailureLog(limit: options.maxFailures)
        /// The backup this run made where there was none: removed again if the run fails.
        var backupMade: String?
        do {
            // PRAGMA foreign_keys can't change inside a transaction: off for the whole run.
            try c.execute("PRAGMA foreign_keys = OFF")
            // A run reads every page it rebuilds and probes key maps and indexes: a 64 MiB page cache (SQLite's
            // default is 2 MiB) keeps them out of repeated reads. `options.pragmas` may set another.
            try c.execute("PRAGMA cache_size = -65536")
            for pragma in options.pragmas { try c.execute("PRAGMA \(pragma)") }
            try c.execute("BEGIN IMMEDIATE")
            // Read under the write lock: nobody can change the file between this check and the commit.
            let recorded = try RecordedFile.schema(in: c, path: plan.path)
            guard SchemaDescriptor.checksum(recorded) == plan.recordedChecksum, recorded.version == plan.fromVersion
            else {
                throw MigrationError.planOutdated(path: plan.path, reason: "it is now at version \(recorded.version)")
            }
            // The plan's loss checks read the data as it was then; a writer may have committed since (a value in
            // a property the plan found all nil, objects in a type it found empty). Checked again here, where
            // nobody can write any more, so a loss still needs its permission.
            let losses = Migrator.lossRefusals(plan.resolved, probe: Migrator.DataProbe(connection: c, start: recorded))
            guard losses.isEmpty else { throw MigrationError.refused(path: plan.path, reasons: losses) }
            if let b = backupPath {
                // A backup of this version that was already there is replaced by a fresh one; if the run then
                // fails, that fresh one stays (the file did not change, so it is a backup of it): a run that
                // changed nothing never leaves the file without the backup it had.
                let hadBackup = FileManager.default.fileExists(atPath: b)
                report.earlierBackupKeptAt = try FileCopy.backup(
                    sourcePath: path, to: b,
                    replacing: b == FileCopy.defaultBackupPath(for: plan.path, version: plan.fromVersion),
                    progress: tracker.map { t in { t.backupProgress(copied: $0, total: $1) } })
                backupMade = hadBackup ? nil : b
                report.backupPath = b
            }
            clock.mark("begin")
            let ledgerStart = RunLedger.lastId(c)
            let inWAL = (try? c.scalar("PRAGMA journal_mode")) == .text("wal")
            let deferredIndexes = DeferredIndexes()
            let fusion = options.fusesSteps && plan.resolved.count > 1 ? RunFusion(steps: plan.resolved) : nil
            for (index, step) in plan.resolved.enumerated() {
                if isCancelled { throw MigrationError.cancelled(path: plan.path) }
                // A second connection sees only committed rows: not what the step's own sqlBefore changed.
                let executor = StepExecutor(
                    connection: c, step: step, family: family.name, log: log, reporter: reporter,
                    sampleSize: options.sample,
                    readsAhead: options.readAhead && index == 0 && inWAL && step.sqlBefore.isEmpty,
                    foreignKeyCheck: index < plan.resolved.count - 1
                        ? .later : .forRun(steps: plan.resolved.count, firstVersion: plan.fromVersion),
                    inheritsUncheckedLinks: index > 0, deferredIndexes: deferredIndexes, fusion: fusion)
                do {
                    try executor.run()
                    report.steps.append(executor.report)
                    fusion?.advance()
                } catch is StepAborted {
                    executor.abandon()
                    report.steps.append(executor.report)
                    break
                }
            }
            if log.isEmpty { fusion?.dropTemporaryTables(c) }
            report.countsBefore = report.steps.first?.countsBefore ?? [:]
            report.checks = checks(log)
            clock.skip()  // the steps report their own phases
            tracker?.finishedSteps()
            if log.isEmpty { try rebuildExternalContentIndexes(c, log: log, report: &report, written: written) }
            if log.isEmpty {
                try integrityCheck(c, log: log, report: &report, written: written)
                clock.mark("integrity_check")
            }
            if !log.isEmpty {
                try? c.execute("ROLLBACK")
                report.failures = log.failures
                report.failureCount = log.total
                report.outcome = .failed
                report.durationSeconds = Date().timeIntervalSince(started)
                removeBackup(backupMade)
                report.backupPath = nil
                if isCancelled { throw cancelled(c, started: started) }
                if dryRun { return report }
                if options.recordsFailedRuns {
                    let summary = log.failures.prefix(3).map(\.description).joined(separator: "; ")
                    RunLedger.recordFailure(
                        c, family: family.name, plan: plan, seconds: report.durationSeconds, message: summary,
                        appVersion: options.appVersion)
                }
                if let closure = log.failures.first(where: { $0.check == "closure" }) {
                    let step = report.steps.last
                    throw MigrationError.closureFailed(
                        from: step?.fromVersion ?? plan.fromVersion, to: step?.toVersion ?? plan.toVersion,
                        message: closure.message)
                }
                throw MigrationError.validationFailed(path: plan.path, failures: log.failures, total: log.total)
            }
            report.countsAfter = report.steps.last?.countsAfter ?? [:]
            // Before the commit (a rollback journal is whole then) and after it (the commit's checkpoint has grown
            // the file while the WAL still holds every page): the larger is the run's high-water mark.
            let beforeCommit = diskBytes(path)
            if !dryRun, let v = options.appVersion { try RunLedger.markApplied(c, after: ledgerStart, appVersion: v) }
            // A cancel asked for before the commit is honoured whether or not SQLite's progress handler ran since
            // (how many statements followed it depends on the steps' work: fused or not).
            if isCancelled { throw MigrationError.cancelled(path: plan.path) }
            try c.execute("COMMIT")
            report.measuredGrowthBytes = max(beforeCommit, diskBytes(path)) - startBytes
            try c.execute("PRAGMA foreign_keys = ON")
            clock.mark("commit")
            if options.vacuum {
                report.vacuum = vacuum(c, path: path)
                clock.mark("vacuum")
            }
            tracker?.committed()
        } catch let e as MigrationError {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            removeBackup(backupMade)
            if case .cancelled = e, !dryRun, options.recordsFailedRuns { throw cancelled(c, started: started) }
            throw e
        } catch let e as SQLiteError {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            removeBackup(backupMade)
            // SQLITE_INTERRUPT: the progress handler stopped the statement because the run was cancelled.
            if e.primaryCode == 9, isCancelled { throw cancelled(c, started: started) }
            // SQLITE_BUSY/LOCKED (a writer held the file past the busy timeout): `.busy`, with its advice.
            if e.isBusy { throw MigrationError.busy(path: plan.path) }
            throw MigrationError.storage(e)
        } catch {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            removeBackup(backupMade)
            throw error
        }
        report.durationSeconds = Date().timeIntervalSince(started)
        return report
    }

    /// The bytes of a database and its journals on disk (stat only: opening and closing the file would
    /// release this process's POSIX locks on it, SQLite's included).
    func diskBytes(_ path: String) -> Int64 {
        ["", "-wal", "-journal"].reduce(0) { $0 + FileCopy.size(path + $1) }
    }

    func removeBackup(_ path: String?) {
        guard let path else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The checks each step ran, summarised from the failures they logged.
    func checks(_ log: FailureLog) -> [CheckResult] {
        let groups: [(String, Set<String>)] = [
            ("closures and conversions", ["closure", "conversion"]),
            ("NOT NULL and uniqueness", ["required", "unique", "constraint"]),
            ("foreign_key_check", ["foreign-key"]),
            ("tables match the target descriptor", ["shape"]),
            ("indexes, views and triggers recreated", ["index", "view", "trigger"]),
        ]
        return groups.map { name, kinds in
            let n = log.failures.filter { kinds.contains($0.check) }.count
            return CheckResult(name: name, passed: n == 0, detail: n == 0 ? "" : "\(n) problem(s)")
        }
    }

    /// `.full`: `quick_check` of the whole file (every page, the freelist, NOT NULL and CHECK constraints) and
    /// `integrity_check` of each table the run wrote (its indexes compared with it, entry by entry); a table the
    /// run did not write is as it was before the run, so comparing its indexes again would only repeat the
    /// file's past (one full `integrity_check` when no unwritten table has an index). `.quick`: `quick_check` only.
    func integrityCheck(_ c: Connection, log: FailureLog, report: inout MigrationReport, written: WrittenTables) throws
    {
        var pragmas: [String]
        var tables: [String] = []
        switch options.integrityCheck {
        case .none:
            report.checks.append(CheckResult(name: "integrity_check", passed: true, detail: "skipped"))
            return
        case .full:
            let all = try written.existingTables(in: c)
            // Only the indexes of tables the run did not write are spared; without any, one full check is cheaper
            // than quick_check plus the written tables again.
            let indexed = Set(
                try c.rows("SELECT DISTINCT tbl_name FROM sqlite_schema WHERE type = 'index'").compactMap {
                    if case .text(let t) = $0[0] { t } else { nil }
                })
            if indexed.isSubset(of: all) {
                pragmas = ["integrity_check"]
            } else {
                pragmas = ["quick_check"] + all.map { "integrity_check(\(Identifier.quoted($0)))" }
                tables = all.filter { !$0.hasPrefix("_urna_") }  // the report names the family's tables
            }
        case .quick: pragmas = ["quick_check"]
        }
        var messages: [String] = []
        for pragma in pragmas {
            messages += try c.rows("PRAGMA \(pragma)").compactMap { r -> String? in
                if case .text(let s) = r[0], s != "ok" { return s }
                return nil
            }
        }
        for m in messages { log.record(ValidationFailure(check: "integrity", message: m)) }
        let name = options.integrityCheck == .full ? "integrity_check" : "quick_check"
        let scope = tables.isEmpty ? "" : "indexes compared with the tables written: \(tables.joined(separator: ", "))"
        report.checks.append(
            CheckResult(
                name: name, passed: messages.isEmpty, detail: messages.isEmpty ? scope : "\(messages.count) problem(s)")
        )
    }
}
