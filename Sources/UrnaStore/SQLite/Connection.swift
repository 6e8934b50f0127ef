import CSQLite
import Foundation
import Synchronization

let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// SQLITE_CONSTRAINT_COMMITHOOK (a macro Swift does not import): a commit hook turned a COMMIT into a rollback.
let sqliteConstraintCommitHook = SQLITE_CONSTRAINT | (2 << 8)

/// Process-wide SQLite settings, applied once before the first connection.
private let sqliteConfigured: Bool = {
    _ = urna_sqlite3_config_no_memstatus()
    return true
}()

/// Owns one sqlite3 handle; closes it in deinit.
///
/// Not thread-safe: use one per thread, or open it `serialized` (SQLite's own mutex then guards every
/// call). A `Store`'s writer (`store.connection`) is safe from any thread: its methods wait for the store's
/// write lock, so raw SQL from another thread runs between two writes, never inside one (where a rollback
/// would take it away) nor on a cached statement another thread is stepping. A raw `BEGIN` there is a write of its
/// thread, like `beginWrite()`: other threads wait until that thread's `COMMIT` or `ROLLBACK`, so in async code keep
/// it and its end on one side of every `await` (or use `store.write { }`, where raw SQL joins the write).
public final class Connection {
    public let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Cached statements dropped from the cache that someone may still hold: detached in deinit like the cached
    /// ones (one held across `clearStatementCache()` and stepped after the connection went crashed).
    private var retiredStatements: [WeakStatement] = []
    /// The write lock of the store whose writer this is: every method below holds it (it is re-entrant, and
    /// free for the thread already writing). A `Store` is `Sendable` and its `connection` public, so two tasks
    /// can reach this connection at once; without the lock they would share cached statements and a raw
    /// statement would join another thread's open write.
    var ownerLock: WriteLock?
    /// Turns a COMMIT into a rollback while a store's write is open on this connection (set by the store).
    let commitGuard = CommitGuard()

    /// Runs `body` holding the owning store's write lock (when there is one and this thread does not hold it).
    ///
    /// A raw statement run outside a store's write may not leave a transaction open (`BEGIN`, `SAVEPOINT`): the
    /// transaction is rolled back at once and the statement throws `StoreError.rawTransactionOutsideWrite`. Left
    /// open, it was shared with every thread (another thread's raw INSERT joined it and was rolled back with it, its
    /// reads saw the uncommitted rows); held for the opening thread, it hung the store when its end came from another
    /// thread (an async task resumed elsewhere, a serial queue's next block) or never came (an error path).
    @inline(__always) func exclusive<T>(_ body: () throws -> T) throws -> T {
        guard let ownerLock else { return try body() }
        if ownerLock.enterIfHeldByCurrentThread() {
            // Entered, not just checked: a `WriteTransaction` may move the write to another thread between two calls.
            defer { ownerLock.unlock() }
            guard heldForRead > 0 else { return try body() }
            // Inside an in-memory store's `read { }`, which holds the lock but opens no write: raw SQL there commits on
            // its own, as outside (the object read before kept the old text, observers heard nothing).
            let changesBefore = sqlite3_total_changes64(handle)
            let outcome = Result { try body() }
            if sqlite3_total_changes64(handle) != changesBefore { changedOutsideWrite?()?() }
            return try outcome.get()
        }
        // On the thread that left a write parked this throws `parkedWriteOnThisThread` (see `WriteLock.lock()`): raw SQL
        // there never runs inside the handle's write (an INSERT joined it, a `ROLLBACK` ended it).
        try ownerLock.lock()
        let changesBefore = sqlite3_total_changes64(handle)
        let autocommitBefore = sqlite3_get_autocommit(handle)
        let outcome = Result { try exclusiveHoldingLock(body) }
        // Inside a raw transaction (allowed from one thread) a `ROLLBACK TO` a savepoint changes no count and no
        // transaction state, yet takes back what values read before it showed: values cached so far are read again.
        if autocommitBefore == 0 && sqlite3_get_autocommit(handle) == 0 { cachesStale?() }
        // Raw SQL outside a store's write commits on its own (autocommit): the store's cached values and results, and its
        // observers, must hear of it as of any write (they kept the old values, and observers heard nothing). A raw
        // transaction's end (allowed from one thread) changes no rows but can take back what values read inside it
        // showed: a ROLLBACK left a cached object answering the rolled-back text, so a change of transaction state
        // counts too.
        let changed =
            sqlite3_total_changes64(handle) != changesBefore || sqlite3_get_autocommit(handle) != autocommitBefore
        let tell = changed ? changedOutsideWrite?() : nil
        ownerLock.unlock()
        tell?()
        return try outcome.get()
    }

