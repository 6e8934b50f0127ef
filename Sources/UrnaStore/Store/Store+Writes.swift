import Foundation

/// How `create`/`add` treat an object whose primary key already exists.
public enum UpdatePolicy: Sendable {
    /// Throw `duplicatePrimaryKey` (plain insert).
    case error
    /// Update the properties that were given, keep the rest (Realm's `update: .modified`).
    case modified
    /// Replace every property: the ones not given go back to their defaults.
    case all
}

extension Store {
    /// Creates (or with `update:` upserts) an object from a dictionary, an ordered array of values, an
    /// unmanaged `DynamicObject` or `Object`, or an object from another store (which copies it).
    /// Nested dictionaries and arrays create linked objects inline.
    ///
    /// ```swift
    /// try store.create("Person", value: ["Jane", 30, [["Buster", 5], ["Buddy", 6]]])
    /// try store.create("Book", value: ["id": 1, "price": 9000], update: .modified)  // title kept
    /// ```
    @discardableResult
    public func create(_ typeName: String, value: Any, update: UpdatePolicy = .error) throws -> DynamicObject {
        return try writing {
            let t = try objectSchema(typeName)
            let key = try upsert(type: t, input: value, update: update)
            return DynamicObject(type: t, store: self, key: key)
        }
    }

    /// Creates an object from values in declaration order (`["Jane", 30]`); the fast path for bulk loads.
    @discardableResult
    public func create(_ typeName: String, value values: [Value], update: UpdatePolicy = .error) throws -> DynamicObject
    {
        return try writing {
            let t = try objectSchema(typeName)
            let key =
                try fastInsert(type: t, values: values, update: update)
                ?? upsert(type: t, input: values, update: update)
            return DynamicObject(type: t, store: self, key: key)
        }
    }

    /// Adds an unmanaged object; afterwards it is managed (reads and writes go to the file).
    public func add(_ object: DynamicObject, update: UpdatePolicy = .error) throws {
        try writing {
            if object.store === self, object.storedKey != nil { return }
            let key = try upsert(type: try objectSchema(object.type.name), input: object, update: update)
            object.store = self
            object.storedKey = key
            object.loadedGeneration = -1
        }
    }

    /// Deletes one object; links to it become nil and it leaves every list.
    public func delete(_ object: DynamicObject) throws {
        try writing {
            guard object.store === self, let key = object.storedKey else {
                throw StoreError.unmanagedObject(type: object.type.name)
            }
            try connection.run(
                "DELETE FROM \(Identifier.quoted(object.type.name)) WHERE \(Identifier.quoted(object.type.keyColumn)) = ?",
                [key])
            if connection.changes > 0 { pendingChanges.deleted[object.type.name, default: 0] += 1 }
            // Results already read in this write read their keys again (as after an update).
            bumpGeneration()
            // Remembered until the write ends: a write that rolls back gives the object back its key and store.
            deletedInWrite.append((object, key))
            if object.type.primaryKey == nil, case .integer(let id) = key { noteDeletedRowid(object.type.name, id) }
            object.storedKey = nil
            object.store = nil
            object.wasDeleted = true
        }
    }

    /// Deletes every object of a query result.
    public func delete(_ results: Results) throws {
        try writing {
            let (sql, bindings) = try results.keySQL()
            try noteDeletedRowids(
                of: results.type, where: " WHERE \(Identifier.quoted(results.type.keyColumn)) IN (\(sql))", bindings)
            try connection.run(
                "DELETE FROM \(Identifier.quoted(results.type.name)) WHERE \(Identifier.quoted(results.type.keyColumn)) IN (\(sql))",
                bindings)
            if connection.changes > 0 { pendingChanges.deleted[results.type.name, default: 0] += connection.changes }
            bumpGeneration()
        }
    }

    /// Deletes every object of every type.
    public func deleteAll() throws {
        try writing {
            for t in schema.tableTypes.reversed() {
                try noteDeletedRowids(of: t)
                try connection.run("DELETE FROM \(Identifier.quoted(t.name))")
                if connection.changes > 0 { pendingChanges.deleted[t.name, default: 0] += connection.changes }
            }
            bumpGeneration()
        }
    }

    /// Deletes every object of one type.
    public func deleteAll(_ typeName: String) throws {
        try delete(objects(typeName))
    }

