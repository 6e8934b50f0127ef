import Foundation
import UrnaStore

/// What the closure's `Migration` does: enumerations, creations, deletions, lookups, renames.
extension StepExecutor {
    // MARK: - Enumeration

    func enumerate(_ typeName: String, _ block: (MigrationObject, MigrationObject) throws -> Void) throws {
        guard let t = transfer(typeName) else {
            if step.from[type: typeName] != nil || step.to[type: typeName] != nil { return }  // embedded: no objects
            throw MigrationObjectError.unknownType(typeName, version: nil)
        }
        guard let old = t.old, !t.cleared else { return }
        guard !t.enumerating else { throw MigrationObjectError.nestedEnumeration(typeName) }
        t.enumerating = true
        defer { t.enumerating = false }
        t.enumerations += 1
        let firstPass = t.new != nil && !t.filled
        if firstPass { markRebuilt(t) }
        if firstPass { recorder.noteOnce(analysis.insertSQL(t)) }
        let select = try connection.prepare(analysis.selectOldSQL(t))
        let total = countsBefore[typeName] ?? 0
        let rowidIndex = t.oldColumns.count
        var done = 0
        while try select.step() {
            var values = [SQLValue]()
            values.reserveCapacity(t.oldColumns.count)
            for i in 0..<t.oldColumns.count { values.append(select.value(at: i)) }
            let rowid = select.int(at: rowidIndex)
            let originKey = t.oldKeyIndex.map { values[$0] }
            let oldObject = MigrationObject(
                role: .old, schema: old, transfer: t, executor: self, values: values, originKey: originKey)
            let newObject: MigrationObject
            if let n = t.new {
                if firstPass {
                    newObject = carry(t, schema: n, old: values, rowid: rowid, originKey: originKey)
                    currentPending[typeName] = newObject
                } else {
                    guard let key = originKey, let stored = try self.newObject(ofType: typeName, originKey: key) else { continue }
                    newObject = stored
                }
            } else {
                newObject = MigrationObject(role: .new, schema: old, transfer: t, executor: self, values: [], originKey: originKey)
                newObject.isDeleted = true  // the type is gone: writes to it fail with a clear message
            }
            try block(oldObject, newObject)
            currentPending[typeName] = nil
            if let e = takePendingError() { throw e }
            t.enumerated += 1
            if firstPass { try insert(newObject) } else if newObject.changed { t.changed += 1 }
            done += 1
            if done % 50_000 == 0 { reporter?.progress(type: typeName, done: done, total: total) }
        }
        if firstPass {
            t.filled = true
            t.filledBySwift = true
        }
        if total >= 50_000 { reporter?.progress(type: typeName, done: done, total: total) }
    }

    /// The new form of an old object: same-named and renamed values carried over (converted where the
    /// type changed), defaults for the rest.
    func carry(_ t: TypeTransfer, schema: ObjectSchema, old: [SQLValue], rowid: Int64, originKey: SQLValue?) -> MigrationObject {
        var values = [SQLValue](repeating: .null, count: t.newColumns.count)
        var inexact: [Int] = []
        for (i, source) in t.sources.enumerated() {
            switch source {
            case .copy(let oi): values[i] = old[oi]
            case .rowid: values[i] = .integer(rowid)
            case .constant(let v): values[i] = v
            case .convert(let oi, let from, let to, _, let nullDefault):
                let v = old[oi]
                if v.isNull {
                    values[i] = nullDefault ?? .null
                } else if let (converted, exact) = StoredValueConverter.convert(v, from: from, to: to) {
                    values[i] = converted
                    if !exact { inexact.append(i) }
                } else {
                    values[i] = t.newColumns[i].property.map { ValueCodec.encode($0.effectiveDefault, as: $0.type, schema: step.to) } ?? .null
                    inexact.append(i)
                }
            }
        }
        let o = MigrationObject(role: .new, schema: schema, transfer: t, executor: self, values: values, originKey: originKey)
        o.inexact = inexact
        o.isPending = true
        return o
    }