    private func exclusiveHoldingLock<T>(_ body: () throws -> T) throws -> T {
        if rawTransactionsAllowed.load(ordering: .relaxed) { return try body() }
        // A transaction already open here was left by a raw statement inside a scope that held the lock (a store's
        // read of an in-memory file, `withForeignKeysOff`): it is nobody's write, and nothing may run inside it.
        try refuseTransactionLeftOpen()
        let result: T
        do {
            result = try body()
        } catch {
            if isInTransaction { rollBackRawTransaction() }
            throw error
        }
        try refuseTransactionLeftOpen()
        return result
    }

    /// A transaction open outside a store's write is nobody's write: it is rolled back and the call refused.
    private func refuseTransactionLeftOpen() throws {
        guard isInTransaction else { return }
        rollBackRawTransaction()
        throw StoreError.rawTransactionOutsideWrite
    }

    /// Set by the store whose writer this is: called, holding its write lock, after raw SQL run outside a write changed
    /// rows; it marks the store's cached values stale and returns what tells its observers (run once the lock is free).
    var changedOutsideWrite: (() -> (() -> Void)?)?

    /// Set by the store whose writer this is: marks its cached values stale (holding its write lock).
    var cachesStale: (() -> Void)?

    /// How deep the thread holding the owner lock is in a store's read that holds it (an in-memory store's `read { }`);
    /// guarded by the owner lock.
    var heldForRead = 0

    /// `exclusive` for work that runs no SQL (resets, the statement cache): it cannot open a transaction.
    @inline(__always) func exclusiveQuietly<T>(_ body: () -> T) -> T {
        guard let ownerLock else { return body() }
        if !ownerLock.enterIfHeldByCurrentThread() { ownerLock.lockQuietly() }
        defer { ownerLock.unlock() }
        return body()
    }

    private let rawTransactionsAllowed = Atomic<Bool>(false)

    /// Lets raw `BEGIN`/`SAVEPOINT` on this store's connection stay open between calls, as on a plain connection:
    /// for a program that uses the store from one thread only (urna's own commands pin a read snapshot this way).
    /// The transaction is then shared with every thread that uses the store, so never call it where other threads
    /// or tasks use the store: there, open transactions with `store.write { }` or `beginWrite()`.
    public func allowRawTransactionsFromOneThread() {
        rawTransactionsAllowed.store(true, ordering: .relaxed)
    }

    private func rollBackRawTransaction() {
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    }

    /// Opens (or creates, unless `readOnly`) the database at `path`; ":memory:" for an in-memory one.
    ///
    /// Read-only, a WAL-mode file on a read-only file system (a CD, a read-only mount) can still be read
    /// when its WAL is empty or gone: SQLite cannot create the -shm file it needs there, so such a file is
    /// opened as immutable, which is safe because nothing can change it.
    public init(path: String, readOnly: Bool = false, create: Bool = true, serialized: Bool = false) throws {
        _ = sqliteConfigured
        var db = try Self.open(path, readOnly: readOnly, create: create, immutable: false, serialized: serialized)
        if readOnly, Self.isSettledOnReadOnlyMedia(path),
            sqlite3_exec(db, "PRAGMA schema_version", nil, nil, nil) & 0xFF == SQLITE_CANTOPEN
        {
            sqlite3_close_v2(db)
            db = try Self.open(path, readOnly: true, create: false, immutable: true, serialized: serialized)
        }
        // Any other problem of that first read (not a database, damaged) is reported by the next read, as before.
        // Done before `handle` is set, so that a failure closes the handle here and not again in deinit.
        let disabled = Self.disableTokenizerFunction(db)
        guard disabled == SQLITE_OK else {
            sqlite3_close_v2(db)
            throw SQLiteError(code: disabled, message: "cannot open \(path): cannot disable fts3_tokenizer")
        }
        handle = db
        self.path = path
        // Replaces the hook `open` set (the same check, plus this connection's guard).
        _ = sqlite3_commit_hook(
            db,
            { guardPointer in
                if CreatedFiles.isStopping { return 1 }
                guard let guardPointer else { return 0 }
                return Unmanaged<CommitGuard>.fromOpaque(guardPointer).takeUnretainedValue().refuses ? 1 : 0
            }, Unmanaged.passUnretained(commitGuard).toOpaque())
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
        // Every identifier Urna writes is double-quoted: with SQLite's legacy fallback a column that is not
        // there (a reader whose schema is older than the file) would read as its own name, as text. Off, it
        // is the error it should be.
        _ = urna_sqlite3_db_config_dqs_dml(db, 0)
        // No SQL, from a user or a file, reads a tokenizer's address or installs one from a pointer. The setting
        // only covers literal arguments: SQLite still honours the function when its argument is a bound
        // parameter, so the function itself is replaced by one that refuses (above).
        _ = urna_sqlite3_db_config_fts3_tokenizer(db, 0)
        OpenConnections.shared.insert(db)
    }

