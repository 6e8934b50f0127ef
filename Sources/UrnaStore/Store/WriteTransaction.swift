import Foundation

/// A write opened by `beginWrite()`, which any thread or task can go on with, commit or cancel: a serial queue's blocks
/// may run on different threads, and a task may resume on another thread after an `await`, where the write's first
/// thread no longer is.
///
/// ```swift
/// let w = try store.beginWrite()                   // on the queue's first block's thread
/// queue.async { try? w.perform { try store.create(Dog.self, value: [1, "Rex"]) } }   // maybe another thread
/// queue.async { try? w.commit() }
///
/// let w = try await store.beginWrite()             // in async code: the write belongs to `w` only
/// try w.perform { try store.create(Dog.self, value: [2, "Bo"]) }
/// try await upload()
/// try w.commit()                                   // on whatever thread the task resumed
/// ```
///
/// Rules: the write belongs to the thread that began it (`beginWrite()` outside async code) until its handle is
/// used; then to the thread inside `perform { }` while the block runs, and to no thread between two uses (the store's
/// calls outside `perform` then throw `StoreError.writeOnAnotherThread`). Calls through the handle on several threads
/// at once run one after the other (each waits for the store call running on another thread to end). A handle whose
/// write belongs to no thread when it is released rolls the write back, so a task cancelled or an error path between
/// two uses never leaves the store locked. Other threads' writes wait for the write's end, as for any write.
///
/// Between two uses the write is the handle's, never a thread's, not even the one that used it last (a pool thread may
/// run unrelated work there next): a file store's reads there see the last commit, as on any other thread. Anything on
/// that thread that would wait for the write (outside Swift concurrency) is refused with
/// `StoreError.parkedWriteOnThisThread` instead, because that thread may be the one to end it: `write { }`,
/// `beginWrite()`, raw SQL, `refresh()`, and an in-memory store's reads (a property getter there traps, as for any read
/// that fails). Other threads wait for the write. A task cannot be told from the others sharing its thread: a task
/// holding a write that awaits `asyncWrite { }` or `beginWrite()` waits for its own write until the task is cancelled
/// (then `CancellationError`); end the write first.
public final class WriteTransaction: Sendable {
    private let store: Store
    let id: UInt64

    init(store: Store, id: UInt64) {
        self.store = store
        self.id = id
    }

    /// Runs `body` on the calling thread inside the write (its store calls and setters write in it), then leaves the
    /// write open for the next use of this handle. An error from `body` leaves the write open: `cancel()` or `commit()`.
    /// Inside a file store's `read { }` it throws `StoreError.writeInsideRead` (as `write { }` there).
    @discardableResult
    public func perform<T>(_ body: () throws -> T) throws -> T {
        // Inside `read { }` its reads see one earlier commit: they would not see the write (as `write { }` there).
        if let readers = store.readers, readers.isInSnapshot() { throw StoreError.writeInsideRead }
        try store.takeWrite(id)
        defer { store.parkWrite() }
        return try body()
    }

    /// Commits the write from any thread, then tells observers; an error a setter recorded rolls it back and is thrown.
    public func commit() throws {
        try store.takeWrite(id)
        let changes: ChangeSet
        do {
            defer { store.writeLock.unlock() }
            changes = try store.commitHoldingLock()
        }
        if !changes.isEmpty { store.notifyObservers(changes) }
    }

    /// Rolls the write back from any thread; nothing it did remains. Does nothing when it has ended.
    public func cancel() {
        guard (try? store.takeWrite(id)) != nil else { return }
        defer { store.writeLock.unlock() }
        store.cancelWrite()
    }

    /// Whether the write is still open (a moment ago).
    public var isOpen: Bool { store.writeLock.isWriteOpen(id) }

    deinit {
        // Released while no thread uses the write: nobody can end it any more, and every other writer would wait.
        guard store.writeLock.takeIfParked(write: id) else { return }
        if let fileID = store.fileID { FileWriters.shared.begin(fileID, thread: currentThreadID()) }
        defer { store.writeLock.unlock() }
        store.cancelWrite()
    }
}

extension Store {
    /// Moves the write numbered `id` to the calling thread, entered once (see `WriteLock.take`).
    func takeWrite(_ id: UInt64) throws {
        switch writeLock.take(write: id) {
        case .ended: throw StoreError.writeEnded
        case .taken(let previous):
            guard let fileID else { return }
            if previous != 0 { FileWriters.shared.end(fileID, thread: previous) }
            if !FileWriters.shared.isWriting(fileID, thread: currentThreadID()) {
                FileWriters.shared.begin(fileID, thread: currentThreadID())
            }
        }
    }

    /// Leaves the write `takeWrite` entered; when the thread's last use of it ended, the write belongs to no thread.
    func parkWrite(remembering: Bool = true) {
        let me = currentThreadID()
        // What was read inside the write (an object's values, a counted `Results`) is the write's, uncommitted: read
        // again on the next use. Bumped before the write is parked, while no other thread can see it as current. A file
        // store only: in memory the parker's next read is refused anyway (not yet done for a value cached inside).
        if readers != nil { bumpGeneration() }
        if writeLock.park(remembering: remembering), let fileID { FileWriters.shared.end(fileID, thread: me) }
    }

    /// `beginWrite()` for async code: waits for other writers off the cooperative pool and returns a write that belongs
    /// to its `WriteTransaction` only (no thread), to go on with through `perform { }` and end with `commit()` or
    /// `cancel()` on whatever thread the task is on. A task cancelled before the write began throws
    /// `CancellationError` and opens nothing.
    public func beginWrite() async throws -> WriteTransaction {
        try Task.checkCancellation()
        let cancelled = CancellationFlag()
        let transaction = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<WriteTransaction, Error>) in
                DispatchQueue.global().async {
                    continuation.resume(
                        with: Result {
                            // Ends with `CancellationError` when the task is cancelled while it waits (for a write
                            // that may be this task's own parked one).
                            try self.openWrite(unless: { cancelled.isSet })
                            let w = WriteTransaction(store: self, id: self.writeLock.markWriteBegun())
                            // Taken once more and parked: the write is its handle's, not this pool thread's.
                            try self.takeWrite(w.id)
                            self.parkWrite(remembering: false)
                            return w
                        })
                }
            }
        } onCancel: {
            cancelled.set()
        }
        if Task.isCancelled {
            transaction.cancel()
            throw CancellationError()
        }
        return transaction
    }
}