    /// Writes a pending new object (enumerated or created) into its type's new table.
    func insert(_ o: MigrationObject) throws {
        let t = o.transfer
        o.isPending = false
        if o.isDeleted {
            t.deleted += 1
            return
        }
        let key = o.originKey.map { "\($0)" } ?? "(new)"
        for i in o.inexact where !o.dirty[i] {
            let c = t.newColumns[i]
            if step.allows(.lossyConversion(type: t.name, property: c.name)) {
                t.lossyValues[c.name, default: 0] += 1
            } else {
                log.record(
                    ValidationFailure(
                        check: "conversion", type: t.name, property: c.name,
                        message: "object \(key): its old value has no exact \(c.type.name) value; set it in the closure or allow a lossy conversion"
                    ))
            }
        }
        for (i, c) in t.newColumns.enumerated() where o.values[i].isNull {
            guard let p = c.property, !p.optional else { continue }
            if p.primaryKey && p.type.isInteger { continue }  // SQLite chooses one
            if step.allows(.nullsBecomeDefault(type: t.name, property: p.name)) {
                o.values[i] = ValueCodec.encode(p.effectiveDefault, as: p.type, schema: step.to)
                continue
            }
            log.record(
                ValidationFailure(
                    check: "required", type: t.name, property: p.name,
                    message: "object \(key) has no value for this required property: set it in the closure, give it a default, or allow nils to become the default"
                ))
            o.values[i] = ValueCodec.encode(p.effectiveDefault, as: p.type, schema: step.to)
        }
        let s: Statement
        if let cached = t.insertStatement {
            s = cached
        } else {
            s = try connection.prepare(analysis.insertSQL(t))
            t.insertStatement = s
        }
        for (i, v) in o.values.enumerated() { try s.bind(v, at: Int32(i + 1)) }
        do {
            try s.runToCompletion()
        } catch let e as SQLiteError where e.isConstraint {
            let keyText = t.newKeyIndex.map { "\(o.values[$0])" } ?? key
            log.record(
                ValidationFailure(
                    check: e.message.contains("UNIQUE") || e.message.contains("PRIMARY") ? "unique" : "constraint", type: t.name,
                    message: "object \(keyText) cannot be written: \(e.message)"))
            o.isDeleted = true
            return
        }
        o.rowid = connection.lastInsertRowID
        t.rowsWritten += 1
        if o.changed { t.changed += 1 }
        try noteKeyChange(o)
        try noteExplicitLinks(o)
        if !o.lists.isEmpty { try flushLists(of: o) }
    }

    /// Records old key -> new key when an object's identity changed.
    func noteKeyChange(_ o: MigrationObject) throws {
        let t = o.transfer
        guard let origin = o.originKey, let nk = t.newKeyIndex else { return }
        let before = Affinity.apply(origin, sqlType: t.newKeySQLType)
        let now = Affinity.apply(o.values[nk], sqlType: t.newKeySQLType)
        guard before != now else { return }
        let s: Statement
        if let cached = t.keyMapInsert {
            s = cached
        } else {
            s = try connection.prepare("INSERT OR REPLACE INTO \(t.keyMapTable) (\"old_key\", \"new_key\") VALUES (?, ?)")
            t.keyMapInsert = s
        }
        try s.bind(origin, at: 1)
        try s.bind(o.values[nk], at: 2)
        try s.runToCompletion()
        t.hasKeyMap = true
    }

    /// Links the closure set are final: the key rewrite after the closure leaves them alone.
    func noteExplicitLinks(_ o: MigrationObject) throws {
        let t = o.transfer
        guard let rowid = o.rowid else { return }
        for (i, c) in t.newColumns.enumerated() where o.dirty[i] {
            guard case .link(let target) = c.type, transfer(target)?.old != nil else { continue }
            try connection.run(
                "INSERT OR IGNORE INTO \(Self.linksTable) (\"tbl\", \"col\", \"rid\") VALUES (?, ?, ?)",
                [.text(t.name), .text(c.name), .integer(rowid)])
            t.explicitLinkColumns.insert(c.name)
        }
    }

