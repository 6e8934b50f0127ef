import CSQLite
import Foundation
import Synchronization

/// An object store in one SQLite file (or in memory): schema, write transactions, objects, queries.
///
/// ```swift
/// let store = try Store(path: "people.sqlite", schema: PeopleSchema.latest)
/// try store.write {
///     try store.create("Person", value: ["fullName": "Ada Lovelace", "age": 36])
/// }
/// let adults = try store.objects("Person").filter("age >= %d", 18).sorted(byKeyPath: "fullName")
/// ```
///
/// A `Store` is `Sendable`: share one between threads and tasks. Writes are serialized (a second thread's
/// `write` waits for the first to commit, it never fails for being second); reads on threads that are not
/// writing run beside the writer on their own read-only connections (WAL) and see the last commit. The
/// objects and results a store hands out are not `Sendable`: they belong to the task that read them (pass
/// primary keys between tasks).
public final class Store: @unchecked Sendable {
    // Thread safety: `connection`, `pendingChanges`, `insertPlans`, `deferredWriteError`, `writeOpen`,
    // `touched`, `lastDataVersion` and `fileSchemaProblem` are only touched by the thread holding `writeLock`;
    // observers live behind `observation`; `generationCounter` is atomic. Everything else is immutable.

    /// The writer connection (opened serialized). Raw SQL on it from several threads at once is safe for
    /// SQLite but not for its cached statements: use it inside `write` (or from one thread).
    public let connection: Connection
    public let schema: Schema
    let compiler: QueryCompiler
    let writeLock = WriteLock()
    /// Read connections for threads that are not writing; nil for in-memory stores (one connection only).
    let readers: ReaderPool?
    private let generationCounter = Atomic<Int>(0)
    var writeOpen = false {
        // A raw COMMIT (or END) on `connection` while a write is open would commit part of it: refused (see `CommitGuard`).
        didSet { connection.commitGuard.refuses = writeOpen }
    }
    /// The open write is a `write { }` block's, which commits it when its body returns: `commitWrite()` inside
    /// it would commit half of the block (guarded by `writeLock`, like `writeOpen`).
    var writeBlockOpen = false
    /// How deep the thread holding `writeLock` is in `read { }` of an in-memory store (guarded by `writeLock`): a write
    /// there is refused as in a file's read.
    var inMemoryReads = 0
    /// Objects deleted through their own reference in the open write (guarded by `writeLock`), given back their
    /// key if it rolls back.
    var deletedInWrite: [(DynamicObject, SQLValue)] = []
    /// Per type without a primary key, the highest `_id` this store deleted (guarded by `writeLock`): SQLite gives
    /// a new row the largest rowid + 1, so without it a new object could take a deleted one's `_id`, and a handle
    /// kept to the deleted one would read the new one.
    var deletedRowidHighWater: [String: Int64] = [:]
    var pendingChanges = ChangeSet()
    var deferredWriteError: Error?
    var insertPlans: [InsertPlanKey: CachedInsertPlan] = [:]
    let touched = TouchedTables()
    var lastDataVersion: Int64 = 0
    /// Set when another connection changed the family or version the file records (a migration ran while
    /// this store had it open): this store's schema no longer describes the file, so its writes are refused.
    var fileSchemaProblem: String?
    let observation = LockedObserverRegistry()
    /// Held while a refresh (or the poll) looks for other commits and tells observers, so `refresh()` returns
    /// only after observers heard of what was found; always taken before `writeLock`, never after it.
    let refreshLock = NSRecursiveLock()
    /// The file's identity, for refusing a write nested in another `Store`'s write of it on one thread (nil in memory).
    let fileID: FileWriters.FileID?

    /// Bumped by every write and by every commit seen from elsewhere; cached results and object values
    /// reload when it moves.
    public var generation: Int { generationCounter.load(ordering: .acquiring) }

