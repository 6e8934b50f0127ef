import Foundation

/// What the importers (UrnaImport) need of a store that other threads of the app use at the same time.
extension Store {
    /// Runs `body` with a connection on which everything it reads comes from one commit, for code that steps its own
    /// statements (the exporter): a read connection of the pool held in one read transaction, or the writer when this
    /// thread writes (or holds a raw transaction there) and in memory. A transaction opened on `store.connection`
    /// instead would be shared with every other thread using the store (their writes threw
    /// `alreadyInWriteTransaction` while an export ran).
    package func withReadSnapshot<T>(_ body: (Connection) throws -> T) throws -> T {
        guard readers != nil, !writeLock.isHeldByCurrentThread else {
            return try writeLock.withLock { try body(connection) }
        }
        return try read { try reading(body) }
    }

    /// Runs `body` (which opens and ends writes of its own) with the writer's foreign keys off, holding the write lock
    /// from before `PRAGMA foreign_keys = OFF` until after it is restored: another thread's write never runs in
    /// between without them (its deletes would leave links to the deleted object). Observers of `body`'s commits
    /// are called once the lock is released.
    package func withForeignKeysOff<T>(_ body: () throws -> T) throws -> T {
        try writeLock.withLock {
            let enforced = try connection.integer("PRAGMA foreign_keys") != 0
            try connection.execute("PRAGMA foreign_keys = OFF")
            defer { if enforced { try? connection.execute("PRAGMA foreign_keys = ON") } }
            return try body()
        }
    }
}