    /// Writes one column of an object already in its new table.
    func writeColumn(of o: MigrationObject, column i: Int) throws {
        let t = o.transfer
        guard let rowid = o.rowid else { return }
        let c = t.newColumns[i]
        try connection.run(
            "UPDATE \(Identifier.quoted(t.tableName)) SET \(Identifier.quoted(c.name)) = ? WHERE rowid = ?", [o.values[i], .integer(rowid)])
        if i == t.newKeyIndex {
            try noteKeyChange(o)
            if t.newKeySQLType == "INTEGER", case .integer(let newRowid) = o.values[i], newRowid != rowid {
                // An INTEGER PRIMARY KEY is the rowid: keep the staged links and lists pointing at the row.
                try connection.run("UPDATE \(Self.linksTable) SET \"rid\" = ? WHERE \"tbl\" = ? AND \"rid\" = ?", [.integer(newRowid), .text(t.name), .integer(rowid)])
                for l in analysis.lists where l.owner == t.name {
                    try connection.run("UPDATE \(Self.listOwnersTable) SET \"rid\" = ? WHERE \"list\" = ? AND \"rid\" = ?", [.integer(newRowid), .text(l.key), .integer(rowid)])
                    try connection.run("UPDATE \(Self.listItemsTable) SET \"rid\" = ? WHERE \"list\" = ? AND \"rid\" = ?", [.integer(newRowid), .text(l.key), .integer(rowid)])
                }
                o.rowid = newRowid
            }
        }
        try noteExplicitLinks(o)
    }

    /// Stages the lists an object's closure set; they replace the carried lists when lists are rebuilt.
    func flushLists(of o: MigrationObject) throws {
        let t = o.transfer
        guard let rowid = o.rowid else { return }
        for (name, keys) in o.lists {
            let listKey = "\(t.name).\(name)"
            try connection.run(
                "INSERT OR REPLACE INTO \(Self.listOwnersTable) (\"list\", \"rid\", \"origin\") VALUES (?, ?, ?)",
                [.text(listKey), .integer(rowid), o.originKey ?? .null])
            try connection.run("DELETE FROM \(Self.listItemsTable) WHERE \"list\" = ? AND \"rid\" = ?", [.text(listKey), .integer(rowid)])
            for (position, key) in keys.enumerated() {
                try connection.run(
                    "INSERT INTO \(Self.listItemsTable) (\"list\", \"rid\", \"position\", \"target\") VALUES (?, ?, ?, ?)",
                    [.text(listKey), .integer(rowid), .integer(Int64(position)), key])
            }
            stagedLists.insert(listKey)
        }
        o.lists.removeAll()
    }

    // MARK: - Creating and deleting

    func create(_ typeName: String, values given: [String: Value]) throws -> MigrationObject {
        guard let t = transfer(typeName) else { throw MigrationObjectError.unknownType(typeName, version: step.to.version) }
        guard let n = t.new else { throw MigrationObjectError.removedType(typeName) }
        markRebuilt(t)
        let values = t.newColumns.map { c -> SQLValue in
            guard let p = c.property else { return .null }
            return ValueCodec.encode(p.effectiveDefault, as: p.type, schema: step.to)
        }
        let o = MigrationObject(role: .new, schema: n, transfer: t, executor: self, values: values, originKey: nil)
        o.isCreated = true
        o.isPending = true
        for (name, v) in given.sorted(by: { $0.key < $1.key }) { try o.setValue(v, forKey: name) }
        recorder.noteOnce(analysis.insertSQL(t))
        let rowsBefore = t.rowsWritten
        try insert(o)
        if t.rowsWritten > rowsBefore {
            t.rowsWritten -= 1
            t.created += 1
        }
        if o.isDeleted { throw MigrationObjectError.deleted(type: typeName) }
        return o
    }

