import CSQLite
import Foundation

/// An object store in one SQLite file (or in memory): schema, write transactions, objects, queries.
///
/// ```swift
/// let store = try Store(path: "people.sqlite", schema: PeopleSchema.latest)
/// try store.write {
///     try store.create("Person", value: ["fullName": "Ada Lovelace", "age": 36])
/// }
/// let adults = try store.objects("Person").filter("age >= %d", 18).sorted(byKeyPath: "fullName")
/// ```
public final class Store {
    public let connection: Connection
    public let schema: Schema
    /// Bumped by every write; live results and objects reload when it moves.
    public internal(set) var generation: Int = 0
    var pendingChanges = ChangeSet()
    var observers: [Int: (ChangeSet) -> Void] = [:]
    var nextObserverID = 0
    let compiler: QueryCompiler
    var insertPlans: [InsertPlanKey: CachedInsertPlan] = [:]

    /// Opens or creates the file at `path` with `schema`.
    ///
    /// A new (empty) file gets the schema's tables and records the schema; an existing file must hold the
    /// same family at the same version (older files need `urna migrate`; newer ones are refused).
    ///
    /// `pageSize` (a power of two from 512 to 65536) applies only when the file is created here; SQLite's
    /// default is 4096. Bulk-loaded files do better with bigger pages (fewer B-tree splits and index
    /// pages): the importer creates its files with 16384.
    public convenience init(path: String, schema: Schema, pageSize: Int? = nil) throws {
        let c = try Connection(path: path)
        try self.init(connection: c, schema: schema, pageSize: pageSize)
    }

    /// An in-memory store, for tests and scratch work.
    public static func inMemory(schema: Schema) throws -> Store {
        try Store(connection: Connection(path: ":memory:"), schema: schema)
    }

