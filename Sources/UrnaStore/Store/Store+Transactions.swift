import Foundation
import Synchronization

extension Store {
    /// Whether the calling thread has a write transaction open on this store.
    public var isInWriteTransaction: Bool {
        // Entered, so that a `WriteTransaction` cannot move the write to another thread while `writeOpen` is read.
        guard writeLock.enterIfHeldByCurrentThread() else { return false }
        defer { writeLock.unlock() }
        return writeOpen
    }

    /// Runs `body` in one write transaction: everything it did is committed, or nothing if it throws.
    ///
    /// Safe from any thread or task: when another thread is writing, this one waits for it to finish (it
    /// does not fail). The write starts by catching up with commits made elsewhere (`refresh()`), so
    /// everything `body` reads is current. An error that a property setter could not throw (a full disk
    /// while setting `dog.name`) is recorded and thrown here, after the whole write is rolled back.
    ///
    /// ```swift
    /// Task { try store.write { try store.create("Person", value: ["fullName": "Ada"]) } }
    /// ```
    ///
    /// A single-expression body whose value is not used (`Task { try store.write { try store.create(...) } }`)
    /// takes the `Void` form below, so a task does not try to return a non-`Sendable` object; give the
    /// result a type (`let dog: Dog = try store.write { ... }`) to get it back.
    @_disfavoredOverload
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        try write(unless: nil, body)
    }

    /// `write` whose wait for another writer ends with `CancellationError` once `cancelled` says so (async code).
    func write<T>(unless cancelled: (() -> Bool)?, _ body: () throws -> T) throws -> T {
        try openWrite(unless: cancelled)
        writeBlockOpen = true
        do {
            let result = try body()
            writeBlockOpen = false
            try commitWrite()
            return result
        } catch {
            cancelWrite()
            throw error
        }
    }

    /// `write` for a body whose result is not wanted: `Task { try store.write { try store.create(...) } }`
    /// then compiles in Swift 6 (the objects a body makes are not `Sendable`, so they cannot be a task's
    /// result).
    public func write(_ body: () throws -> Void) throws {
        try write(unless: nil, body)
    }

    /// Opens a write transaction (BEGIN IMMEDIATE), waiting while another thread writes. The write belongs to the
    /// calling thread: its store calls write in it, and `commitWrite()`/`cancelWrite()` there end it.
    ///
    /// To go on with the write on another thread (a serial queue's next block, which may run on another thread),
    /// keep the `WriteTransaction` it returns and go through it from any thread: `perform { }`, `commit()`, `cancel()`.
    /// `commitWrite()` on a thread that did not begin the write throws `StoreError.writeOnAnotherThread` (it left the
    /// write open for good, and every other writer waiting).
    ///
    /// ```swift
    /// let w = try store.beginWrite()
    /// queue.async { try? w.perform { try store.create(Dog.self, value: [1, "Rex"]) } }
    /// queue.async { try? w.commit() }
    /// ```
    ///
    /// Unavailable from async code (a task may resume on another thread): there `try await store.beginWrite()` gives
    /// a write that belongs to its handle only.
    @available(
        *, noasync,
        message:
            "a task may resume on another thread after an await: use write { }, asyncWrite { } or try await beginWrite()"
    )
    @discardableResult
    public func beginWrite() throws -> WriteTransaction {
        try openWrite()
        return WriteTransaction(store: self, id: writeLock.markWriteBegun())
    }

    /// `beginWrite()` without its handle, for `write { }`. With `cancelled` (async code, off the task), the wait for
    /// another writer ends with `CancellationError` once it says so.
    func openWrite(unless cancelled: (() -> Bool)? = nil) throws {
        if let readers, readers.isInSnapshot() { throw StoreError.writeInsideRead }
        if let cancelled { try writeLock.lock(unless: cancelled) } else { try writeLock.lock() }
        if inMemoryReads > 0 && !writeOpen {
            writeLock.unlock()
            throw StoreError.writeInsideRead
        }
        if writeOpen || connection.isInTransaction {
            writeLock.unlock()
            throw StoreError.alreadyInWriteTransaction
        }
        if let fileID, FileWriters.shared.isWriting(fileID, thread: currentThreadID()) {
            // This thread writes the file through another Store: SQLite's lock is its own, waiting would never end.
            writeLock.unlock()
            throw StoreError.alreadyInWriteTransaction
        }
        do {
            try beginImmediateWaitingForMigration()
        } catch {
            writeLock.unlock()
            throw error
        }
        writeOpen = true
        if let fileID { FileWriters.shared.begin(fileID, thread: currentThreadID()) }
        pendingChanges = ChangeSet()
        deferredWriteError = nil
        touched.reset()
        if (try? catchUpWithOtherConnections()) == true {
            // Observers hear about the other commit after this write (they run outside the lock).
            pendingChanges.possiblyChanged.formUnion(schema.tableTypes.map(\.name))
        }
        if let problem = fileSchemaProblem {
            // Written with this store's (older) schema, the file's new tables would get values in the old form.
            try? connection.execute("ROLLBACK")
            pendingChanges = ChangeSet()
            writeOpen = false
            if let fileID { FileWriters.shared.end(fileID, thread: currentThreadID()) }
            writeLock.unlock()
            throw StoreError.schemaMismatch(problem)
        }
    }

    /// `BEGIN IMMEDIATE`; when SQLite's busy wait (5 s) runs out because a migration of this file holds it (the app's
    /// own `migrateIfNeeded` on another thread, `urna migrate` in another process), waits for the migration to end
    /// and tries again. The write then finds the file migrated and throws `schemaMismatch`, saying what to do,
    /// instead of "database is locked".
    func beginImmediateWaitingForMigration() throws {
        while true {
            do {
                try connection.execute("BEGIN IMMEDIATE")
                return
            } catch let e as SQLiteError where e.isBusy && MigrationMarker.isRunning(forDatabase: connection.path) {
                while MigrationMarker.isRunning(forDatabase: connection.path) { usleep(50_000) }
            }
        }
    }

    /// Commits the open write transaction, then tells observers what changed.
    ///
    /// Throws (after rolling everything back) the first error a setter recorded during the write.
    @available(
        *, noasync, message: "a task may resume on another thread after an await: use write { } or asyncWrite { }"
    )
    public func commitWrite() throws {
        // The lock first: `writeOpen` belongs to the thread holding it (read first, it raced with that thread's write).
        guard writeLock.enterIfHeldByCurrentThread() else { throw noWriteOnThisThread() }
        let changes: ChangeSet
        do {
            defer { writeLock.unlock() }
            guard writeOpen else { throw StoreError.notInWriteTransaction }
            changes = try commitHoldingLock()
        }
        if !changes.isEmpty { notifyObservers(changes) }
    }

    /// Why this thread cannot commit: it has no write, or the open write is another thread's (or its handle's).
    func noWriteOnThisThread() -> StoreError {
        writeLock.holdsWriteOfAnotherThread ? .writeOnAnotherThread : .notInWriteTransaction
    }

    /// Commits the open write (entered once more by the caller, who releases that level) and releases the write's
    /// own level; returns what observers should hear once the lock is free.
    func commitHoldingLock() throws -> ChangeSet {
        if writeBlockOpen {
            // Inside `write { }`: committing here would leave the block's first half on disk when its rest fails.
            cancelWrite()
            throw StoreError.commitInsideWriteBlock
        }
        if let e = deferredWriteError {
            cancelWrite()
            throw e
        }
        guard connection.isInTransaction else {
            cancelWrite()
            throw StoreError.writeRolledBack(reason: "SQLite ended the transaction")
        }
        do {
            connection.commitGuard.refuses = false
            try connection.execute("COMMIT")
        } catch {
            cancelWrite()
            throw error
        }
        var changes = pendingChanges
        for table in touched.names where schema[type: table] != nil && !changes.types.contains(table) {
            changes.possiblyChanged.insert(table)
        }
        pendingChanges = ChangeSet()
        touched.reset()
        deletedInWrite = []
        writeOpen = false
        if let fileID { FileWriters.shared.end(fileID, thread: currentThreadID()) }
        bumpGeneration()
        writeLock.markWriteEnded()
        writeLock.unlock()
        return changes
    }

    /// Rolls back the open write transaction; nothing it did remains.
    @available(
        *, noasync, message: "a task may resume on another thread after an await: use write { } or asyncWrite { }"
    )
    public func cancelWrite() {
        guard writeLock.enterIfHeldByCurrentThread() else { return }
        defer { writeLock.unlock() }
        writeBlockOpen = false
        // The deletes this write made through objects' own references did not happen.
        for (object, key) in deletedInWrite where object.wasDeleted {
            object.store = self
            object.storedKey = key
            object.wasDeleted = false
            object.loadedGeneration = -1
        }
        deletedInWrite = []
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        pendingChanges = ChangeSet()
        deferredWriteError = nil
        touched.reset()
        bumpGeneration()
        if writeOpen {
            writeOpen = false
            if let fileID { FileWriters.shared.end(fileID, thread: currentThreadID()) }
            writeLock.markWriteEnded()
            writeLock.unlock()
        }
    }

    /// Runs a write's step (`create`, `delete`, a list edit, a setter) entered in the write lock, so that a
    /// `WriteTransaction` cannot move the write to another thread in the middle of it; throws when this thread has
    /// no write open.
    func writing<T>(_ body: () throws -> T) throws -> T {
        guard writeLock.enterIfHeldByCurrentThread() else { throw noWriteOnThisThread() }
        defer { writeLock.unlock() }
        try requireWrite()
        return try body()
    }

    func requireWrite() throws {
        // The lock first: `writeOpen` belongs to the thread holding it (read first, it raced with that thread's write).
        guard writeLock.isHeldByCurrentThread, writeOpen else { throw StoreError.notInWriteTransaction }
        guard connection.isInTransaction else {
            // SQLite ends the transaction itself after some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM):
            // say so, rather than "not in a write transaction" or, worse, writing outside one.
            throw deferredWriteError ?? StoreError.writeRolledBack(reason: "SQLite ended the transaction")
        }
    }

    /// Keeps an error that a setter (which cannot throw) met, for `commitWrite` to throw.
    func recordWriteError(_ error: Error) {
        // Only the thread holding the write may touch it; a setter whose write moved to another thread (through its
        // `WriteTransaction`) wrote nothing, and cannot throw: it traps, as a setter outside a write does.
        guard writeLock.enterIfHeldByCurrentThread() else {
            preconditionFailure("a property was set outside this thread's write (\(error))")
        }
        defer { writeLock.unlock() }
        if deferredWriteError == nil { deferredWriteError = error }
    }
}
