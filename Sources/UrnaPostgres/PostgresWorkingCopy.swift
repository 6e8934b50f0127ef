import Foundation
import UrnaStore

/// A PostgreSQL database used through the SQLite store: a private working copy of its Urna tables, made
/// inside one server transaction, and, for a writer, put back in that same transaction by `commit()`.
///
/// So everything the store, the importer and the migrator do holds unchanged (the same rules, checks and
/// errors), and a write is all-or-nothing on the server: without `commit()` (an error, a signal, a killed
/// process) the transaction is rolled back and the database is as it was. A writer takes urna's advisory lock
/// (two urna writers never interleave) and locks Urna's tables against other writers until it ends; readers
/// read a REPEATABLE READ snapshot of the last commit, taken after a writer's refill (`beginSnapshot`). The price is a full copy each way: right for one state's elections, slow
/// for very large databases.
///
/// ```swift
/// let copy = try PostgresWorkingCopy(url: "postgresql://app@127.0.0.1/library", writing: true)
/// try copy.materialize()
/// do {
///     let store = try Store(path: copy.path, schema: LibrarySchema.latest)
///     try store.write { try store.create("Book", value: ["title": "Dom Casmurro"]) }
/// }  // the store is closed before the commit
/// try copy.commit()
/// ```
/// `withStore(url:schema:writing:_:)` does those steps in one call.
public final class PostgresWorkingCopy {
    /// The advisory lock key every urna writer takes: 'urna' in ASCII.
    public static let advisoryLockKey: Int64 = 0x7572_6E61

    public let connection: PostgresConnection
    public let writing: Bool
    /// What the database recorded when the transaction began (nil: no Urna data there).
    public let recorded: Schema?
    /// The working copy's path (a file in a folder only this user can read, removed when this object goes;
    /// the folder of a killed process is removed by the next working copy made in the temporary directory).
    public let path: String
    private let folder: String
    private var finished = false
    /// Whether triggers made on the server on Urna's tables may run when `commit()` refills them in place
    /// (`--allow-triggers`); false: such a trigger stops the commit, naming it, with nothing changed.
    public var allowTriggers = false
    /// After `commit()`: the triggers on the server that ran as the tables were refilled (only with
    /// `allowTriggers`), and those set aside and made again because the tables were created anew.
    public private(set) var triggersRan: [ServerTrigger] = []
    public private(set) var triggersRemade: [ServerTrigger] = []

    /// Why the lock could not be had in time.
    public struct LockTimeout: Error, CustomStringConvertible, Sendable {
        public let database: String
        public let milliseconds: Int
        public let message: String
        public var description: String {
            "\(database) is being written by another urna run or session (waited \(Self.seconds(milliseconds)) s: "
                + "\(message)); nothing was changed: try again when it finishes"
        }

        /// Whole seconds as a whole number, else with their fraction (500 ms: `0.5`, never `0`).
        static func seconds(_ milliseconds: Int) -> String {
            milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
        }
    }

