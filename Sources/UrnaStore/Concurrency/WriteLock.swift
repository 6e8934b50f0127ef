import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The last thread token given (0: none yet); see `currentThreadID()`.
private let lastThreadToken = Atomic<UInt>(0)

/// The thread-local slot holding the calling thread's token (as a pointer's bit pattern; nothing to free).
private let threadTokenKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "Urna: no thread-local slot left for the write lock")
    return key
}()

/// The calling thread's identity, for the locks that must know who holds them: a number given to each thread the first
/// time it asks, from a process-wide counter, and never given again. The system's thread ids are reused: a thread
/// started after another ended could get its id, and was taken for the owner of the write the ended one left open
/// (its store calls wrote in it, its `commitWrite()` committed it).
func currentThreadID() -> UInt {
    if let slot = pthread_getspecific(threadTokenKey) { return UInt(bitPattern: slot) }
    let token = lastThreadToken.add(1, ordering: .relaxed).newValue
    pthread_setspecific(threadTokenKey, UnsafeRawPointer(bitPattern: token))
    return token
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

    /// The thread that last left a `beginWrite()` write parked, outside Swift concurrency (0: none, or a task's
    /// pool thread, which other tasks share); guarded by `condition`.
    private var parker: UInt = 0
    /// Whether the parker holds the lock now for work that runs no SQL (see `lockQuietly()`); guarded by `condition`.
    private var borrowed = false

    /// Takes the lock, waiting while another thread holds it.
    ///
    /// A parked write is its `WriteTransaction`'s, never a thread's: nothing on the thread that parked it last joins it
    /// (that thread may be a pool thread running unrelated work by now). Waiting for it there could wait for good,
    /// though (`w.perform { }`, then a read of an in-memory store or `write { }`, then `w.commit()` on one thread), so
    /// that thread is refused with `StoreError.parkedWriteOnThisThread` instead, until the write ends or another
    /// thread uses it. Other threads wait for it, as for any write.
    func lock() throws {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        while owner != 0 && owner != me {
            if owner == Self.parked && parker == me && write != 0 && !Self.inTask {
                throw StoreError.parkedWriteOnThisThread
            }
            condition.wait()
        }
        owner = me
        depth += 1
    }

    /// Throws `parkedWriteOnThisThread` where `lock()` would (the calling thread left the write parked), and returns at
    /// once otherwise: for a caller about to wait for another lock first, which a thread waiting inside it for the
    /// parked write may hold. Only the calling thread makes itself the parker, so the answer holds until it parks one.
    func refuseIfParkedHere() throws {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        if owner == Self.parked && parker == me && write != 0 && !Self.inTask {
            throw StoreError.parkedWriteOnThisThread
        }
    }

    /// `lock()` for work that runs no SQL and cannot fail (a statement's reset, the statement cache): on the thread that
    /// left a write parked it holds the lock at once, on the write's behalf, until `unlock()` parks the write again
    /// (nothing it does touches the write's rows, and waiting there could wait for good).
    func lockQuietly() {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        while owner != 0 && owner != me {
            if owner == Self.parked && parker == me && write != 0 && !Self.inTask {
                borrowed = true
                break
            }
            condition.wait()
        }
        owner = me
        depth += 1
    }

    /// `lock()` for a write opened for async code off the task (`asyncWrite`, `try await beginWrite()`): never holds
    /// a parked write (its pool thread may have left another flow's write parked), and stops waiting with
    /// `CancellationError` once `cancelled()` says the task was cancelled.
    func lock(unless cancelled: () -> Bool) throws {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        while owner != 0 && owner != me {
            if cancelled() { throw CancellationError() }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        owner = me
        depth += 1
    }

    /// Whether the calling thread runs a Swift task (whose pool thread other tasks share).
    private static var inTask: Bool { withUnsafeCurrentTask { $0 != nil } }

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
        if depth == 0 {
            owner = 0
            borrowed = false
        } else if depth == 1 && borrowed && write != 0 {
            // The parker's `lockQuietly()` on the parked write's behalf ends: the write is its handle's again.
            owner = Self.parked
            borrowed = false
        }
        // A `take` waits for depth 1 (the holder between two store calls), the others for 0.
        if depth <= 1 { condition.broadcast() }
        condition.unlock()
    }

    /// Enters once more when the calling thread holds the lock (release with `unlock()`); false, without waiting,
    /// when it does not. Store calls inside a write enter so, and a `take` waits until they are done.
    func enterIfHeldByCurrentThread() -> Bool {
        // The cheap look first (`owner` is atomic): any value but this thread is "not me".
        let me = currentThreadID()
        guard owner == me else { return false }
        condition.lock()
        defer { condition.unlock() }
        // Again under the lock: a `take` on another thread may have moved the write since (this thread was at depth 1
        // between two store calls); entering then made two threads use one connection at once.
        guard owner == me else { return false }
        depth += 1
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

    /// Like `take`, but only when the write is parked (nobody uses it): for a dropped `WriteTransaction`. While its
    /// parker holds the lock for quiet work (`lockQuietly()`), the write counts as parked: that thread takes it at once,
    /// another waits for it to release the lock.
    func takeIfParked(write id: UInt64) -> Bool {
        let me = currentThreadID()
        condition.lock()
        defer { condition.unlock() }
        while write == id && borrowed && owner != me { condition.wait() }
        guard write == id, owner == Self.parked || (borrowed && owner == me) else { return false }
        owner = me
        depth += 1
        return true
    }

    /// Leaves once (after `take`); when that was the calling thread's last store call in the write, the write stays
    /// open for no thread (its `WriteTransaction` takes it again). Returns whether it was parked.
    /// `remembering`: whether the calling thread counts as the write's parker (refused rather than left waiting for
    /// it, see `lock()`); a task's pool thread never does.
    @discardableResult
    func park(remembering: Bool = true) -> Bool {
        let me = currentThreadID()
        let inTask = Self.inTask
        condition.lock()
        defer { condition.unlock() }
        precondition(owner == me, "Urna: a write was parked by a thread that does not hold it")
        depth -= 1
        if depth == 1 && write != 0 {
            parker = remembering && !inTask ? me : 0
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

    /// Runs `body` holding the lock; throws `parkedWriteOnThisThread` as `lock()` does.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try lock()
        defer { unlock() }
        return try body()
    }
}
