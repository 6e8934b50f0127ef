import Foundation
import Synchronization

/// `ObserverRegistry` behind an `NSLock`: a pthread mutex, which the thread sanitizer understands (it cannot see
/// `Synchronization.Mutex`'s futex on Linux, and reported every delivery from two committing threads as a race).
final class LockedObserverRegistry: @unchecked Sendable {
    private let lock = NSLock()
    private var registry = ObserverRegistry()

    func withLock<R>(_ body: (inout ObserverRegistry) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&registry)
    }
}

/// The store's observers and the timer that looks for other connections' commits while there are any.
struct ObserverRegistry: ~Copyable {
    var callbacks: [Int: @Sendable (ChangeSet) -> Void] = [:]
    /// What to call when the store goes away (a stream's `finish`), by observer id: nothing can be heard after it.
    var finishers: [Int: @Sendable () -> Void] = [:]
    var nextID = 0
    var timer: DispatchSourceTimer?
    /// Change sets waiting for delivery, in the order they were handed over; `only` names the one observer
    /// that should hear it (a new observer catching up), nil for all.
    var pending: [(changes: ChangeSet, only: Int?)] = []
    /// Whether a thread is delivering `pending` now (it delivers what others add meanwhile).
    var delivering = false

    mutating func stopPolling() {
        timer?.cancel()
        timer = nil
    }

    /// Stops polling and hands back the finishers, forgetting every observer (the store is going away).
    mutating func end() -> [@Sendable () -> Void] {
        stopPolling()
        defer {
            callbacks = [:]
            finishers = [:]
        }
        return Array(finishers.values)
    }
}

extension Store {
    /// How often the store looks for commits made elsewhere while observers are registered.
    static let pollInterval: DispatchTimeInterval = .milliseconds(250)

    /// Calls `callback` after each committed write that changed objects, and after commits made by other
    /// stores, connections or processes on the file (seen by `refresh()`, at the start of a write, or by
    /// the store's own look a few times a second while observers exist). Keep the token to keep observing.
    ///
    /// The callback runs on the thread that committed (or refreshed), after the write lock is released. Callbacks
    /// are called one at a time, in the order of the commits: a commit made while another thread is calling
    /// observers (or by an observer itself) is delivered by that thread, right after the callback it is running.
    /// A thread delivers at most `deliveriesPerCaller` queued changes, then leaves the rest to a background thread:
    /// a `write` returns even while other threads keep committing to a slow observer.
    public func observe(_ callback: @escaping @Sendable (ChangeSet) -> Void) -> ObservationToken {
        register(callback).token
    }

    /// Registers `callback` (see `observe`) and returns its token and its id in the registry; `onStoreEnd` is called
    /// when the store is deinitialised while the observation is still registered.
    private func register(
        _ callback: @escaping @Sendable (ChangeSet) -> Void, onStoreEnd: (@Sendable () -> Void)? = nil
    ) -> (token: ObservationToken, id: Int) {
        let id = observation.withLock { registry -> Int in
            let id = registry.nextID
            registry.nextID += 1
            registry.callbacks[id] = callback
            registry.finishers[id] = onStoreEnd
            if registry.timer == nil, readers != nil {
                let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
                timer.schedule(deadline: .now() + Self.pollInterval, repeating: Self.pollInterval)
                timer.setEventHandler { [weak self] in self?.pollOtherConnections() }
                timer.resume()
                registry.timer = timer
            }
            return id
        }
        let token = ObservationToken { [weak self] in
            // The callback is released after the lock: what it captured may end with it, and a token among that
            // (an observer holding another's token) invalidated itself under the same lock, which hung for good.
            let removed = self?.observation.withLock { registry in
                defer { if registry.callbacks.isEmpty { registry.stopPolling() } }
                return (registry.callbacks.removeValue(forKey: id), registry.finishers.removeValue(forKey: id))
            }
            withExtendedLifetime(removed) {}
        }
        return (token, id)
    }

    /// Every change set, as an async sequence. Each task iterating it hears every change set (see `ChangeStream`);
    /// an iteration ends when its task is cancelled, or when the store is deinitialised (nothing more can come).
    ///
    /// ```swift
    /// for await change in store.changes where change.types.contains("Dog") { reload() }
    /// ```
    public var changes: ChangeStream<AsyncStream<ChangeSet>> {
        ChangeStream { [weak self] in
            AsyncStream { continuation in
                guard let self else { return continuation.finish() }
                let token = self.register({ continuation.yield($0) }, onStoreEnd: { continuation.finish() }).token
                continuation.onTermination = { _ in token.invalidate() }
            }
        }
    }

    /// Calls each observer registered now, in registration order; one whose token was invalidated meanwhile (on
    /// another thread, or by an earlier observer of this change) is skipped. Only a call already started can
    /// still be running when `invalidate()` returns on another thread.
    ///
    /// Observers are called one at a time, in the order the changes were handed over: when another thread is
    /// delivering (or this one is, further up the stack: an observer that writes), the change is queued and
    /// that delivery calls it next. Two threads committing at once used to call the same observer at once,
    /// and a results observer could hear the later commit's count before the earlier one's.
    func notifyObservers(_ changes: ChangeSet, only: Int? = nil) {
        let deliverHere = observation.withLock { registry -> Bool in
            registry.pending.append((changes, only))
            if registry.delivering { return false }
            registry.delivering = true
            return true
        }
        guard deliverHere else { return }
        if writeLock.isHeldByCurrentThread || readers?.isInSnapshot() == true {
            // Inside `read { }` (a `refresh()` or an observer registered there) this thread's reads come from the
            // read's commit: observers called here would compare against it and never hear of the later commits.
            // Still holding the write lock (a commit inside the importer's `withForeignKeysOff`), observers called
            // here would write with the writer's foreign keys off.
            DispatchQueue.global().async { self.deliverPending(upTo: Int.max) }
            return
        }
        deliverPending(upTo: Self.deliveriesPerCaller)
    }

    /// How many queued change sets a committing thread delivers before it hands the rest to a background thread:
    /// while other threads keep committing, the queue may never empty, and that thread's `write` would not return.
    static let deliveriesPerCaller = 32

    /// Delivers queued change sets, in order, until the queue is empty or `limit` were delivered; then the rest goes
    /// on on a background thread (still one at a time, in order). Called by the one thread that set `delivering`.
    private func deliverPending(upTo limit: Int) {
        var delivered = 0
        while let next = observation.withLock({ registry -> (changes: ChangeSet, only: Int?)? in
            if registry.pending.isEmpty {
                registry.delivering = false
                return nil
            }
            return registry.pending.removeFirst()
        }) {
            let ids = next.only.map { [$0] } ?? observation.withLock { $0.callbacks.keys.sorted() }
            for id in ids {
                guard let c = observation.withLock({ $0.callbacks[id] }) else { continue }
                c(next.changes)
            }
            delivered += 1
            if delivered >= limit {
                DispatchQueue.global().async { self.deliverPending(upTo: Int.max) }
                return
            }
        }
    }

    /// Registers `callback` like `observe`, then has it called once (in delivery order) so that it catches up with
    /// commits made between its caller's first snapshot and this registration, which nobody told it of.
    func observeCatchingUp(_ callback: @escaping @Sendable (ChangeSet) -> Void) -> ObservationToken {
        let (token, id) = register(callback)
        notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name))), only: id)
        return token
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
