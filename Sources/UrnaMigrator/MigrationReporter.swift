import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a migration reports progress (the library never prints). Every method has a default that
/// does nothing.
public protocol MigrationReporter: AnyObject {
    func stepStarted(from: Int, to: Int)
    /// `done` of `total` objects of `type` went through Swift (reported every 50,000).
    func progress(type: String, done: Int, total: Int)
    func stepFinished(_ step: StepReport)
    /// One phase of a run took `seconds` of wall time and `cpuSeconds` of this thread's CPU time.
    /// Phases, in order: `begin` (lock, plan re-check, backup), per step `setup`, `closures`, `copy`,
    /// `rebuild` (key rewrites, lists, table swaps, indexes, schema record), `checks` (table shapes,
    /// foreign_key_check), `finish` (counts, samples, history row); then `integrity_check`, `commit`,
    /// and `close` (closing the file, which checkpoints its WAL).
    func phaseFinished(_ phase: String, seconds: Double, cpuSeconds: Double)
    /// The whole run's progress, 0...1 (never decreasing), at least every quarter of a second while it
    /// works, with what it is doing ("step v1 → v2", "integrity check and commit").
    func overallProgress(fraction: Double, phase: String)
}

extension MigrationReporter {
    public func stepStarted(from: Int, to: Int) {}
    public func progress(type: String, done: Int, total: Int) {}
    public func stepFinished(_ step: StepReport) {}
    public func phaseFinished(_ phase: String, seconds: Double, cpuSeconds: Double) {}
    public func overallProgress(fraction: Double, phase: String) {}
}

/// Wall and thread CPU time between marks, for `MigrationReporter.phaseFinished`.
struct PhaseClock {
    private var wall = PhaseClock.now()
    private var cpu = PhaseClock.threadCPU()
    let reporter: MigrationReporter?

    init(reporter: MigrationReporter?) { self.reporter = reporter }

    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func threadCPU() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Starts the next phase now, reporting nothing.
    mutating func skip() {
        guard reporter != nil else { return }
        wall = Self.now()
        cpu = Self.threadCPU()
    }

    /// Reports the time since the last mark as `phase` (nothing is measured without a reporter).
    mutating func mark(_ phase: String) {
        guard let reporter else { return }
        let w = Self.now()
        let c = Self.threadCPU()
        reporter.phaseFinished(phase, seconds: w - wall, cpuSeconds: c - cpu)
        wall = w
        cpu = c
    }
}

/// Keeps every event, for tests and for dry runs.
public final class RecordingMigrationReporter: MigrationReporter {
    /// One thing the migration reported.
    public enum Event: Equatable {
        case stepStarted(from: Int, to: Int)
        case progress(type: String, done: Int, total: Int)
        case stepFinished(from: Int, to: Int)
    }

    public private(set) var events: [Event] = []

    public init() {}

    public func stepStarted(from: Int, to: Int) { events.append(.stepStarted(from: from, to: to)) }
    public func progress(type: String, done: Int, total: Int) {
        events.append(.progress(type: type, done: done, total: total))
    }
    public func stepFinished(_ step: StepReport) {
        events.append(.stepFinished(from: step.fromVersion, to: step.toVersion))
    }
}