    /// Replaces SQLite's `fts3_tokenizer` (one and two arguments) on `db` by a function that always fails with
    /// "fts3_tokenizer is disabled". FTS3/FTS4 tables still find their tokenizers: they look them up
    /// directly, not through the SQL function.
    static func disableTokenizerFunction(_ db: OpaquePointer) -> Int32 {
        for arity: Int32 in [1, 2] {
            let rc = sqlite3_create_function_v2(
                db, "fts3_tokenizer", arity, SQLITE_UTF8 | SQLITE_DIRECTONLY, nil,
                { ctx, _, _ in sqlite3_result_error(ctx, "fts3_tokenizer is disabled", -1) }, nil, nil, nil)
            if rc != SQLITE_OK { return rc }
        }
        return SQLITE_OK
    }

    private static func open(_ path: String, readOnly: Bool, create: Bool, immutable: Bool, serialized: Bool) throws
        -> OpaquePointer
    {
        var db: OpaquePointer?
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= serialized ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX
        var name = path
        if immutable {
            flags |= SQLITE_OPEN_URI
            name = "file:" + uriEscaped(path) + "?immutable=1"
        }
        let rc = sqlite3_open_v2(name, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: "cannot open \(path): \(message)")
        }
        // Once the process is being stopped (SIGINT/SIGTERM in the command-line tool), no transaction commits: a
        // COMMIT that would otherwise slip between two interrupts of a running statement turns into a rollback.
        _ = sqlite3_commit_hook(db, { _ in CreatedFiles.isStopping ? 1 : 0 }, nil)
        return db
    }

    /// Whether `path` lies on a file system mounted read-only and has no WAL content waiting (an
    /// immutable open would not see it).
    static func isSettledOnReadOnlyMedia(_ path: String) -> Bool {
        var fs = statvfs()
        guard statvfs(path, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 else { return false }
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.int64Value
        return (wal ?? 0) == 0
    }

    /// `path` as the path part of an SQLite URI: `%`, `?` and `#` percent-encoded.
    static func uriEscaped(_ path: String) -> String {
        var out = ""
        for c in path.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "?": out += "%3f"
            case "#": out += "%23"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    deinit {
        OpenConnections.shared.remove(handle)
        // A cached statement an app still holds throws from now on instead of stepping a closed handle.
        for s in statementCache.values { s.detach() }
        for w in retiredStatements { w.statement?.detach() }
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters.
    public func execute(_ sql: String) throws { try exclusive { try executeHoldingLock(sql) } }

    private func executeHoldingLock(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            if commitGuard.refuses, sqlite3_extended_errcode(handle) == sqliteConstraintCommitHook {
                sqlite3_free(errorMessage)
                throw StoreError.commitInsideWriteBlock
            }
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            sqlite3_free(errorMessage)
            var error = SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
            if error.isDiskFull { error.file = path }
            throw error
        }
    }

    /// Runs one statement with bound parameters.
    public func run(_ sql: String, _ bindings: [SQLValue] = []) throws {
        try exclusive {
            let s = try cachedStatement(sql)
            try s.bind(bindings)
            try s.runToCompletion()
        }
    }

    /// Prepares a statement (not cached). It keeps this connection open while it lives.
    public func prepare(_ sql: String) throws -> Statement {
        try Statement(connection: self, sql: sql, keepsConnection: true)
    }

    /// A prepared statement kept for reuse; reset before it is returned.
    ///
    /// On a store's writer, step it inside that store's `write` (another thread may reset it otherwise). It belongs to
    /// the connection's cache and does not keep the connection open: stepped after the connection was released, it
    /// throws (use `prepare` for a statement that outlives its `Store`).
    ///
    /// The cache hands a statement out again only when nobody else holds it: a caller that still has it (another thread
    /// between its `bind` and its `step`, or one that kept it) keeps it to itself, and this caller gets a new one. Two
    /// threads asking for one SQL text used to get one instance, and the second's `bind` reset the first's (which then
    /// read the second's row).
    public func cachedStatement(_ sql: String) throws -> Statement {
        try exclusive {
            if var s = statementCache.removeValue(forKey: sql) {
                if isKnownUniquelyReferenced(&s) {
                    s.reset()
                    statementCache[sql] = s
                    return s
                }
                retiredStatements.removeAll { $0.statement == nil }
                retiredStatements.append(WeakStatement(statement: s))
            }
            let s = try Statement(connection: self, sql: sql)
            statementCache[sql] = s
            return s
        }
    }

    /// Forgets cached statements (needed before DDL that changes tables they use).
    public func clearStatementCache() {
        exclusiveQuietly {
            retiredStatements.removeAll { $0.statement == nil }
            retiredStatements += statementCache.values.map { WeakStatement(statement: $0) }
            statementCache.removeAll()
        }
    }

    /// All rows of a query, each as an array of column values.
    public func rows(_ sql: String, _ bindings: [SQLValue] = []) throws -> [[SQLValue]] {
        try exclusive {
            let s = try cachedStatement(sql)
            try s.bind(bindings)
            var out: [[SQLValue]] = []
            while try s.step() {
                out.append((0..<s.columnCount).map { s.value(at: $0) })
            }
            s.reset()
            return out
        }
    }

    /// The first column of the first row, or nil.
    public func scalar(_ sql: String, _ bindings: [SQLValue] = []) throws -> SQLValue? {
        try exclusive {
            let s = try cachedStatement(sql)
            try s.bind(bindings)
            defer { s.reset() }
            return try s.step() ? s.value(at: 0) : nil
        }
    }

    /// The first column of the first row as an integer (0 when there is no row or it is NULL).
    public func integer(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int64 {
        if case .integer(let i)? = try scalar(sql, bindings) { return i }
        return 0
    }

    /// `PRAGMA data_version`: changes when another connection (in this process or another) commits.
    public func dataVersion() throws -> Int64 { try integer("PRAGMA data_version") }

    /// SQLite's counter of changes to the main file by any connection, this one included, as of this connection's
    /// last transaction (`SQLITE_FCNTL_DATA_VERSION`): read without a statement, so cheap enough for every read.
    public var fileChangeCounter: UInt32 {
        var v: UInt32 = 0
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &v)
        return v
    }

    /// The `fileChangeCounter` at which a reader last found the file's recorded schema to be its store's.
    var schemaCheckedAt: UInt32?

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }
    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func error(_ rc: Int32, sql: String?) -> SQLiteError {
        var error = SQLiteError(
            code: sqlite3_extended_errcode(handle) != 0 ? sqlite3_extended_errcode(handle) : rc,
            message: lastErrorMessage, sql: sql)
        if error.isDiskFull { error.file = path }
        return error
    }

    /// `PRAGMA user_version`.
    public func userVersion() throws -> Int { Int(try integer("PRAGMA user_version")) }
    public func setUserVersion(_ v: Int) throws { try execute("PRAGMA user_version = \(v)") }

    /// Whether a table (or view) with this name exists.
    public func tableExists(_ name: String) throws -> Bool {
        try integer("SELECT count(*) FROM sqlite_master WHERE type IN ('table','view') AND name = ?", [.text(name)]) > 0
    }

    /// Registers a deterministic one- or two-argument SQL function implemented in Swift over text.
    public func registerTextFunction(name: String, arity: Int32, _ body: @escaping ([SQLValue]) -> SQLValue) throws {
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, arity, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { ctx, argc, argv in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(ctx)).takeUnretainedValue()
                var args: [SQLValue] = []
                for i in 0..<Int(argc) { args.append(Statement.value(of: argv![i]!)) }
                switch box.body(args) {
                case .null: sqlite3_result_null(ctx)
                case .integer(let i): sqlite3_result_int64(ctx, i)
                case .real(let d): sqlite3_result_double(ctx, d)
                case .text(let s): sqlite3_result_text(ctx, s, -1, sqliteTransient)
                case .blob(let b): sqlite3_result_blob(ctx, b, Int32(b.count), sqliteTransient)
                }
            }, nil, nil,
            { p in if let p { Unmanaged<FunctionBox>.fromOpaque(p).release() } })
        if rc != SQLITE_OK { throw error(rc, sql: nil) }
    }
}

/// Whether a COMMIT on a connection must be turned into a rollback: a store's write is open there, and committing
/// from raw SQL (`store.connection.execute("COMMIT")` inside `write { }`) would keep its first half while the write then
/// throws "rolled back". Read by SQLite's commit hook on the committing thread, set by the thread holding the write.
final class CommitGuard: @unchecked Sendable {
    private let flag = Atomic<Bool>(false)
    var refuses: Bool {
        get { flag.load(ordering: .acquiring) }
        set { flag.store(newValue, ordering: .releasing) }
    }
}

final class FunctionBox {
    let body: ([SQLValue]) -> SQLValue
    init(_ body: @escaping ([SQLValue]) -> SQLValue) { self.body = body }
}

/// A statement the connection no longer caches, held weakly so that the connection can still detach it.
private struct WeakStatement {
    weak var statement: Statement?
}