    func delete(_ object: MigrationObject) throws {
        var o = object
        if o.role == .old {
            guard let key = o.originKey else { return }
            if let pending = currentPending[o.typeName], pending.originKey == key {
                pending.isDeleted = true
                return
            }
            guard let stored = try newObject(ofType: o.typeName, originKey: key) else { return }
            o = stored
        }
        guard !o.isDeleted else { return }
        if o.isPending {
            o.isDeleted = true
            return
        }
        guard let rowid = o.rowid else { return }
        try exec("DELETE FROM \(Identifier.quoted(o.transfer.tableName)) WHERE rowid = \(rowid)")
        o.isDeleted = true
        o.transfer.deleted += 1
    }

    func deleteData(_ typeName: String) throws {
        guard let t = transfer(typeName) else { throw MigrationObjectError.unknownType(typeName, version: nil) }
        guard !t.cleared else { return }
        let oldCount = t.old == nil ? 0 : (countsBefore[typeName] ?? 0)
        if t.new != nil {
            markRebuilt(t)
            let staged = try count("SELECT count(*) FROM \(Identifier.quoted(t.tableName))")
            try exec("DELETE FROM \(Identifier.quoted(t.tableName))")
            t.deleted += t.filled ? staged : staged + oldCount
            t.filled = true
        } else {
            t.deleted += oldCount
        }
        t.cleared = true
    }

    func renameProperty(type typeName: String, from oldName: String, to newName: String) throws {
        guard let t = transfer(typeName), let old = t.old, let new = t.new else {
            throw MigrationObjectError.unknownType(typeName, version: nil)
        }
        guard let op = old[property: oldName] else {
            throw MigrationObjectError.badRename(type: typeName, from: oldName, to: newName, reason: "version \(step.from.version) has no \(oldName)")
        }
        guard let np = new[property: newName] else {
            throw MigrationObjectError.badRename(type: typeName, from: oldName, to: newName, reason: "version \(step.to.version) has no \(newName)")
        }
        guard op.type.isColumn == np.type.isColumn else {
            throw MigrationObjectError.badRename(type: typeName, from: oldName, to: newName, reason: "one is a list, the other is not")
        }
        guard t.enumerations == 0, t.created == 0, !t.cleared, !(t.filled && t.old != nil && t.rowsWritten > 0) else {
            throw MigrationObjectError.renameAfterEnumeration(type: typeName)
        }
        let rename = PropertyRename(type: typeName, from: oldName, to: newName)
        guard !analysis.renames.contains(rename) else { return }
        closureRenames.append(rename)
        let renames = analysis.renames + [rename]
        StepAnalysis.decideSources(t, step: step) { n in renames.first { $0.type == typeName && $0.to == n }?.from ?? n }
        analysis = analysis.withRenames(renames)
        if t.tableChanges { markRebuilt(t) }
    }

    // MARK: - Lookups

    func oldObject(ofType typeName: String, storedKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), let old = t.old else {
            if step.from[type: typeName] == nil { throw MigrationObjectError.unknownType(typeName, version: step.from.version) }
            return nil
        }
        let s: Statement
        if let cached = oldLookups[typeName] {
            s = cached
            s.reset()
        } else {
            let cols = (t.oldColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
            s = try connection.prepare("SELECT \(cols) FROM \(Identifier.quoted(typeName)) WHERE \(Identifier.quoted(old.keyColumn)) = ?")
            oldLookups[typeName] = s
        }
        try s.bind(storedKey, at: 1)
        defer { s.reset() }
        guard try s.step() else { return nil }
        let values = (0..<t.oldColumns.count).map { s.value(at: $0) }
        return MigrationObject(role: .old, schema: old, transfer: t, executor: self, values: values, originKey: t.oldKeyIndex.map { values[$0] })
    }

