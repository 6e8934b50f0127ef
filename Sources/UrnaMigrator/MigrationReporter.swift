import Foundation

/// Where a migration reports progress (the library never prints). Every method has a default that
/// does nothing.
public protocol MigrationReporter: AnyObject {
    func stepStarted(from: Int, to: Int)
    /// `done` of `total` objects of `type` went through Swift (reported every 50,000).
    func progress(type: String, done: Int, total: Int)
    func stepFinished(_ step: StepReport)
}

extension MigrationReporter {
    public func stepStarted(from: Int, to: Int) {}
    public func progress(type: String, done: Int, total: Int) {}
    public func stepFinished(_ step: StepReport) {}
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
