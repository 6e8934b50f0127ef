import Foundation

/// Errors the store raises for misuse or bad values; each names what to change.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    case notInWriteTransaction
    case alreadyInWriteTransaction
    case unknownType(String)
    case unknownProperty(type: String, property: String)
    case typeMismatch(type: String, property: String, expected: String, got: String)
    case nullNotAllowed(type: String, property: String)
    case outOfRange(type: String, property: String, value: String, range: String)
    case readOnlyProperty(type: String, property: String)
    case noPrimaryKey(type: String)
    case duplicatePrimaryKey(type: String, key: String)
    case missingPrimaryKey(type: String)
    case objectNotFound(type: String, key: String)
    case unmanagedObject(type: String)
    case schemaMismatch(String)
    case familyMismatch(file: String, expected: String)
    case tooManyValues(type: String, given: Int, expected: Int)
    case invalidated(type: String)
    /// A managed object's store was released (no `Store` reference was left): its values can't be read or set.
    case storeReleased(type: String)
    case indexOutOfRange(index: Int, count: Int)
    /// SQLite rolled the write back after an error (a full disk, an I/O error); nothing of it remains.
    case writeRolledBack(reason: String)
    /// `observe` was called inside a write transaction: its first snapshot would hold changes not committed yet.
    case observeInWriteTransaction
    /// `commitWrite()` inside `write { }`, which commits when its body returns: the whole write was rolled back.
    case commitInsideWriteBlock
    /// A raw `BEGIN` or `SAVEPOINT` on `store.connection` outside a store's write: it was rolled back at once.
    case rawTransactionOutsideWrite
    /// A write inside `read { }` (or `asyncRead { }`), whose reads see one earlier commit: they would not see it.
    case writeInsideRead
    /// `commitWrite()` (or a write's step) on a thread that does not hold the open write: it belongs to another thread,
    /// or (once used) to the `WriteTransaction` that `beginWrite()` returned, through which it goes on from any thread.
    case writeOnAnotherThread
    /// A `WriteTransaction` whose write already ended (committed, cancelled, or rolled back when its handle was dropped).
    case writeEnded
    /// A call that needs the write lock (a write, raw SQL, `refresh()`, an in-memory store's read) on the thread that last
    /// used a `WriteTransaction` whose write is still open: the write is the handle's, so the call cannot join it, and
    /// waiting for it there could wait for good (that thread may be the one to end it). Nothing was done.
    case parkedWriteOnThisThread

    public var description: String {
        switch self {
        case .notInWriteTransaction:
            "a write needs a write transaction: wrap it in store.write { ... } or beginWrite()/commitWrite()"
        case .alreadyInWriteTransaction:
            "this thread already has a write open on this file (a write inside a write, through this or another Store, "
                + "or started by code the open write's body calls, such as a cancellation handler that task.cancel() ran): "
                + "do it inside the open write, or after it (Task { try await store.asyncWrite { ... } })"
        case .unknownType(let t): "unknown object type '\(t)'"
        case .unknownProperty(let t, let p): "\(t) has no property '\(p)'"
        case .typeMismatch(let t, let p, let e, let g): "\(t).\(p) holds \(e), not \(g)"
        case .nullNotAllowed(let t, let p): "\(t).\(p) is required: give it a value (or declare it optional)"
        case .outOfRange(let t, let p, let v, let r): "\(t).\(p): \(v) is out of range (\(r))"
        case .readOnlyProperty(let t, let p): "\(t).\(p) is computed (inverse link) and cannot be set"
        case .noPrimaryKey(let t): "\(t) has no primary key: update: needs one"
        case .duplicatePrimaryKey(let t, let k):
            "\(t) with primary key \(k) already exists: use update: .modified to upsert"
        case .missingPrimaryKey(let t): "\(t) needs its primary key value"
        case .objectNotFound(let t, let k): "no \(t) with key \(k)"
        case .unmanagedObject(let t): "this \(t) is not stored in a store yet: add it first"
        case .schemaMismatch(let m): m
        case .familyMismatch(let f, let e): "the file holds family '\(f)', not '\(e)'"
        case .tooManyValues(let t, let g, let e): "\(t) takes at most \(e) values in order, \(g) were given"
        case .invalidated(let t):
            "this \(t) was deleted (by this or another reference, store or process): check isInvalidated before reading it"
        case .storeReleased(let t):
            "this \(t) belongs to a store that was released (no Store reference is left): keep the Store alive while its objects are used"
        case .writeRolledBack(let reason):
            "the write was rolled back after an earlier error in it (\(reason)): nothing of it was saved; fix the cause and write again"
        case .commitInsideWriteBlock:
            "commitWrite() was called inside store.write { ... }, which commits when its body returns: the whole "
                + "write was rolled back (nothing of it was committed); return from the block instead"
        case .rawTransactionOutsideWrite:
            "a transaction opened by raw SQL on store.connection (BEGIN, SAVEPOINT) outside store.write { ... } was "
                + "rolled back at once: it would be shared with every thread using the store; open it with "
                + "store.write { ... } or beginWrite(), where raw SQL joins the store's write"
        case .writeInsideRead:
            "a write cannot run inside store.read { ... } or asyncRead { ... } (their reads see one earlier commit, "
                + "so they would not see it): write before or after the read, or read inside the write"
        case .writeOnAnotherThread:
            "this thread has no write open: the store's open write belongs to another thread (a serial queue's "
                + "earlier block, a task before an await) or, once its WriteTransaction was used (w.perform { }), to "
                + "that handle only, even on the thread that began it; go on with it, commit or cancel it through "
                + "the WriteTransaction that beginWrite() returned (w.perform { }, w.commit(), w.cancel(), from any "
                + "thread), or use store.write { ... }"
        case .writeEnded:
            "this WriteTransaction's write has ended (committed, cancelled, or rolled back when its handle was "
                + "dropped): begin a new write"
        case .parkedWriteOnThisThread:
            "a WriteTransaction's write is open and was last used on this thread: it belongs to its handle, so this "
                + "call cannot join it, and waiting for it here could wait for good (this thread may be the one to end "
                + "it), so nothing was done; do this inside w.perform { }, or after w.commit() or w.cancel(), or run "
                + "work unrelated to the write on another thread"
        case .observeInWriteTransaction:
            "observe is not available inside a write transaction (its first snapshot would hold changes that may "
                + "never be committed): start observing before store.write { ... } or after it"
        case .indexOutOfRange(let i, let n):
            "index \(i) is out of range: the results hold \(n) object\(n == 1 ? "" : "s")"
        }
    }

    /// The description, for `localizedDescription`.
    public var errorDescription: String? { description }
}
