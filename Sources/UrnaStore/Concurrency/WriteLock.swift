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
final class WriteLock: @unchecked Sendable {
    private let condition = NSCondition()
    /// Written only under `condition`; read without it where only "is it me" matters (a thread sees its own
    /// writes, and any other value is "not me").
    private let ownerID = Atomic<UInt>(0)
    private var owner: UInt {
        get { ownerID.load(ordering: .relaxed) }
        set { ownerID.store(newValue, ordering: .relaxed) }
    }
    private var depth = 0

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
        if depth == 0 {
            owner = 0
            condition.broadcast()
        }
        condition.unlock()
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