    // MARK: - Internals

    /// Inserts or updates one object from any accepted input and returns its stored key.
    func upsert(type t: ObjectSchema, input: Any, update: UpdatePolicy) throws -> SQLValue {
        if let obj = input as? DynamicObject {
            if obj.store === self, let k = obj.storedKey { return k }
            if obj.isManaged {
                // Copy from another store, with what it links to.
                var copy: [String: Any] = [:]
                for (name, v) in try obj.dictionary() { copy[name] = try deepCopyValue(v, from: obj) }
                copy.removeValue(forKey: ObjectSchema.rowIdColumn)
                return try upsert(type: t, input: copy, update: update)
            }
            return try upsert(type: t, input: obj.values as [String: Any], update: update)
        }
        if let model = input as? Object {
            if let managed = model.managedObject, managed.isManaged {
                return try upsert(type: t, input: managed, update: update)
            }
            return try upsert(type: t, input: try model.unmanagedValues(), update: update)
        }
        let given: [String: Any]
        if let d = input as? [String: Any] {
            given = d
        } else if let d = input as? [String: Value] {
            given = d
        } else if let a = input as? [Any] {
            let props = t.properties.filter { !$0.ignored && !isInverse($0) }
            guard a.count <= props.count else {
                throw StoreError.tooManyValues(type: t.name, given: a.count, expected: props.count)
            }
            var d: [String: Any] = [:]
            for (i, v) in a.enumerated() { d[props[i].name] = v }
            given = d
        } else {
            throw StoreError.typeMismatch(
                type: t.name, property: "(value)", expected: "a dictionary, an array or an object",
                got: "\(Swift.type(of: input))")
        }
        for name in given.keys where t[property: name] == nil && name != ObjectSchema.rowIdColumn {
            throw StoreError.unknownProperty(type: t.name, property: name)
        }
        var columns: [(Property, SQLValue)] = []
        var lists: [(Property, [SQLValue])] = []
        for p in t.properties where !p.ignored {
            guard let raw = given[p.name] else { continue }
            switch p.type {
            case .linkingObjects:
                throw StoreError.readOnlyProperty(type: t.name, property: p.name)
            case .list(let target):
                let tt = try objectSchema(target)
                var keys: [SQLValue] = []
                for item in try listItems(raw, type: t.name, property: p.name) {
                    keys.append(try linkKey(item, target: tt, update: update, owner: t.name, property: p.name))
                }
                lists.append((p, keys))
            case .link(let target):
                let tt = try objectSchema(target)
                let k: SQLValue =
                    isNil(raw) ? .null : try linkKey(raw, target: tt, update: update, owner: t.name, property: p.name)
                columns.append((p, k))
            default:
                let v = try ValueCodec.coerce(try toValue(raw, for: p, in: t.name), to: p, in: t.name, schema: schema)
                columns.append((p, ValueCodec.encode(v, as: p.type, schema: schema)))
            }
        }
        let key = try writeRow(type: t, columns: columns, update: update)
        for (p, keys) in lists { try replaceList(owner: t, property: p, ownerKey: key, targets: keys) }
        return key
    }

    /// Before rows of a type without a primary key are deleted (those `condition` selects, or all): remembers the
    /// largest `_id` among them.
    private func noteDeletedRowids(of t: ObjectSchema, where condition: String = "", _ bindings: [SQLValue] = []) throws
    {
        guard t.primaryKey == nil else { return }
        let top = try connection.scalar(
            "SELECT max(\(Identifier.quoted(t.keyColumn))) FROM \(Identifier.quoted(t.name))\(condition)", bindings)
        if case .integer(let id)? = top { noteDeletedRowid(t.name, id) }
    }

    func noteDeletedRowid(_ type: String, _ id: Int64) {
        deletedRowidHighWater[type] = max(deletedRowidHighWater[type] ?? Int64.min, id)
    }