    func bumpGeneration() { generationCounter.add(1, ordering: .releasing) }

    /// Opens or creates the file at `path` with `schema`.
    ///
    /// A new (empty) file gets the schema's tables and records the schema; an existing file must hold the
    /// same family at the same version with the same types and properties (older files must be migrated
    /// first; newer ones, and files whose recorded schema differs, are refused with the differences).
    ///
    /// `pageSize` (a power of two from 512 to 65536) applies only when the file is created here; SQLite's
    /// default is 4096. Bulk-loaded files do better with bigger pages (fewer B-tree splits and index
    /// pages): the importer creates its files with 16384.
    public convenience init(path: String, schema: Schema, pageSize: Int? = nil) throws {
        let c = try Connection(path: path, serialized: true)
        try self.init(connection: c, schema: schema, pageSize: pageSize)
    }

    /// An in-memory store, for tests and scratch work.
    public static func inMemory(schema: Schema) throws -> Store {
        try Store(connection: Connection(path: ":memory:", serialized: true), schema: schema)
    }

    /// Opens an existing file with the schema it records about itself (no Swift model needed).
    public static func openExisting(path: String, readOnly: Bool = false) throws -> Store {
        try openExisting(path: path, readOnly: readOnly, programName: "urna")
    }

    /// `openExisting(path:readOnly:)` for a program built on Urna: its refusals name `programName`'s own restore.
    package static func openExisting(path: String, readOnly: Bool, programName: String) throws -> Store {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.schemaMismatch(
                "\(path) does not exist: create it with Store(path:schema:) (openExisting only opens files)")
        }
        let c = try Connection(path: path, readOnly: readOnly, create: false, serialized: true)
        guard let recorded = try Store.recordedSchema(in: c) else {
            throw StoreError.schemaMismatch(
                "\(path) is not an Urna file (it has no \(StorageLayout.schemaTable) table)")
        }
        // The checks `Store(path:schema:)` makes after its schema matched: the recorded schema's tables held as views
        // would answer made-up rows (or never end), its views replaced would run other SQL.
        let planted = try Store.tablesHeldAsViews(of: recorded, in: c)
        if !planted.isEmpty {
            throw Store.tablesHeldAsViewsError(planted, path: c.path, schema: recorded, programName: programName)
        }
        let replaced = try Store.replacedViews(of: recorded, in: c)
        if !replaced.isEmpty { throw Store.replacedViewsError(replaced, path: c.path, schema: recorded) }
        return try Store(connection: c, schema: recorded, verify: false)
    }

    init(connection: Connection, schema: Schema, verify: Bool = true, pageSize: Int? = nil) throws {
        try schema.validate()
        self.connection = connection
        self.schema = schema
        self.compiler = QueryCompiler(schema: schema)
        self.fileID = FileWriters.identity(of: connection.path)
        let inMemory =
            connection.path.isEmpty || connection.path == ":memory:" || connection.path.hasPrefix("file::memory:")
        self.readers =
            inMemory
            ? nil
            : ReaderPool(path: connection.path) { [family = schema.family, version = schema.version] reader in
                if case .differs(let problem) = Store.recordedSchema(
                    on: reader, family: family, version: version, doing: "nothing was read")
                {
                    throw StoreError.schemaMismatch(problem)
                }
            }
        connection.ownerLock = writeLock
        connection.changedOutsideWrite = { [weak self] in self?.noteChangesOutsideWrite() }
        connection.cachesStale = { [weak self] in self?.bumpGeneration() }
        try connection.execute("PRAGMA foreign_keys = ON")
        try QueryCompiler.registerFunctions(on: connection)
        if verify { try installOrVerify(pageSize: pageSize) }
        touched.install(on: connection)
        lastDataVersion = (try? connection.dataVersion()) ?? 0
    }

    deinit {
        TouchedTables.uninstall(from: connection)
        // Streams of `changes` still iterated by tasks end: with the store gone they could never hear anything.
        for finish in observation.withLock({ $0.end() }) { finish() }
    }

    /// The longest descriptor (in characters) `recordedSchema(in:)` reads: 16 Mi, some thousand times a large
    /// family's.
    public static let maximumDescriptorLength: Int64 = 16 << 20

    /// The schema recorded in a file's metadata table, or nil when the file has none.
    public static func recordedSchema(in c: Connection) throws -> Schema? {
        guard try c.tableExists(StorageLayout.schemaTable) else { return nil }
        // A view under that name would run whatever SQL the file gave it on every open (a recursive one hung every
        // command): only a table holds a descriptor.
        if try c.integer(
            "SELECT count(*) FROM sqlite_master WHERE name = ? COLLATE NOCASE AND type = 'view'",
            [.text(StorageLayout.schemaTable)]) > 0
        {
            throw StoreError.schemaMismatch(
                DamagedDescriptor.prefix + "\(StorageLayout.schemaTable) is a view, not a table")
        }
        // The table is there: a missing row or a descriptor that is not text is a damaged file, not a file
        // without Urna's table ("not an Urna file", and import's "use a new file", sent the user the wrong way).
        // Measured before it is read: a planted 200 MB descriptor cost every command 20 s and 420 MB of memory to
        // decode (SQLite lets a value reach 1 GB); a family's own descriptor is some kilobytes.
        if case .integer(let n)? = try c.scalar(
            "SELECT length(descriptor) FROM \"\(StorageLayout.schemaTable)\" WHERE id = 1"),
            n > Store.maximumDescriptorLength
        {
            throw StoreError.schemaMismatch(
                DamagedDescriptor.prefix
                    + "it is \(n) characters long, over the \(Store.maximumDescriptorLength) a descriptor may have")
        }
        switch try c.scalar("SELECT descriptor FROM \"\(StorageLayout.schemaTable)\" WHERE id = 1") {
        case .text(let json)?: return try SchemaDescriptor.decode(json)
        case nil: throw StoreError.schemaMismatch(DamagedDescriptor.prefix + "the table holds no descriptor (no row 1)")
        case .blob?:
            throw StoreError.schemaMismatch(DamagedDescriptor.prefix + "the descriptor is a blob, not JSON text")
        case let other?:
            throw StoreError.schemaMismatch(DamagedDescriptor.prefix + "the descriptor is \(other), not JSON text")
        }
    }

    private func installOrVerify(pageSize: Int?) throws {
        func isEmpty() throws -> Bool {
            try connection.integer("SELECT count(*) FROM sqlite_master WHERE lower(substr(name, 1, 7)) <> 'sqlite_'")
                == 0
        }
        if try isEmpty() {
            if let pageSize {
                guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
                    throw StoreError.schemaMismatch("page size \(pageSize) is not a power of two from 512 to 65536")
                }
                // Takes effect only while the file holds no page yet (SQLite ignores it otherwise).
                try connection.execute("PRAGMA page_size = \(pageSize)")
            }
            // Switching to WAL needs the file to itself, and SQLite answers "database is locked" at once (no busy
            // wait) while another connection opening the same new file holds it for a moment: try again briefly.
            var attempts = 0
            while true {
                do {
                    try connection.execute("PRAGMA journal_mode = WAL")
                    break
                } catch let e as SQLiteError where e.isBusy && attempts < 250 {
                    attempts += 1
                    usleep(20_000)
                }
            }
            var created = false
            try transaction {
                // Another store or process may have created the file since the look above: verified below then.
                guard try isEmpty() else { return }
                try connection.execute(StorageLayout.metadataSQL)
                for sql in StorageLayout.createSQL(for: schema) { try connection.execute(sql) }
                try recordSchema(schema, in: connection)
                created = true
            }
            if created { return }
        }
        guard let recorded = try Store.recordedSchema(in: connection) else {
            throw StoreError.schemaMismatch(
                "\(connection.path) already holds tables that Urna did not create: use a new file")
        }
        if recorded.family != schema.family {
            throw StoreError.familyMismatch(file: recorded.family, expected: schema.family)
        }
        if recorded.version < schema.version {
            throw StoreError.schemaMismatch(
                "\(connection.path) is at \(recorded.family) version \(recorded.version), the code expects \(schema.version): migrate the file to version \(schema.version) first (UrnaMigrator's Migrator)"
            )
        }
        if recorded.version > schema.version {
            throw StoreError.schemaMismatch(
                "\(connection.path) is at \(recorded.family) version \(recorded.version), newer than this code's \(schema.version): open it with the schema of version \(recorded.version) (newer code); files are never downgraded"
            )
        }
        let differences = schema.differences(fromRecorded: recorded)
        if !differences.isEmpty {
            throw StoreError.schemaMismatch(
                "\(connection.path) records a different \(recorded.family) version \(recorded.version) schema than the code's: "
                    + differences.joined(separator: "; ")
                    + ". Give the changed schema a new version with a migration step, or open the file with the schema it was made with"
            )
        }
        let planted = try Store.tablesHeldAsViews(of: schema, in: connection)
        if !planted.isEmpty { throw Store.tablesHeldAsViewsError(planted, path: connection.path, schema: schema) }
        let replaced = try Store.replacedViews(of: schema, in: connection)
        if !replaced.isEmpty { throw Store.replacedViewsError(replaced, path: connection.path, schema: schema) }
    }

    /// Writes the schema's family, version and descriptor into the metadata table and user_version.
    public static func recordSchema(_ schema: Schema, in c: Connection) throws {
        try c.execute(StorageLayout.metadataSQL)
        try c.run(
            "INSERT INTO \"\(StorageLayout.schemaTable)\"(id, family, version, descriptor, updated_at) VALUES (1, ?, ?, ?, ?) "
                + "ON CONFLICT(id) DO UPDATE SET family = excluded.family, version = excluded.version, descriptor = excluded.descriptor, updated_at = excluded.updated_at",
            [
                .text(schema.family), .integer(Int64(schema.version)), .text(SchemaDescriptor.encode(schema)),
                .text(ISODate.format(Date())),
            ])
        try c.setUserVersion(schema.version)
    }

    private func recordSchema(_ schema: Schema, in c: Connection) throws { try Store.recordSchema(schema, in: c) }

    /// After raw SQL on `connection` outside a write changed rows (it committed on its own): cached results and object
    /// values read again, and the returned closure tells observers which types it may have changed. Needs the write lock.
    func noteChangesOutsideWrite() -> (() -> Void)? {
        let names = Set(touched.names.filter { schema[type: $0] != nil })
        touched.reset()
        bumpGeneration()
        // SQLite's update hook does not report tables without rowid (lists): then any type may have changed.
        let changes = ChangeSet(possiblyChanged: names.isEmpty ? Set(schema.tableTypes.map(\.name)) : names)
        return { [weak self] in self?.notifyObservers(changes) }
    }

    // MARK: - Internal transactions

    /// A raw transaction for internal multi-statement work (no observers, no write check).
    func transaction(_ body: () throws -> Void) throws {
        try writeLock.withLock {
            try connection.execute("BEGIN IMMEDIATE")
            do {
                try body()
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    func objectSchema(_ type: String) throws -> ObjectSchema {
        guard let t = schema[type: type], !t.embedded else { throw StoreError.unknownType(type) }
        return t
    }

    // MARK: - Counts

    /// How many objects of each type the store holds.
    public func counts() throws -> [String: Int] {
        var out: [String: Int] = [:]
        for t in schema.tableTypes {
            out[t.name] = Int(try reading { try $0.integer("SELECT count(*) FROM \(Identifier.quoted(t.name))") })
        }
        return out
    }
}
