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

    // MARK: - Freshness

    /// Catches up with commits made by other stores, connections or processes on the same file: cached
    /// results and object values are read again on their next use, and observers are told. Returns
    /// whether anything had changed.
    ///
    /// Reads that touch the file always see the last commit; what `refresh()` renews is what was already
    /// read (a counted `Results`, an object's loaded values). Each `write` refreshes first on its own,
    /// and while observers are registered the store looks for other commits a few times a second.
    ///
    /// Observers have been told of what it found (by this call or by the store's own look) when it returns, unless
    /// another thread was calling observers at that moment: that thread tells them next, in order.
    /// Inside a write it only catches up: the write's observers hear of it at commit.
    @discardableResult
    public func refresh() throws -> Bool {
        // In memory nobody else commits: nothing to catch up with (and no need for the lock, which the thread that left
        // a `WriteTransaction`'s write parked could not take).
        guard readers != nil else { return false }
        if writeLock.enterIfHeldByCurrentThread() {
            defer { writeLock.unlock() }
            let changed = try catchUpWithOtherConnections()
            if changed, writeOpen { pendingChanges.possiblyChanged.formUnion(schema.tableTypes.map(\.name)) }
            return changed
        }
        if readers?.isInSnapshot() == true {
            // Inside `read { }` observers are told on another thread anyway (`notifyObservers`), so this refresh does not
            // wait for `refreshLock`: it would wait holding the read's pooled connection, while the thread delivering
            // under that lock may need one for a results observer. Four reads refreshing so hung the store for good.
            let changed = try writeLock.withLock { try catchUpWithOtherConnections() }
            if changed { notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name)))) }
            return changed
        }
        return try refreshLock.withLock {
            let changed = try writeLock.withLock { try catchUpWithOtherConnections() }
            if changed { notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name)))) }
            return changed
        }
    }

    /// Like `refresh()`, but gives up at once when another thread is writing (that write will catch up).
    func pollOtherConnections() {
        guard refreshLock.try() else { return }
        defer { refreshLock.unlock() }
        guard writeLock.tryLock() else { return }
        let changed = (try? catchUpWithOtherConnections()) ?? false
        writeLock.unlock()
        if changed { notifyObservers(ChangeSet(possiblyChanged: Set(schema.tableTypes.map(\.name)))) }
    }

    /// Whether another connection committed since the last look (PRAGMA data_version); bumps the
    /// generation when so. Needs the write lock.
    func catchUpWithOtherConnections() throws -> Bool {
        guard readers != nil else { return false }
        let version = try connection.dataVersion()
        guard version != lastDataVersion else { return false }
        lastDataVersion = version
        bumpGeneration()
        checkRecordedVersion()
        return true
    }

    /// Notes (in `fileSchemaProblem`) whether the file still records this store's family and version; another
    /// connection (a migrator) may have upgraded it. Needs the write lock.
    func checkRecordedVersion() {
        switch Self.recordedSchema(
            on: connection, family: schema.family, version: schema.version, doing: "nothing was written")
        {
        case .matches: fileSchemaProblem = nil
        case .differs(let problem): fileSchemaProblem = problem
        case .unreadable: break  // a table being rebuilt, a damaged file: the write's own statements will say why
        }
    }

    /// What a connection finds the file recording, against the schema a store was opened with.
    enum RecordedSchemaCheck {
        case matches
        /// Another family or version: the message says so, and that `doing`.
        case differs(String)
        /// `_urna_schema` cannot be read now.
        case unreadable
    }

    static func recordedSchema(on c: Connection, family: String, version: Int, doing: String) -> RecordedSchemaCheck {
        let rows = try? c.rows("SELECT family, version FROM \"\(StorageLayout.schemaTable)\" WHERE id = 1")
        guard let row = rows?.first, row.count == 2, case .text(let recorded) = row[0], case .integer(let v) = row[1]
        else { return .unreadable }
        if recorded == family, v == Int64(version) { return .matches }
        return .differs(
            "\(c.path) is now at \(recorded) version \(v) (another connection migrated it), but this store "
                + "was opened with \(family) version \(version): \(doing); open the file again with the schema of version \(v)"
        )
    }

    // MARK: - Reads

    /// Runs a read on the connection this thread should use: the writer while this thread writes (its
    /// reads see its own changes) or holds a raw transaction on it; otherwise a pooled read connection,
    /// which sees the last commit and runs beside other threads' reads and writes.
    func reading<T>(_ body: (Connection) throws -> T) throws -> T {
        if let readers, !writeLock.isHeldByCurrentThread, !(connection.isInTransaction && !writeLock.isHeld) {
            return try readers.withConnection(body)
        }
        return try writeLock.withLock { try body(connection) }
    }

    /// Runs `body` so that everything it reads (queries, counts, objects' properties, lists) comes from one
    /// commit, while other threads go on writing: outside it each read sees the last commit, so reading two
    /// objects one after the other can mix two commits (GRDB's `read`; Realm's per-thread snapshot).
    ///
    /// ```swift
    /// let total = try store.read {   // one commit's total, whatever other threads transfer meanwhile
    ///     try store.object(ofType: Account.self, forPrimaryKey: 1)!.balance
    ///         + store.object(ofType: Account.self, forPrimaryKey: 2)!.balance
    /// }
    /// ```
    ///
    /// A write inside it throws `StoreError.writeInsideRead` (its reads would not see it); inside a write, `read`
    /// just runs `body` (the write's reads are already one state, its own). In-memory stores hold the write
    /// lock meanwhile: writes on other threads wait for `body`.
    public func read<T>(_ body: () throws -> T) throws -> T {
        if readers == nil && !writeLock.isHeldByCurrentThread {
            // In memory the read holds the one connection's lock; a write inside it committed (files refuse it).
            return try writeLock.withLock {
                inMemoryReads += 1
                connection.heldForRead += 1
                defer {
                    inMemoryReads -= 1
                    connection.heldForRead -= 1
                }
                return try body()
            }
        }
        guard let readers, !writeLock.isHeldByCurrentThread else { return try writeLock.withLock(body) }
        if readers.isInSnapshot() { return try body() }
        // Values cached before (by any thread) may come from another commit than this read's, and values cached
        // inside from an older one than the last when it ends: moving the generation makes both read again.
        bumpGeneration()
        defer { bumpGeneration() }
        return try readers.withSnapshot(body)
    }

    // MARK: - Swift concurrency

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
