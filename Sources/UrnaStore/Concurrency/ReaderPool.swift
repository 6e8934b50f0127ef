import Foundation

/// Read-only connections to a store's file, lent to one thread at a time: reads on threads that do not hold
/// the write lock run here, side by side and beside the writer (WAL lets readers go on while one connection
/// writes), each seeing the last committed state.
///
/// A thread that already borrowed a connection gets the same one again (nested reads never wait for
/// themselves); at most `maximum` connections are opened, further readers wait for one to come back.
final class ReaderPool: @unchecked Sendable {
    let path: String
    let maximum: Int
    private let condition = NSCondition()
    private var idle: [Connection] = []
    private var opened = 0
    private var lent: [UInt: (connection: Connection, depth: Int)] = [:]
    /// Threads running a `withSnapshot` body: their borrowed connection holds one read transaction.
    private var snapshotThreads: Set<UInt> = []

    /// Throws when the file no longer records the store's schema (another connection migrated it); called after a
    /// read whenever the file changed since the connection last checked, so the read's values never reach the
    /// caller decoded with a schema that is no longer the file's.
    let checkSchema: ((Connection) throws -> Void)?

    init(path: String, maximum: Int = 4, checkSchema: ((Connection) throws -> Void)? = nil) {
        self.path = path
        self.maximum = maximum
        self.checkSchema = checkSchema
    }

    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let me = currentThreadID()
        let c = try borrow(me)
        defer { giveBack(me) }
        let result: T
        do {
            result = try body(c)
        } catch {
            // A read that failed because another program changed the file's schema ("no such column") says so.
            if let checkSchema, c.schemaCheckedAt != c.fileChangeCounter {
                try checkSchema(c)
                c.schemaCheckedAt = c.fileChangeCounter
            }
            throw error
        }
        if let checkSchema {
            let counter = c.fileChangeCounter
            if c.schemaCheckedAt != counter {
                try checkSchema(c)
                c.schemaCheckedAt = counter
            }
        }
        return result
    }

    /// Runs `body` with this thread's connection held in one read transaction: every read `body` makes through
    /// `withConnection` sees the same commit (WAL keeps it while writers go on). Nested calls join the outer one.
    func withSnapshot<T>(_ body: () throws -> T) throws -> T {
        let me = currentThreadID()
        if isInSnapshot(me) { return try body() }
        let c = try borrow(me)
        defer { giveBack(me) }
        try c.execute("BEGIN")
        condition.lock()
        snapshotThreads.insert(me)
        condition.unlock()
        defer {
            condition.lock()
            snapshotThreads.remove(me)
            condition.unlock()
            if (try? c.execute("COMMIT")) == nil { try? c.execute("ROLLBACK") }
        }
        return try body()
    }

    /// Whether the thread `me` is inside `withSnapshot`.
    func isInSnapshot(_ me: UInt = currentThreadID()) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        return snapshotThreads.contains(me)
    }

    private func borrow(_ me: UInt) throws -> Connection {
        condition.lock()
        if let held = lent[me] {
            lent[me] = (held.connection, held.depth + 1)
            condition.unlock()
            return held.connection
        }
        while idle.isEmpty && opened >= maximum { condition.wait() }
        if let c = idle.popLast() {
            lent[me] = (c, 1)
            condition.unlock()
            return c
        }
        opened += 1
        condition.unlock()
        do {
            let c = try Connection(path: path, readOnly: true, create: false)
            try QueryCompiler.registerFunctions(on: c)
            condition.lock()
            lent[me] = (c, 1)
            condition.unlock()
            return c
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ me: UInt) {
        condition.lock()
        defer { condition.unlock() }
        guard let held = lent[me] else { return }
        if held.depth > 1 {
            lent[me] = (held.connection, held.depth - 1)
            return
        }
        lent[me] = nil
        idle.append(held.connection)
        condition.signal()
    }

    /// Forgets every cached statement of the idle connections (after DDL on the file).
    func clearStatementCaches() {
        condition.lock()
        defer { condition.unlock() }
        for c in idle { c.clearStatementCache() }
    }
}
