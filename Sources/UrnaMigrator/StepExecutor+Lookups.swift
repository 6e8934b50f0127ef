import Foundation
import UrnaStore

/// Reading objects during a step: old objects by key, new objects by key or by their old key, lists
/// and inverse links.
extension StepExecutor {
    func oldObject(ofType typeName: String, storedKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), let old = t.old, let layout = t.oldLayout else {
            if step.from[type: typeName] == nil {
                throw MigrationObjectError.unknownType(typeName, version: step.from.version)
            }
            return nil
        }
        let s: Statement
        if let cached = oldLookups[typeName] {
            s = cached
            s.reset()
        } else {
            let cols = (t.oldColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
            s = try connection.prepare(
                "SELECT \(cols) FROM \(oldRows(typeName)) WHERE \(Identifier.quoted(old.keyColumn)) = ?")
            oldLookups[typeName] = s
            t.oldRead = true
        }
        try s.bind(storedKey, at: 1)
        defer { s.reset() }
        guard try s.step() else { return nil }
        if t.isRemoved || !t.droppedColumns.isEmpty, case .integer(let rowid) = s.value(at: t.oldColumns.count) {
            t.rowsLookedUp.insert(rowid)
        }
        // A lookup by key reads the key: a removed key column the closure looked objects up by was not dropped unseen.
        if let k = t.oldKeyIndex { t.noteOldRead(k) }
        let values = (0..<t.oldColumns.count).map { s.value(at: $0) }
        return MigrationObject(
            layout: layout, executor: self, values: values, originKey: t.oldKeyIndex.map { values[$0] })
    }

    /// The new object whose key is now `currentKey`.
    func newObject(ofType typeName: String, currentKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), t.new != nil else {
            throw MigrationObjectError.unknownType(typeName, version: step.to.version)
        }
        return try loadNew(t, key: currentKey, originKey: nil)
    }

    /// The new form of the old object that had the key `originKey`.
    func newObject(ofType typeName: String, originKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), t.new != nil else {
            throw MigrationObjectError.unknownType(typeName, version: step.to.version)
        }
        if let pending = t.currentPending, pending.originKey == originKey { return pending }
        var key = Affinity.apply(originKey, sqlType: t.newKeySQLType)
        if t.hasKeyMap {
            let s = try statement("SELECT \"new_key\" FROM \(t.keyMapTable) WHERE \"old_key\" = ?")
            try s.bind(originKey, at: 1)
            if try s.step() { key = s.value(at: 0) }
            s.reset()
        }
        return try loadNew(t, key: key, originKey: originKey)
    }

    func loadNew(_ t: TypeTransfer, key: SQLValue, originKey: SQLValue?) throws -> MigrationObject? {
        guard let n = t.new, let layout = t.newLayout else { return nil }
        try payOwedRows(t)
        guard t.filled || t.enumerating || t.created > 0 else { throw MigrationObjectError.notEnumeratedYet(t.name) }
        let cols = (t.newColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
        let s = try statement(
            "SELECT \(cols) FROM \(Identifier.quoted(t.tableName)) WHERE \(Identifier.quoted(n.keyColumn)) = ?")
        try s.bind(key, at: 1)
        defer { s.reset() }
        guard try s.step() else { return nil }
        let values = (0..<t.newColumns.count).map { s.value(at: $0) }
        let o = MigrationObject(layout: layout, executor: self, values: values, originKey: originKey)
        o.rowid = s.int(at: t.newColumns.count)
        return o
    }

    /// A list's members as targets: old objects read the old list table; new objects their staged
    /// value, or the carried (old) members.
    func listValue(of o: MigrationObject, property p: Property, target: String) throws -> [LinkTarget] {
        let t = o.transfer
        if o.role == .new {
            let keyType = step.to[type: target]?.primaryKey?.type ?? .int64
            if let keys = o.lists[p.name] {
                return keys.map { LinkTarget(type: target, key: ValueCodec.decodeKey($0, keyType: keyType)) }
            }
            let listKey = "\(t.name).\(p.name)"
            if let rowid = o.rowid, stagedLists.contains(listKey),
                try count(
                    "SELECT count(*) FROM \(Self.listOwnersTable) WHERE \"list\" = ? AND \"rid\" = ?",
                    [.text(listKey), .integer(rowid)]) > 0
            {
                return try connection.rows(
                    "SELECT \"target\" FROM \(Self.listItemsTable) WHERE \"list\" = ? AND \"rid\" = ? ORDER BY \"position\"",
                    [.text(listKey), .integer(rowid)]
                ).map { LinkTarget(type: target, key: ValueCodec.decodeKey($0[0], keyType: keyType)) }
            }
            guard let l = analysis.lists.first(where: { $0.owner == t.name && $0.property == p.name }),
                let oldTable = l.oldTable,
                let origin = o.originKey
            else { return [] }
            return try readList(
                table: oldTable, owner: origin, target: target,
                keyType: step.from[type: target]?.primaryKey?.type ?? .int64)
        }
        guard let key = o.originKey else { return [] }
        return try readList(
            table: StorageLayout.listTable(type: t.name, property: p.name), owner: key, target: target,
            keyType: step.from[type: target]?.primaryKey?.type ?? .int64)
    }

    func readList(table: String, owner: SQLValue, target: String, keyType: PropertyType) throws -> [LinkTarget] {
        let s = try statement(
            "SELECT \"target\" FROM \(Identifier.quoted(table)) WHERE \"owner\" = ? ORDER BY \"position\"")
        try s.bind(owner, at: 1)
        defer { s.reset() }
        var out: [LinkTarget] = []
        while try s.step() {
            out.append(LinkTarget(type: target, key: ValueCodec.decodeKey(s.value(at: 0), keyType: keyType)))
        }
        return out
    }

    /// The old objects whose link or list points at an old object.
    func inverseValue(of o: MigrationObject, origin: String, originProperty: String) throws -> [LinkTarget] {
        guard let key = o.originKey, let originType = step.from[type: origin],
            let p = originType[property: originProperty]
        else { return [] }
        let keyType = originType.primaryKey?.type ?? .int64
        let sql: String
        if case .list = p.type {
            try createDeferredIndexes(on: StorageLayout.listTable(type: origin, property: originProperty))
            sql =
                "SELECT DISTINCT \"owner\" FROM \(Identifier.quoted(StorageLayout.listTable(type: origin, property: originProperty))) WHERE \"target\" = ? ORDER BY \"owner\""
        } else if isIncoming(origin) {
            // Carried rows compute their links: looked up in a copy indexed by the link instead.
            let rows = try materializedRows(origin, indexing: originProperty)
            sql =
                "SELECT \(Identifier.quoted(originType.keyColumn)) FROM \(rows) WHERE \(Identifier.quoted(originProperty)) = ? ORDER BY rowid"
        } else {
            try createDeferredIndexes(on: origin)
            sql =
                "SELECT \(Identifier.quoted(originType.keyColumn)) FROM \(Identifier.quoted(origin)) WHERE \(Identifier.quoted(originProperty)) = ? ORDER BY rowid"
        }
        let s = try statement(sql)
        try s.bind(key, at: 1)
        defer { s.reset() }
        var out: [LinkTarget] = []
        while try s.step() {
            out.append(LinkTarget(type: origin, key: ValueCodec.decodeKey(s.value(at: 0), keyType: keyType)))
        }
        return out
    }
}