    /// Connects, begins the transaction and, for a writer, takes the locks. `lockTables` (default: the recorded
    /// schema's) are locked against other writers; tables that do not exist are left out.
    public init(url: String, writing: Bool, lockTimeoutMilliseconds: Int = 30_000, lockTables: Schema? = nil) throws {
        let pg = try PostgresConnection(url)
        connection = pg
        self.writing = writing
        try pg.execute("SET lock_timeout = \(lockTimeoutMilliseconds)")
        do {
            if writing { try PostgresTransfer.beginWriting(pg) } else { try PostgresTransfer.beginSnapshot(pg) }
            recorded = try PostgresTransfer.recordedSchema(in: pg)
            if writing, recorded == nil {
                // Refused now, not after the whole command ran on the working copy: its tables go in this schema.
                try PostgresTransfer.requireCreate(pg)
            }
            if writing, let locked = recorded ?? lockTables {
                let names = try PostgresLayout.tableNames(for: locked).filter {
                    try PostgresTransfer.relationExists($0, in: pg)
                }
                if !names.isEmpty {
                    try pg.execute(
                        "LOCK TABLE \(names.map(Identifier.quoted).joined(separator: ", ")) IN EXCLUSIVE MODE")
                }
            }
        } catch let e as PostgresError where e.isLockTimeout {
            try? pg.execute("ROLLBACK")
            throw LockTimeout(database: pg.displayName, milliseconds: lockTimeoutMilliseconds, message: e.message)
        } catch {
            try? pg.execute("ROLLBACK")
            throw error
        }
        Self.removeStaleFolders()
        let made = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "\(Self.folderPrefix)\(getpid())-\(UUID().uuidString)")
        guard mkdir(made, 0o700) == 0 else {
            let why = String(cString: strerror(errno))
            try? pg.execute("ROLLBACK")
            throw PostgresTransferError.occupied("cannot create a private folder \(made): \(why)")
        }
        folder = made
        path = folder + "/database.sqlite"
    }

    static let folderPrefix = "urna-postgres-"

    /// For a writer, before any work: refuses what would stop `commit()` later, naming it, so a long run is not
    /// thrown away at its end. A table not Urna's with a foreign key into Urna's or inheriting from one of them, and
    /// a trigger on urna's own
    /// tables, are refused always; when `refill` (the command keeps the schema: an import) a trigger that would
    /// fire on the family's tables is refused too unless `allowTriggers`. A run that changes the schema (a
    /// migration) sets those triggers aside and makes them again instead.
    public func refuseBeforeWork(refill: Bool) throws {
        guard writing else { return }
        guard let recorded else { return try PostgresTransfer.refuseForeignMetadataTables(in: connection) }
        let names = try PostgresLayout.tableNames(for: recorded)
        try PostgresTransfer.refuseForeignKeysInto(names, in: connection)
        try PostgresTransfer.refuseInheritorsOf(names + PostgresTransfer.metadataTables, in: connection)
        try PostgresTransfer.refuseTriggers(
            on: (refill ? names : []) + PostgresTransfer.metadataTables, in: connection, allowing: allowTriggers)
    }

    /// Removes the working-copy folders of urna processes that no longer run (killed before their cleanup).
    static func removeStaleFolders() {
        let base = NSTemporaryDirectory()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return }
        for name in names where name.hasPrefix(folderPrefix) {
            let rest = name.dropFirst(folderPrefix.count)
            guard let pid = LeftoverNotes.pid(inFolderNameEnd: rest) else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }  // still running (perhaps as another user)
            LeftoverNotes.remove((base as NSString).appendingPathComponent(name), leftBy: pid, folder: true)
        }
    }

    deinit {
        if !finished { try? connection.execute("ROLLBACK") }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Copies the database's Urna tables into the working copy (nothing when it holds no Urna data: the
    /// path then names no file yet, and a store created there becomes the database's content on commit).
    /// `resolve` may swap the recorded schema for the code's equal one, which carries its views' SQL.
    public func materialize(pageSize: Int? = nil, resolve: (Schema) -> Schema = { $0 }) throws {
        guard recorded != nil else { return }
        try PostgresTransfer.pull(from: connection, to: path, pageSize: pageSize, resolve: resolve)
    }

    /// Copies plain tables (no Urna data needed: psql's own `CREATE TABLE "Person" ...`) into the working copy,
    /// for adopting them; `commit(replacing:)` then drops them on the server and writes the adopted ones.
    public func materializePlainTables(named names: [String]) throws {
        try PostgresTransfer.pullPlainTables(names, from: connection, to: path)
    }

    /// Puts the working copy back into the database and commits: Urna's tables are refilled (or dropped and
    /// created again when the schema changed, or when `replacing` names plain tables being adopted).
    /// `resolve` gives the code's schema equal to the recorded one, which carries the views' PostgreSQL SQL.
    @discardableResult
    public func commit(replacing plainTables: Schema? = nil, resolve: (Schema) -> Schema = { $0 }) throws
        -> PostgresTransfer.Counts
    {
        try commit(from: try Connection(path: path, create: false), replacing: plainTables, resolve: resolve)
    }

    /// `commit(replacing:)` from another Urna file than the working copy (`urna copy` of a file to the server).
    @discardableResult
    public func commit(
        from sqlite: Connection, replacing plainTables: Schema? = nil, resolve: (Schema) -> Schema = { $0 }
    ) throws -> PostgresTransfer.Counts {
        precondition(writing, "commit() needs a working copy opened with writing: true")
        precondition(!finished, "commit() was already called")
        let counts = try PostgresTransfer.push(
            from: sqlite, to: connection, replacing: recorded ?? plainTables,
            recreate: plainTables != nil && recorded == nil,
            resolve: resolve, allowTriggers: allowTriggers,
            triggers: { ran, remade in
                self.triggersRan = ran
                self.triggersRemade = remade
            })
        try sendCommit()
        return counts
    }

    /// Sends COMMIT. A connection lost on the way (the server stopped or killed, the network cut) leaves the
    /// outcome unknown: the server may have committed before it went, so that is said instead of "not changed".
    func sendCommit() throws {
        do {
            try PostgresInterrupt.committing { try connection.execute("COMMIT") }
        } catch let e as PostgresError where !connection.isConnected {
            finished = true
            throw CommitOutcomeUnknown(database: connection.displayName, message: e.message)
        }
        finished = true
    }

    /// The connection was lost while COMMIT was on its way: the whole change is stored or none of it is.
    public struct CommitOutcomeUnknown: Error, CustomStringConvertible, Sendable {
        public let database: String
        public let message: String
        public init(database: String, message: String) {
            self.database = database
            self.message = message
        }
        /// The message, naming no program: it says to look at the database before running the change again.
        public var description: String {
            lost + "look at the database (what the change should have stored) before running it again"
        }
        /// The message for a command-line tool called `programName`: it names the command that shows the database.
        public func description(programName: String) -> String {
            lost + "look with `\(programName) status --db URL` before running it again"
        }
        private var lost: String {
            "the connection to \(database) was lost while COMMIT was on its way (\(message)): the change may or may "
                + "not have been stored (as a whole, never in part); "
        }
    }

    /// Ends the transaction without writing anything.
    public func rollback() throws {
        guard !finished else { return }
        finished = true
        try connection.execute("ROLLBACK")
    }

    /// Opens a `Store` with `schema` on a working copy of the database at `url` (created with `schema` when the
    /// database holds no Urna data), runs `body`, and for a writer puts the result back in one transaction.
    /// The store must not outlive `body`.
    public static func withStore<T>(
        url: String, schema: Schema, writing: Bool, lockTimeoutMilliseconds: Int = 30_000,
        _ body: (Store) throws -> T
    ) throws -> T {
        let copy = try PostgresWorkingCopy(url: url, writing: writing, lockTimeoutMilliseconds: lockTimeoutMilliseconds)
        // The app's schema, which carries its views' SQL, wherever the database records an equal one.
        let resolve = { (recorded: Schema) in
            SchemaDescriptor.encode(recorded) == SchemaDescriptor.encode(schema) ? schema : recorded
        }
        try copy.materialize(resolve: resolve)
        let result: T
        do {
            let store = try Store(path: copy.path, schema: schema)
            result = try body(store)
        }
        if writing {
            try copy.commit(resolve: resolve)
        } else {
            try copy.rollback()
        }
        return result
    }
}
