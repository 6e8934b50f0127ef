import Foundation
import Synchronization

/// The store's observers and the timer that looks for other connections' commits while there are any.
struct ObserverRegistry: ~Copyable {
    var callbacks: [Int: @Sendable (ChangeSet) -> Void] = [:]
    var nextID = 0
    var timer: DispatchSourceTimer?

    mutating func stopPolling() {
        timer?.cancel()
        timer = nil
    }
}

extension Store {
    /// How often the store looks for commits made elsewhere while observers are registered.
    static let pollInterval: DispatchTimeInterval = .milliseconds(250)

    /// Calls `callback` after each committed write that changed objects, and after commits made by other
    /// stores, connections or processes on the file (seen by `refresh()`, at the start of a write, or by
    /// the store's own look a few times a second while observers exist). Keep the token to keep observing.
    ///
    /// The callback runs on the thread that committed (or refreshed), after the write lock is released.
    public func observe(_ callback: @escaping @Sendable (ChangeSet) -> Void) -> ObservationToken {
        let id = observation.withLock { registry -> Int in
            let id = registry.nextID
            registry.nextID += 1
            registry.callbacks[id] = callback
            if registry.timer == nil, readers != nil {
                let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval)
                timer.setEventHandler { [weak self] in self?.pollOtherConnections() }
                timer.resume()
                registry.timer = timer
            }
            return id
        }
        return ObservationToken { [weak self] in
            self?.observation.withLock { registry in
                registry.callbacks[id] = nil
                if registry.callbacks.isEmpty { registry.stopPolling() }
            }
        }
    }

    /// Every change set, as an async sequence (ends when the consuming task is cancelled).
    ///
    /// ```swift
    /// for await change in store.changes where change.types.contains("Dog") { reload() }
    /// ```
    public var changes: AsyncStream<ChangeSet> {
        AsyncStream { continuation in
            let token = observe { continuation.yield($0) }
            continuation.onTermination = { _ in token.invalidate() }
        }
    }

    /// Calls each observer registered now, in registration order; one whose token was invalidated meanwhile (on
    /// another thread, or by an earlier observer of this change) is skipped. Only a call already started can
    /// still be running when `invalidate()` returns on another thread.
    func notifyObservers(_ changes: ChangeSet) {
        let ids = observation.withLock { $0.callbacks.keys.sorted() }
        for id in ids {
            guard let c = observation.withLock({ $0.callbacks[id] }) else { continue }
            c(changes)
        }
    }
}

/// Stops an observation when `invalidate()` is called or the token is released.
public final class ObservationToken: Sendable {
    private let cancel: Mutex<(@Sendable () -> Void)?>
    init(_ cancel: @escaping @Sendable () -> Void) { self.cancel = Mutex(cancel) }
    public func invalidate() {
        let c = cancel.withLock { c -> (@Sendable () -> Void)? in
            defer { c = nil }
            return c
        }
        c?()
    }
    deinit { invalidate() }
}
