import CSQLite
import Foundation
import UrnaStore

/// Cancels a running migration from any thread: the run stops at its next SQLite instruction batch, rolls
/// back and throws `MigrationError.cancelled` (the file is as it was).
///
/// ```swift
/// let cancel = MigrationCancellation()
/// var options = MigrationOptions(); options.cancellation = cancel
/// // later, from another thread: cancel.cancel()
/// ```
public final class MigrationCancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    /// Asks the run to stop.
    public func cancel() { lock.withLock { cancelled = true } }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }
}

/// Turns a run's events into one overall fraction, reported through `MigrationReporter.overallProgress` at
/// least every quarter of a second while the run works (SQLite's progress handler is the heartbeat, so long
/// statements such as a table copy or the integrity check report too), and checks the cancellation.
final class ProgressTracker: MigrationReporter {
    let inner: MigrationReporter?
    let cancellation: MigrationCancellation?
    let steps: Int
    private var step = 0
    private var within = 0.0
    private var phase = "begin"
    private var lastReport = 0.0
    private var reported = -1.0

    init(inner: MigrationReporter?, cancellation: MigrationCancellation?, steps: Int) {
        self.inner = inner
        self.cancellation = cancellation
        self.steps = max(steps, 1)
    }

    /// Steps weigh one each; the integrity check and commit after them a third of one.
    var fraction: Double { min(1, (Double(step) + within) / (Double(steps) + 1.0 / 3)) }

    func stepStarted(from: Int, to: Int) {
        within = 0
        phase = "step v\(from) → v\(to)"
        inner?.stepStarted(from: from, to: to)
        emit(force: true)
    }

    func progress(type: String, done: Int, total: Int) {
        if total > 0 { within = max(within, 0.1 + 0.7 * Double(done) / Double(total)) }
        inner?.progress(type: type, done: done, total: total)
        emit(force: false)
    }

    func stepFinished(_ report: StepReport) {
        step += 1
        within = 0
        inner?.stepFinished(report)
        emit(force: true)
    }

    func phaseFinished(_ name: String, seconds: Double, cpuSeconds: Double) {
        let after: [String: Double] = ["setup": 0.1, "closures": 0.5, "copy": 0.8, "rebuild": 0.9, "checks": 0.95]
        if let f = after[name] { within = max(within, f) }
        if name == "integrity_check" { phase = "commit" }
        inner?.phaseFinished(name, seconds: seconds, cpuSeconds: cpuSeconds)
        emit(force: false)
    }

    func overallProgress(fraction: Double, phase: String) {}

    /// Called from SQLite's progress handler: reports when due; true asks SQLite to stop (cancelled).
    func heartbeat() -> Bool {
        emit(force: false)
        return cancellation?.isCancelled ?? false
    }

    /// The backup has `copied` of `total` pages (0 of 0 before it starts); false when the run was cancelled.
    func backupProgress(copied: Int, total: Int) -> Bool {
        phase = total > 0 ? "backup: \(copied) of \(total) pages" : "backup"
        emit(force: total == 0)
        return !(cancellation?.isCancelled ?? false)
    }

    /// The run committed.
    func committed() {
        guard let inner else { return }
        reported = 1
        inner.overallProgress(fraction: 1, phase: "committed")
    }

    func finishedSteps() {
        phase = "integrity check and commit"
        emit(force: true)
    }

    private func emit(force: Bool) {
        guard let inner else { return }
        let now = PhaseClock.now()
        guard force || now - lastReport >= 0.25 else { return }
        let f = max(reported, fraction)
        lastReport = now
        reported = f
        inner.overallProgress(fraction: f, phase: phase)
    }

    /// Installs the heartbeat on a connection (every 20,000 virtual machine instructions).
    func install(on c: Connection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_progress_handler(
            c.handle, 20_000,
            { context in
                guard let context else { return 0 }
                return Unmanaged<ProgressTracker>.fromOpaque(context).takeUnretainedValue().heartbeat() ? 1 : 0
            }, context)
    }

    static func uninstall(from c: Connection) { sqlite3_progress_handler(c.handle, 0, nil, nil) }
}