    /// Opens an existing file with the schema it records about itself (no Swift model needed).
    public static func openExisting(path: String, readOnly: Bool = false) throws -> Store {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError.schemaMismatch("\(path) does not exist: create it with `urna init` or `urna import`")
        }
        let c = try Connection(path: path, readOnly: readOnly, create: false)
        guard let recorded = try Store.recordedSchema(in: c) else {
            throw StoreError.schemaMismatch("\(path) is not an Urna file (it has no \(StorageLayout.schemaTable) table)")
        }
        return try Store(connection: c, schema: recorded, verify: false)
    }

    init(connection: Connection, schema: Schema, verify: Bool = true, pageSize: Int? = nil) throws {
        try schema.validate()
        self.connection = connection
        self.schema = schema
        self.compiler = QueryCompiler(schema: schema)
        try connection.execute("PRAGMA foreign_keys = ON")
        try QueryCompiler.registerFunctions(on: connection)
        if verify { try installOrVerify(pageSize: pageSize) }
    }

    /// The schema recorded in a file's metadata table, or nil when the file has none.
    public static func recordedSchema(in c: Connection) throws -> Schema? {
        guard try c.tableExists(StorageLayout.schemaTable) else { return nil }
        guard case .text(let json)? = try c.scalar("SELECT descriptor FROM \"\(StorageLayout.schemaTable)\" WHERE id = 1")
        else { return nil }
        return try SchemaDescriptor.decode(json)
    }

    private func installOrVerify(pageSize: Int?) throws {
        let isEmpty = try connection.integer("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'") == 0
        if isEmpty {
            if let pageSize {
                guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
                    throw StoreError.schemaMismatch("page size \(pageSize) is not a power of two from 512 to 65536")
                }
                // Takes effect only while the file holds no page yet (SQLite ignores it otherwise).
                try connection.execute("PRAGMA page_size = \(pageSize)")
            }
            try connection.execute("PRAGMA journal_mode = WAL")
            try transaction {
                try connection.execute(StorageLayout.metadataSQL)
                for sql in StorageLayout.createSQL(for: schema) { try connection.execute(sql) }
                try recordSchema(schema, in: connection)
            }
            return
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
                "\(connection.path) is at \(recorded.family) version \(recorded.version), the code expects \(schema.version): run `urna migrate --db \(connection.path)` first"
            )
        }
        if recorded.version > schema.version {
            throw StoreError.schemaMismatch(
                "\(connection.path) is at \(recorded.family) version \(recorded.version), newer than this code's \(schema.version): use a newer urna"
            )
        }
    }

    /// Writes the schema's family, version and descriptor into the metadata table and user_version.
    public static func recordSchema(_ schema: Schema, in c: Connection) throws {
        try c.execute(StorageLayout.metadataSQL)
        try c.run(
            "INSERT INTO \"\(StorageLayout.schemaTable)\"(id, family, version, descriptor, updated_at) VALUES (1, ?, ?, ?, ?) "
                + "ON CONFLICT(id) DO UPDATE SET family = excluded.family, version = excluded.version, descriptor = excluded.descriptor, updated_at = excluded.updated_at",
            [.text(schema.family), .integer(Int64(schema.version)), .text(SchemaDescriptor.encode(schema)),
             .text(ISODate.format(Date()))])
        try c.setUserVersion(schema.version)
    }

    private func recordSchema(_ schema: Schema, in c: Connection) throws { try Store.recordSchema(schema, in: c) }

    // MARK: - Write transactions

    /// Whether a write transaction is open.
    public var isInWriteTransaction: Bool { connection.isInTransaction }

    /// Runs `body` in one write transaction: everything it did is committed, or nothing if it throws.
    @discardableResult
    public func write<T>(_ body: () throws -> T) throws -> T {
        try beginWrite()
        do {
            let result = try body()
            try commitWrite()
            return result
        } catch {
            cancelWrite()
            throw error
        }
    }

    /// Opens a write transaction (BEGIN IMMEDIATE: other writers wait, readers go on).
    public func beginWrite() throws {
        guard !connection.isInTransaction else { throw StoreError.alreadyInWriteTransaction }
        try connection.execute("BEGIN IMMEDIATE")
        pendingChanges = ChangeSet()
    }

    /// Commits the open write transaction, then tells observers what changed.
    public func commitWrite() throws {
        guard connection.isInTransaction else { throw StoreError.notInWriteTransaction }
        do {
            try connection.execute("COMMIT")
        } catch {
            cancelWrite()
            throw error
        }
        let changes = pendingChanges
        pendingChanges = ChangeSet()
        generation += 1
        if !changes.isEmpty { for id in observers.keys.sorted() { observers[id]?(changes) } }
    }

    /// Rolls back the open write transaction; nothing it did remains.
    public func cancelWrite() {
        if connection.isInTransaction { try? connection.execute("ROLLBACK") }
        pendingChanges = ChangeSet()
        generation += 1
    }

    func requireWrite() throws {
        guard connection.isInTransaction else { throw StoreError.notInWriteTransaction }
    }

    /// A raw transaction for internal multi-statement work (no observers, no write check).
    func transaction(_ body: () throws -> Void) throws {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    func objectSchema(_ type: String) throws -> ObjectSchema {
        guard let t = schema[type: type], !t.embedded else { throw StoreError.unknownType(type) }
        return t
    }

    // MARK: - Observation

    /// Calls `callback` after each committed write that changed objects; keep the token to keep observing.
    public func observe(_ callback: @escaping (ChangeSet) -> Void) -> ObservationToken {
        let id = nextObserverID
        nextObserverID += 1
        observers[id] = callback
        return ObservationToken { [weak self] in self?.observers[id] = nil }
    }

    // MARK: - Counts

    /// How many objects of each type the store holds.
    public func counts() throws -> [String: Int] {
        var out: [String: Int] = [:]
        for t in schema.tableTypes {
            out[t.name] = Int(try connection.integer("SELECT count(*) FROM \(Identifier.quoted(t.name))"))
        }
        return out
    }
}

/// What one committed write did, per type.
public struct ChangeSet: Sendable, Equatable {
    public var inserted: [String: Int] = [:]
    public var modified: [String: Int] = [:]
    public var deleted: [String: Int] = [:]

    public init() {}

    public var isEmpty: Bool { inserted.isEmpty && modified.isEmpty && deleted.isEmpty }
    /// Every type that changed in any way.
    public var types: Set<String> { Set(inserted.keys).union(modified.keys).union(deleted.keys) }
}

/// Stops an observation when `invalidate()` is called or the token is released.
public final class ObservationToken {
    private var cancel: (() -> Void)?
    init(_ cancel: @escaping () -> Void) { self.cancel = cancel }
    public func invalidate() {
        cancel?()
        cancel = nil
    }
    deinit { invalidate() }
}
