import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The calling thread's identity, for the locks that must know who holds them.
func currentThreadID() -> UInt {
    #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
    #else
        UInt(pthread_self())
    #endif
}

/// The store's one-writer lock: a thread that wants to write waits here until the thread writing now is
/// done, instead of failing with "database is locked". Re-entrant for its holder, so reads inside a write
/// and `write` inside `write` (refused with a clear error) do not deadlock.
///
/// A write begun by `beginWrite()` holds the lock for its thread at depth 1; every store call inside it enters again
/// (depth 2 or more) while it touches the write. Its `WriteTransaction` can move it to another thread (`take`), only
/// while no store call of the holder is running (depth 1), and leave it to no thread between two uses (`park`).
final class WriteLock: @unchecked Sendable {
    /// The owner of a lock held by a write that no thread is using now: its `WriteTransaction` holds it.
    private static let parked = UInt.max
    private let condition = NSCondition()
    /// Written only under `condition`; read without it where only "is it me" matters (a thread sees its own
    /// writes, and any other value is "not me").
    private let ownerID = Atomic<UInt>(0)
    private var owner: UInt {
        get { ownerID.load(ordering: .relaxed) }
        set { ownerID.store(newValue, ordering: .relaxed) }
    }
    private var depth = 0
    /// The `beginWrite()` write holding the lock (0: none), and the last number given (guarded by `condition`).
    private var write: UInt64 = 0
    private var lastWrite: UInt64 = 0

    func lock() {
        let me = currentThreadID()
        condition.lock()
        while owner != 0 && owner != me { condition.wait() }
        owner = me
        depth += 1
        condition.unlock()
    }

    /// Takes the lock when nobody else holds it; false (without waiting) otherwise.
    func tryLock() -> Bool {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        guard owner == 0 || owner == me else { return false }
        owner = me
        depth += 1
        return true
    }

    func unlock() {
        condition.lock()
        precondition(
            owner == currentThreadID(), "Urna: the store's write lock was released by a thread that does not hold it")
        depth -= 1
        if depth == 0 { owner = 0 }
        // A `take` waits for depth 1 (the holder between two store calls), the others for 0.
        if depth <= 1 { condition.broadcast() }
        condition.unlock()
    }

    /// Enters once more when the calling thread holds the lock (release with `unlock()`); false, without waiting,
    /// when it does not. Store calls inside a write enter so, and a `take` waits until they are done.
    func enterIfHeldByCurrentThread() -> Bool {
        // Only this thread can make the owner this thread, or take it from this thread while it is inside.
        guard owner == currentThreadID() else { return false }
        condition.lock()
        depth += 1
        condition.unlock()
        return true
    }

    /// Numbers the write the calling thread has just begun holding the lock (at depth 1).
    func markWriteBegun() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        lastWrite += 1
        write = lastWrite
        return write
    }

    /// The write holding the lock has ended (its holder releases the lock next).
    func markWriteEnded() {
        condition.lock()
        write = 0
        condition.unlock()
    }

    /// Whether a `beginWrite()` write holds the lock on another thread or parked (a moment ago).
    var holdsWriteOfAnotherThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return write != 0 && owner != currentThreadID()
    }

    /// Whether the write numbered `id` still holds the lock (a moment ago).
    func isWriteOpen(_ id: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return write == id
    }

    /// What `take` found.
    enum Taken: Equatable {
        /// The write is over (committed, cancelled, rolled back).
        case ended
        /// The calling thread holds it now (entered once more); `from` is the thread that held it (0 when it was
        /// parked or already this thread's).
        case taken(from: UInt)
    }

    /// Moves the write numbered `id` to the calling thread, entering once (release with `unlock()` or `park()`):
    /// waits while another thread is inside a store call of it (depth above 1), never while it merely holds it.
    func take(write id: UInt64) -> Taken {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        while true {
            guard write == id else { return .ended }
            if owner == me {
                depth += 1
                return .taken(from: 0)
            }
            if owner == Self.parked || depth == 1 {
                let previous = owner == Self.parked ? 0 : owner
                owner = me
                depth += 1
                return .taken(from: previous)
            }
            condition.wait()
        }
    }

    /// Like `take`, but only when the write is parked (nobody uses it): for a dropped `WriteTransaction`.
    func takeIfParked(write id: UInt64) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard write == id, owner == Self.parked else { return false }
        owner = currentThreadID()
        depth += 1
        return true
    }

    /// Leaves once (after `take`); when that was the calling thread's last store call in the write, the write stays
    /// open for no thread (its `WriteTransaction` takes it again). Returns whether it was parked.
    @discardableResult
    func park() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        precondition(owner == currentThreadID(), "Urna: a write was parked by a thread that does not hold it")
        depth -= 1
        if depth == 1 && write != 0 {
            owner = Self.parked
            condition.broadcast()
            return true
        }
        if depth == 0 {
            owner = 0
            condition.broadcast()
        }
        return false
    }

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { owner == currentThreadID() }

    /// Whether any thread holds the lock (a moment ago).
    var isHeld: Bool { owner != 0 }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
