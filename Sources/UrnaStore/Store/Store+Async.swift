import Foundation
import Synchronization

extension Store {
    /// `write` for async code: runs `body` in one write transaction off the caller's thread (so a task
    /// waiting for another writer does not hold up Swift's cooperative threads) and returns its result.
    ///
    /// Cancellation: a task cancelled before its write begins (before the call, or while it waits for another
    /// writer) throws `CancellationError` and writes nothing; `body` then never runs. Once `body` has begun, the
    /// write is not interrupted: it commits, or rolls back as a whole when `body` throws (never half of it).
    /// `body` can check for cancellation itself only through values it captured: it runs off the task.
    ///
    /// A single-expression body whose value is not used takes the `Void` form below (as `write` does): give the
    /// result a type to get it back.
    ///
    /// ```swift
    /// let id: Value = try await store.asyncWrite { try store.create("Person", value: ["fullName": "Ada"]).primaryKeyValue }
    /// ```
    @_disfavoredOverload
    @discardableResult
    public func asyncWrite<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await Self.offThread {
                // The wait for another writer ends when the task is cancelled: that writer may be a parked
                // `WriteTransaction` of this very task, which would never end.
                try self.write(unless: { cancelled.isSet }) {
                    // Checked with the write open (the wait for another writer is over): a cancelled write rolls
                    // back with nothing done.
                    if cancelled.isSet { throw CancellationError() }
                    return try body()
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }

    /// `asyncWrite` for a body whose result is not wanted: `try await store.asyncWrite { try store.create(...) }`
    /// then compiles in Swift 6 (it failed with "type 'Dog' does not conform to the 'Sendable' protocol": the object
    /// `create` returns cannot leave the write). Cancellation as in the generic form.
    public func asyncWrite(_ body: @escaping @Sendable () throws -> Void) async throws {
        let _: Bool = try await asyncWrite {
            try body()
            return true
        }
    }

    /// Runs a read (anything not writing: queries, counts, object reads) off the caller's thread and
    /// returns its `Sendable` result; like `read { }`, everything `body` reads comes from one commit.
    public func asyncRead<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await Self.offThread { try self.read(body) }
    }

    /// `refresh()` for async code.
    @discardableResult
    public func asyncRefresh() async throws -> Bool {
        try await Self.offThread { try self.refresh() }
    }

    private static func offThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Set when the task that started an `asyncWrite` is cancelled (the write runs off the task, so it cannot ask).
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