    /// The `_id` SQLite gave the row just inserted, moved past every `_id` this store deleted of its type (so a
    /// deleted object's handle never reads a new one).
    func freshRowid(_ t: ObjectSchema) throws -> SQLValue {
        let id = connection.lastInsertRowID
        guard !deletedRowidHighWater.isEmpty, let deleted = deletedRowidHighWater[t.name], id <= deleted,
            deleted < Int64.max
        else { return .integer(id) }
        let table = Identifier.quoted(t.name)
        let column = Identifier.quoted(t.keyColumn)
        let top = try connection.scalar("SELECT max(\(column)) FROM \(table)")
        var fresh = deleted + 1
        if case .integer(let m)? = top, m >= fresh, m < Int64.max { fresh = m + 1 }
        try connection.run("UPDATE \(table) SET \(column) = ? WHERE \(column) = ?", [.integer(fresh), .integer(id)])
        return .integer(fresh)
    }

    func isInverse(_ p: Property) -> Bool { if case .linkingObjects = p.type { true } else { false } }
    private func isNil(_ v: Any) -> Bool {
        if let v = v as? Value { return v.isNull }
        if case Optional<Any>.none = v as Any? { return true }
        return v is NSNull
    }

    private func listItems(_ raw: Any, type: String, property: String) throws -> [Any] {
        if let a = raw as? [Any] { return a }
        if let v = raw as? Value, case .list(let l) = v { return l.map { Value.link($0) } }
        if let r = raw as? Results { return Array(r) }
        if let l = raw as? AnyObjectList { return l.anyMembers }
        throw StoreError.typeMismatch(type: type, property: property, expected: "a list", got: "\(Swift.type(of: raw))")
    }

    /// The key of a linked object given as an object, nested values, or a key value.
    private func linkKey(_ raw: Any, target: ObjectSchema, update: UpdatePolicy, owner: String, property: String) throws
        -> SQLValue
    {
        if let o = raw as? DynamicObject {
            return try upsert(type: target, input: o, update: o.isManaged ? update : update)
        }
        if let o = raw as? Object {
            if let managed = o.managedObject, managed.store === self, let k = managed.storedKey { return k }
            let k = try upsert(type: target, input: o, update: update)
            o.bind(to: DynamicObject(type: target, store: self, key: k))
            return k
        }
        if raw is [String: Any] || raw is [Any] || raw is [String: Value] {
            return try upsert(type: target, input: raw, update: target.primaryKey == nil ? .error : update)
        }
        let keyValue: Value
        if let v = raw as? Value {
            if case .link(let l) = v { keyValue = l.key } else { keyValue = v }
        } else {
            keyValue = try toValue(raw, for: target.primaryKey ?? Property("_id", .int64), in: target.name)
        }
        let k = ValueCodec.encodeKey(keyValue)
        let exists = try connection.integer(
            "SELECT count(*) FROM \(Identifier.quoted(target.name)) WHERE \(Identifier.quoted(target.keyColumn)) = ?",
            [k])
        if exists == 0 {
            throw StoreError.objectNotFound(type: target.name, key: keyValue.description)
        }
        return k
    }

    /// Inserts, or updates per `update`, one row; returns its key.
    func writeRow(type t: ObjectSchema, columns: [(Property, SQLValue)], update: UpdatePolicy) throws -> SQLValue {
        let table = Identifier.quoted(t.name)
        if let pk = t.primaryKey {
            guard let keyValue = columns.first(where: { $0.0.name == pk.name })?.1, !keyValue.isNull else {
                if pk.type.isInteger, update == .error {
                    // Let SQLite choose an integer key, as for a row id.
                    return try insertRow(t, columns, table: table)
                }
                if pk.type == .uuid, update == .error, pk.defaultValue == nil {
                    // A UUID key nobody gave gets a fresh random one (Realm's behaviour for `UUID()` keys).
                    let fresh = ValueCodec.encode(.uuid(UUID()), as: .uuid, schema: schema)
                    return try insertRow(t, columns.filter { $0.0.name != pk.name } + [(pk, fresh)], table: table)
                }
                throw StoreError.missingPrimaryKey(type: t.name)
            }
            let exists =
                try connection.integer(
                    "SELECT count(*) FROM \(table) WHERE \(Identifier.quoted(pk.name)) = ?", [keyValue]) > 0
            if exists {
                guard update != .error else {
                    throw StoreError.duplicatePrimaryKey(type: t.name, key: keyValue.description)
                }
                var sets = columns.filter { !$0.0.primaryKey }
                if update == .all {
                    let givenNames = Set(sets.map(\.0.name))
                    for p in t.storedProperties where !p.primaryKey && !givenNames.contains(p.name) {
                        sets.append((p, ValueCodec.encode(p.effectiveDefault, as: p.type, schema: schema)))
                    }
                }
                if !sets.isEmpty {
                    let assignments = sets.map { "\(Identifier.quoted($0.0.name)) = ?" }.joined(separator: ", ")
                    try connection.run(
                        "UPDATE \(table) SET \(assignments) WHERE \(Identifier.quoted(pk.name)) = ?",
                        sets.map(\.1) + [keyValue])
                }
                pendingChanges.modified[t.name, default: 0] += 1
                bumpGeneration()
                return keyValue
            }
            _ = try insertRow(t, columns, table: table)
            return keyValue
        }
        return try insertRow(t, columns, table: table)
    }