    /// The new object whose key is now `currentKey`.
    func newObject(ofType typeName: String, currentKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), t.new != nil else { throw MigrationObjectError.unknownType(typeName, version: step.to.version) }
        return try loadNew(t, key: currentKey, originKey: nil)
    }

    /// The new form of the old object that had the key `originKey`.
    func newObject(ofType typeName: String, originKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), t.new != nil else { throw MigrationObjectError.unknownType(typeName, version: step.to.version) }
        if let pending = currentPending[typeName], pending.originKey == originKey { return pending }
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
        guard let n = t.new else { return nil }
        guard t.filled || t.enumerating || t.created > 0 else { throw MigrationObjectError.notEnumeratedYet(t.name) }
        let cols = (t.newColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
        let s = try statement("SELECT \(cols) FROM \(Identifier.quoted(t.tableName)) WHERE \(Identifier.quoted(n.keyColumn)) = ?")
        try s.bind(key, at: 1)
        defer { s.reset() }
        guard try s.step() else { return nil }
        let values = (0..<t.newColumns.count).map { s.value(at: $0) }
        let o = MigrationObject(role: .new, schema: n, transfer: t, executor: self, values: values, originKey: originKey)
        o.rowid = s.int(at: t.newColumns.count)
        return o
    }

    /// A list's members as targets: old objects read the old list table; new objects their staged
    /// value, or the carried (old) members.
    func listValue(of o: MigrationObject, property p: Property, target: String) throws -> [LinkTarget] {
        let t = o.transfer
        if o.role == .new {
            let keyType = step.to[type: target]?.primaryKey?.type ?? .int64
            if let keys = o.lists[p.name] { return keys.map { LinkTarget(type: target, key: ValueCodec.decodeKey($0, keyType: keyType)) } }
            let listKey = "\(t.name).\(p.name)"
            if let rowid = o.rowid, stagedLists.contains(listKey),
                try count("SELECT count(*) FROM \(Self.listOwnersTable) WHERE \"list\" = ? AND \"rid\" = ?", [.text(listKey), .integer(rowid)]) > 0
            {
                return try connection.rows(
                    "SELECT \"target\" FROM \(Self.listItemsTable) WHERE \"list\" = ? AND \"rid\" = ? ORDER BY \"position\"",
                    [.text(listKey), .integer(rowid)]
                ).map { LinkTarget(type: target, key: ValueCodec.decodeKey($0[0], keyType: keyType)) }
            }
            guard let l = analysis.lists.first(where: { $0.owner == t.name && $0.property == p.name }), let oldTable = l.oldTable,
                let origin = o.originKey
            else { return [] }
            return try readList(table: oldTable, owner: origin, target: target, keyType: step.from[type: target]?.primaryKey?.type ?? .int64)
        }
        guard let key = o.originKey else { return [] }
        return try readList(
            table: StorageLayout.listTable(type: t.name, property: p.name), owner: key, target: target,
            keyType: step.from[type: target]?.primaryKey?.type ?? .int64)
    }

    func readList(table: String, owner: SQLValue, target: String, keyType: PropertyType) throws -> [LinkTarget] {
        let s = try statement("SELECT \"target\" FROM \(Identifier.quoted(table)) WHERE \"owner\" = ? ORDER BY \"position\"")
        try s.bind(owner, at: 1)
        defer { s.reset() }
        var out: [LinkTarget] = []
        while try s.step() { out.append(LinkTarget(type: target, key: ValueCodec.decodeKey(s.value(at: 0), keyType: keyType))) }
        return out
    }

    /// The old objects whose link or list points at an old object.
    func inverseValue(of o: MigrationObject, origin: String, originProperty: String) throws -> [LinkTarget] {
        guard let key = o.originKey, let originType = step.from[type: origin], let p = originType[property: originProperty] else { return [] }
        let keyType = originType.primaryKey?.type ?? .int64
        let sql: String
        if case .list = p.type {
            sql = "SELECT DISTINCT \"owner\" FROM \(Identifier.quoted(StorageLayout.listTable(type: origin, property: originProperty))) WHERE \"target\" = ? ORDER BY \"owner\""
        } else {
            sql = "SELECT \(Identifier.quoted(originType.keyColumn)) FROM \(Identifier.quoted(origin)) WHERE \(Identifier.quoted(originProperty)) = ? ORDER BY rowid"
        }
        let s = try statement(sql)
        try s.bind(key, at: 1)
        defer { s.reset() }
        var out: [LinkTarget] = []
        while try s.step() { out.append(LinkTarget(type: origin, key: ValueCodec.decodeKey(s.value(at: 0), keyType: keyType))) }
        return out
    }
}
