import Foundation

extension Store {
    /// Every object of a type, as lazy live results.
    public func objects(_ typeName: String) throws -> Results {
        Results(store: self, type: try objectSchema(typeName), scope: .all)
    }

    /// The object with this primary key (or `_id` for types without one), or nil.
    public func object(ofType typeName: String, forPrimaryKey key: Value) throws -> DynamicObject? {
        let t = try objectSchema(typeName)
        let k = ValueCodec.encodeKey(key)
        let n = try reading {
            try $0.integer(
                "SELECT count(*) FROM \(Identifier.quoted(t.name)) WHERE \(Identifier.quoted(t.keyColumn)) = ?", [k])
        }
        return n > 0 ? DynamicObject(type: t, store: self, key: k) : nil
    }

    /// Whether the row with this key exists.
    func rowExists(type t: ObjectSchema, key: SQLValue) throws -> Bool {
        try reading {
            try $0.integer(
                "SELECT count(*) FROM \(Identifier.quoted(t.name)) WHERE \(Identifier.quoted(t.keyColumn)) = ?", [key])
                > 0
        }
    }

    /// Reads one row's stored properties (lists and inverses excluded); nil when it no longer exists.
    func loadRow(type t: ObjectSchema, key: SQLValue) throws -> [String: Value]? {
        try reading { try loadRow(type: t, key: key, on: $0) }
    }

    private func loadRow(type t: ObjectSchema, key: SQLValue, on connection: Connection) throws -> [String: Value]? {
        let props = t.storedProperties
        if props.isEmpty {
            let n = try connection.integer(
                "SELECT count(*) FROM \(Identifier.quoted(t.name)) WHERE \(Identifier.quoted(t.keyColumn)) = ?", [key])
            return n > 0 ? [:] : nil
        }
        let cols = props.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let s = try connection.cachedStatement(
            "SELECT \(cols) FROM \(Identifier.quoted(t.name)) WHERE \(Identifier.quoted(t.keyColumn)) = ?")
        try s.bind([key])
        defer { s.reset() }
        guard try s.step() else { return nil }
        var out: [String: Value] = [:]
        out.reserveCapacity(props.count)
        for (i, p) in props.enumerated() { out[p.name] = ValueCodec.decode(s.value(at: i), as: p.type, schema: schema) }
        return out
    }

    func listTargets(owner t: ObjectSchema, property p: Property, key: SQLValue, target: String) throws -> [LinkTarget]
    {
        let keyType = schema[type: target]?.primaryKey?.type ?? .int64
        return try reading {
            try $0.rows(
                "SELECT target FROM \(Identifier.quoted(StorageLayout.listTable(type: t.name, property: p.name))) WHERE owner = ? ORDER BY position",
                [key])
        }.map { LinkTarget(type: target, key: ValueCodec.decodeKey($0[0], keyType: keyType)) }
    }

    func listResults(owner: DynamicObject, property p: Property) throws -> Results {
        guard case .list(let target) = p.type, let key = owner.storedKey else {
            throw StoreError.unmanagedObject(type: owner.type.name)
        }
        return Results(
            store: self, type: try objectSchema(target),
            scope: .list(table: StorageLayout.listTable(type: owner.type.name, property: p.name), owner: key),
            owner: (owner.type, key), ownerObject: owner)
    }

    func linkingObjects(of object: DynamicObject, property p: Property) throws -> Results {
        guard case .linkingObjects(let origin, let originProperty) = p.type, let key = object.storedKey else {
            throw StoreError.unmanagedObject(type: object.type.name)
        }
        let o = try objectSchema(origin)
        guard let op = o[property: originProperty] else {
            throw StoreError.unknownProperty(type: origin, property: originProperty)
        }
        if case .list = op.type {
            return Results(
                store: self, type: o,
                scope: .inverseList(
                    table: StorageLayout.listTable(type: origin, property: originProperty), target: key),
                owner: (object.type, key), ownerObject: object)
        }
        return Results(
            store: self, type: o, scope: .inverseLink(column: originProperty, target: key), owner: (object.type, key),
            ownerObject: object)
    }

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
}