    private func insertRow(_ t: ObjectSchema, _ columns: [(Property, SQLValue)], table: String) throws -> SQLValue {
        let sql: String
        if columns.isEmpty {
            sql = "INSERT INTO \(table) DEFAULT VALUES"
        } else {
            sql =
                "INSERT INTO \(table) (\(columns.map { Identifier.quoted($0.0.name) }.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        }
        do {
            try connection.run(sql, columns.map(\.1))
        } catch let e as SQLiteError where e.isConstraint && e.message.contains("UNIQUE") {
            let k = columns.first { $0.0.primaryKey }?.1.description ?? "?"
            throw StoreError.duplicatePrimaryKey(type: t.name, key: k)
        }
        pendingChanges.inserted[t.name, default: 0] += 1
        bumpGeneration()
        if let pk = t.primaryKey, let v = columns.first(where: { $0.0.name == pk.name })?.1, !v.isNull { return v }
        return try freshRowid(t)
    }

    /// Updates some properties of a managed object.
    func update(type t: ObjectSchema, key: SQLValue, values: [String: Value]) throws {
        try writing {
            var columns: [(Property, SQLValue)] = []
            for (name, v) in values {
                guard let p = t[property: name] else { throw StoreError.unknownProperty(type: t.name, property: name) }
                if p.primaryKey {
                    throw StoreError.schemaMismatch(
                        "\(t.name).\(name) is the primary key and cannot change once stored")
                }
                switch p.type {
                case .list(let target):
                    let tt = try objectSchema(target)
                    let keys = try listItems(v, type: t.name, property: name).map {
                        try linkKey($0, target: tt, update: .error, owner: t.name, property: name)
                    }
                    try replaceList(owner: t, property: p, ownerKey: key, targets: keys)
                case .link(let target):
                    let tt = try objectSchema(target)
                    columns.append(
                        (
                            p,
                            v.isNull ? .null : try linkKey(v, target: tt, update: .error, owner: t.name, property: name)
                        ))
                default:
                    let c = try ValueCodec.coerce(v, to: p, in: t.name, schema: schema)
                    columns.append((p, ValueCodec.encode(c, as: p.type, schema: schema)))
                }
            }
            if !columns.isEmpty {
                let assignments = columns.map { "\(Identifier.quoted($0.0.name)) = ?" }.joined(separator: ", ")
                try connection.run(
                    "UPDATE \(Identifier.quoted(t.name)) SET \(assignments) WHERE \(Identifier.quoted(t.keyColumn)) = ?",
                    columns.map(\.1) + [key])
                // Another task or process deleted the object: a write to it would store nothing, without a word.
                if connection.changes == 0 { throw StoreError.invalidated(type: t.name) }
            } else if try !rowExists(type: t, key: key) {
                throw StoreError.invalidated(type: t.name)
            }
            pendingChanges.modified[t.name, default: 0] += 1
            bumpGeneration()
        }
    }

    /// Replaces a list's members (in order).
    func replaceList(owner t: ObjectSchema, property p: Property, ownerKey: SQLValue, targets: [SQLValue]) throws {
        let table = Identifier.quoted(StorageLayout.listTable(type: t.name, property: p.name))
        try connection.run("DELETE FROM \(table) WHERE owner = ?", [ownerKey])
        for (i, k) in targets.enumerated() {
            try connection.run(
                "INSERT INTO \(table)(owner, position, target) VALUES (?, ?, ?)", [ownerKey, .integer(Int64(i)), k])
        }
    }

}
