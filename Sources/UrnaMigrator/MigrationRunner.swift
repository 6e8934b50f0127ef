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

    init(
        plan: MigrationPlan, family: SchemaFamily, dryRun: Bool, backupPath: String?, options: MigrationOptions,
        reporter: MigrationReporter?
    ) {
        self.plan = plan
        self.family = family
        self.dryRun = dryRun
        self.backupPath = backupPath
        self.options = options
        self.reporter = reporter
    }

    func run(at path: String) throws -> MigrationReport {
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
        var report = MigrationReport(
            family: plan.family, path: plan.path, fromVersion: plan.fromVersion, toVersion: plan.toVersion,
            dryRun: dryRun,
            outcome: dryRun ? .previewed : .applied, versionPath: plan.versionPath)
        let log = FailureLog(limit: options.maxFailures)
        var backupMade: String?
        do {
            // PRAGMA foreign_keys can't change inside a transaction: off for the whole run.
            try c.execute("PRAGMA foreign_keys = OFF")
            for pragma in options.pragmas { try c.execute("PRAGMA \(pragma)") }
            try c.execute("BEGIN IMMEDIATE")
            // Read under the write lock: nobody can change the file between this check and the commit.
            let recorded = try RecordedFile.schema(in: c, path: plan.path)
            guard SchemaDescriptor.checksum(recorded) == plan.recordedChecksum, recorded.version == plan.fromVersion
            else {
                throw MigrationError.planOutdated(path: plan.path, reason: "it is now at version \(recorded.version)")
            }
            if let b = backupPath {
                try FileCopy.backup(
                    sourcePath: path, to: b,
                    replacing: b == FileCopy.defaultBackupPath(for: plan.path, version: plan.fromVersion))
                backupMade = b
                report.backupPath = b
            }
            clock.mark("begin")
            let ledgerStart = RunLedger.lastId(c)
            let inWAL = (try? c.scalar("PRAGMA journal_mode")) == .text("wal")
            for (index, step) in plan.resolved.enumerated() {
                let executor = StepExecutor(
                    connection: c, step: step, family: family.name, log: log, reporter: reporter,
                    sampleSize: options.sample, readsAhead: options.readAhead && index == 0 && inWAL)
                do {
                    try executor.run()
                    report.steps.append(executor.report)
                } catch is StepAborted {
                    executor.abandon()
                    report.steps.append(executor.report)
                    break
                }
            }
            report.countsBefore = report.steps.first?.countsBefore ?? [:]
            report.checks = checks(log)
            clock.skip()  // the steps report their own phases
            if log.isEmpty {
                try integrityCheck(c, log: log, report: &report)
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
            report.measuredGrowthBytes = diskBytes(path) - startBytes
            if !dryRun, let v = options.appVersion { try RunLedger.markApplied(c, after: ledgerStart, appVersion: v) }
            try c.execute("COMMIT")
            try c.execute("PRAGMA foreign_keys = ON")
            clock.mark("commit")
        } catch let e as MigrationError {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            removeBackup(backupMade)
            throw e
        } catch let e as SQLiteError {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            removeBackup(backupMade)
            if !dryRun, options.recordsFailedRuns, !(e.isBusy || e.isDiskFull || e.isReadOnly) {
                RunLedger.recordFailure(
                    c, family: family.name, plan: plan, seconds: Date().timeIntervalSince(started), message: "\(e)",
                    appVersion: options.appVersion)
            }
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

    func integrityCheck(_ c: Connection, log: FailureLog, report: inout MigrationReport) throws {
        let pragma: String
        switch options.integrityCheck {
        case .none:
            report.checks.append(CheckResult(name: "integrity_check", passed: true, detail: "skipped"))
            return
        case .full: pragma = "integrity_check"
        case .quick: pragma = "quick_check"
        }
        let rows = try c.rows("PRAGMA \(pragma)")
        let messages = rows.compactMap { r -> String? in
            if case .text(let s) = r[0], s != "ok" { return s }
            return nil
        }
        for m in messages { log.record(ValidationFailure(check: "integrity", message: m)) }
        report.checks.append(
            CheckResult(
                name: pragma, passed: messages.isEmpty, detail: messages.isEmpty ? "" : "\(messages.count) problem(s)"))
    }
}
