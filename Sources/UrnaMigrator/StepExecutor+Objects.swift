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
        guard t.old != nil, !t.cleared, let oldLayout = t.oldLayout, let newLayout = t.newLayout else { return }
        guard !t.enumerating else { throw MigrationObjectError.nestedEnumeration(typeName) }
        t.enumerating = true
        defer {
            t.enumerating = false
            t.currentPending = nil
            t.batch = nil
        }
        t.enumerations += 1
        let firstPass = t.new != nil && !t.filled
        var batch: BatchInserter?
        if firstPass {
            markRebuilt(t)
            let b = try BatchInserter(t, connection: connection)
            recorder.noteOnce(b.sql)
            t.batch = b
            batch = b
        }
        let select = try RowStatement(connection, analysis.selectOldSQL(t))
        let total = countsBefore[typeName] ?? 0
        let oldCount = t.oldColumns.count
        let newCount = t.newColumns.count
        // Up to 64 columns, values are read from the row when first used; wider types read eagerly.
        let lazy = oldCount <= 64 && newCount <= 64
        let keyIndex = t.oldKeyIndex
        let removedPlaceholder = t.new == nil ? MigrationObject(layout: newLayout, executor: self, values: [], originKey: nil) : nil
        var spareOld: MigrationObject?
        var done = 0
        while try select.step() {
            // Objects the closure did not keep are reused for later rows: no allocation per object.
            var oldObject = spareOld ?? MigrationObject(
                layout: oldLayout, executor: self, values: Array(repeating: .null, count: oldCount), originKey: nil)
            spareOld = nil
            oldObject.row = select
            oldObject.loadedMask = 0
            if !lazy { oldObject.detach() }
            var originKey: SQLValue?
            if let k = keyIndex {
                oldObject.load(k)
                originKey = oldObject.values[k]
            }
            oldObject.originKey = originKey
            let oldRowid = select.int(at: Int32(oldCount))
            var newObject: MigrationObject
            if let removedPlaceholder {
                newObject = removedPlaceholder
            } else if let batch {
                newObject = batch.pool.popLast() ?? MigrationObject(
                    layout: newLayout, executor: self, values: Array(repeating: .null, count: newCount), originKey: nil)
                carry(t, into: newObject, from: oldObject, row: select, rowid: oldRowid, lazy: lazy)
                t.currentPending = newObject
            } else {
                guard let key = originKey, let stored = try self.newObject(ofType: typeName, originKey: key) else { continue }
                newObject = stored
            }
            try block(oldObject, newObject)
            t.currentPending = nil
            if let e = takePendingError() { throw e }
            t.enumerated += 1
            if let batch {
                let escaped = !isKnownUniquelyReferenced(&newObject)
                if escaped { newObject.detach() }
                try write(newObject, row: select, oldRowid: oldRowid, into: batch, escaped: escaped)
            } else if newObject.changed {
                t.changed += 1
            }
            if isKnownUniquelyReferenced(&oldObject) { spareOld = oldObject } else { oldObject.detach() }
            done += 1
            if done % 50_000 == 0 { reporter?.progress(type: typeName, done: done, total: total) }
        }
        if let batch { try flush(batch) }
        if firstPass {
            t.filled = true
            t.filledBySwift = true
        }
        if total >= 50_000 && done % 50_000 != 0 { reporter?.progress(type: typeName, done: done, total: total) }
    }

    /// Makes `o` the new form of the old object on `row`: same-named and renamed values carried over
    /// (read from the row only if used), converted where the type changed, defaults for the rest.
    func carry(_ t: TypeTransfer, into o: MigrationObject, from old: MigrationObject, row: RowStatement, rowid: Int64, lazy: Bool) {
        o.row = row
        o.loadedMask = 0
        o.dirtyMask = 0
        if !o.dirtyHigh.isEmpty { o.dirtyHigh = [] }
        if !o.inexact.isEmpty { o.inexact.removeAll(keepingCapacity: true) }
        if !o.lists.isEmpty { o.lists = [:] }
        o.rowid = nil
        o.isPending = true
        o.isDeleted = false
        o.changed = false
        o.escaped = false
        o.needsRowid = false
        o.originKey = old.originKey
        for (i, op) in t.carryOps.enumerated() {
            let bit: UInt64 = i < 64 ? 1 << UInt64(i) : 0
            switch op {
            case .copy:
                continue  // read from the row on first use
            case .rowid:
                o.values[i] = .integer(rowid)
            case .constant(let v):
                o.values[i] = v
            case .convert(let ci):
                guard case .convert(let oi, let from, let to, _, let nullDefault) = t.sources[ci] else { continue }
                old.load(oi)
                let v = old.values[oi]
                if v.isNull {
                    o.values[i] = nullDefault ?? .null
                } else if let (converted, exact) = StoredValueConverter.convert(v, from: from, to: to) {
                    o.values[i] = converted
                    if !exact { o.inexact.append(i) }
                } else {
                    o.values[i] = t.columnDefaults[i]
                    o.inexact.append(i)
                }
            }
            o.loadedMask |= bit
        }
        if !lazy { o.detach() }
    }

    /// Checks a finished new object before it is written: conversions that lost data, required
    /// values left nil. False when the object was deleted instead.
    func prepareForWrite(_ o: MigrationObject) -> Bool {
        let t = o.transfer
        o.isPending = false
        if o.isDeleted {
            t.deleted += 1
            return false
        }
        for i in o.inexact where !o.isDirty(i) {
            let name = t.newColumns[i].name
            if step.allows(.lossyConversion(type: t.name, property: name)) {
                t.lossyValues[name, default: 0] += 1
            } else {
                log.record(
                    ValidationFailure(
                        check: "conversion", type: t.name, property: name,
                        message: "object \(o.originKey.map { "\($0)" } ?? "(new)"): its old value has no exact \(t.newColumns[i].type.name) value; set it in the closure or allow a lossy conversion"
                    ))
            }
        }
        for i in t.requiredColumns where o.isLoaded(i) && o.values[i].isNull {
            let name = t.newColumns[i].name
            o.values[i] = t.columnDefaults[i]
            if step.allows(.nullsBecomeDefault(type: t.name, property: name)) { continue }
            log.record(
                ValidationFailure(
                    check: "required", type: t.name, property: name,
                    message: "object \(o.originKey.map { "\($0)" } ?? "(new)") has no value for this required property: set it in the closure, give it a default, or allow nils to become the default"
                ))
        }
        if o.changed && !o.isCreated { t.changed += 1 }
        return true
    }

    /// Adds an enumerated object to its type's batch (while its old row is current).
    func write(_ o: MigrationObject, row: RowStatement, oldRowid: Int64, into batch: BatchInserter, escaped: Bool) throws {
        guard prepareForWrite(o) else {
            if !escaped { batch.pool.append(o) }
            return
        }
        let t = o.transfer
        try noteKeyChange(o)
        o.escaped = escaped
        o.needsRowid = escaped || !o.lists.isEmpty || t.trackedLinkColumns.contains { o.isDirty($0) }
        if o.needsRowid, let k = t.newKeyIndex { o.load(k) }
        batch.add(o, row: row, oldRowid: oldRowid)
        if escaped || batch.isFull { try flush(batch) }
    }

    /// Runs a batch's INSERT and finishes its objects (rowids where needed, explicit links, lists).
    func flush(_ batch: BatchInserter) throws {
        let t = batch.transfer
        for (o, written) in try batch.flush(self) {
            if written {
                t.rowsWritten += 1
                if o.needsRowid {
                    o.rowid = try rowid(of: o)
                    try noteExplicitLinks(o)
                    if !o.lists.isEmpty { try flushLists(of: o) }
                }
            }
            if !o.escaped { batch.pool.append(o) }
        }
    }

    /// Flushes the batches of enumerations in progress (before anything reads the new tables).
    func flushBatches() throws {
        for t in transfers { if let b = t.batch { try flush(b) } }
    }

    /// The rowid of a written object, from its key.
    func rowid(of o: MigrationObject) throws -> Int64? {
        let t = o.transfer
        guard let k = t.newKeyIndex, let n = t.new else { return nil }
        if t.newKeySQLType == "INTEGER", case .integer(let r) = o.values[k] { return r }
        let s = try statement("SELECT rowid FROM \(Identifier.quoted(t.tableName)) WHERE \(Identifier.quoted(n.keyColumn)) = ?")
        try s.bind([o.values[k]])
        defer { s.reset() }
        return try s.step() ? s.int(at: 0) : nil
    }

    /// Reads the values a batched object still took from its old row (after a failed batch).
    func reloadCarried(_ o: MigrationObject, oldRowid: Int64) throws {
        let t = o.transfer
        guard (0..<t.newColumns.count).contains(where: { !o.isLoaded($0) }) else { return }
        let cols = t.oldColumns.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let s = try statement("SELECT \(cols) FROM \(Identifier.quoted(t.name)) WHERE rowid = ?")
        try s.bind([.integer(oldRowid)])
        defer { s.reset() }
        guard try s.step() else { return }
        for i in 0..<t.newColumns.count where !o.isLoaded(i) {
            o.values[i] = s.value(at: Int(t.carriedFrom[i]))
            o.loadedMask |= i < 64 ? 1 << UInt64(i) : 0
        }
    }

    /// Writes one object with its own INSERT; false (and a logged failure) when a constraint refuses it.
    func insertOne(_ o: MigrationObject) throws -> Bool {
        let t = o.transfer
        let s: RowStatement
        if let cached = t.insertStatement {
            s = cached
        } else {
            s = try RowStatement(connection, analysis.insertSQL(t))
            t.insertStatement = s
        }
        for i in 0..<o.values.count { s.bind(o.values[i], at: Int32(i + 1)) }
        do {
            try s.run()
        } catch let e as SQLiteError where e.isConstraint {
            let keyText = t.newKeyIndex.map { "\(o.values[$0])" } ?? "(new)"
            log.record(
                ValidationFailure(
                    check: e.message.contains("UNIQUE") || e.message.contains("PRIMARY") ? "unique" : "constraint", type: t.name,
                    message: "object \(keyText) cannot be written: \(e.message)"))
            o.isDeleted = true
            return false
        }
        o.rowid = connection.lastInsertRowID
        return true
    }

    /// Writes a created object (all its values are in memory).
    func insert(_ o: MigrationObject) throws {
        guard prepareForWrite(o) else { return }
        guard try insertOne(o) else { return }
        o.transfer.rowsWritten += 1
        try noteKeyChange(o)
        if o.dirtyMask != 0 || !o.dirtyHigh.isEmpty { try noteExplicitLinks(o) }
        if !o.lists.isEmpty { try flushLists(of: o) }
    }

    /// Records old key -> new key when an object's identity changed.
    func noteKeyChange(_ o: MigrationObject) throws {
        let t = o.transfer
        guard let origin = o.originKey, let nk = t.newKeyIndex else { return }
        // A key carried unchanged from the old key column can't have changed.
        if !o.isLoaded(nk), t.carriedFrom[nk] >= 0, Int(t.carriedFrom[nk]) == t.oldKeyIndex { return }
        o.load(nk)
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
        for i in t.trackedLinkColumns where o.isDirty(i) {
            let name = t.newColumns[i].name
            try connection.run(
                "INSERT OR IGNORE INTO \(Self.linksTable) (\"tbl\", \"col\", \"rid\") VALUES (?, ?, ?)",
                [.text(t.name), .text(name), .integer(rowid)])
            t.explicitLinkColumns.insert(name)
        }
    }

    /// Writes one column of an object already in its new table.
    func writeColumn(of o: MigrationObject, column i: Int) throws {
        try flushBatches()
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
        try flushBatches()
        guard let t = transfer(typeName) else { throw MigrationObjectError.unknownType(typeName, version: step.to.version) }
        guard t.new != nil, let layout = t.newLayout else { throw MigrationObjectError.removedType(typeName) }
        markRebuilt(t)
        let o = MigrationObject(layout: layout, executor: self, values: t.columnDefaults, originKey: nil)
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
        try flushBatches()
        var o = object
        if o.role == .old {
            guard let key = o.originKey else { return }
            if let pending = o.transfer.currentPending, pending.originKey == key {
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
        try flushBatches()
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
        t.prepare(oldSchema: step.from, newSchema: step.to)
        analysis = analysis.withRenames(renames)
        if t.tableChanges { markRebuilt(t) }
    }

    // MARK: - Lookups

    func oldObject(ofType typeName: String, storedKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), let old = t.old, let layout = t.oldLayout else {
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
        return MigrationObject(layout: layout, executor: self, values: values, originKey: t.oldKeyIndex.map { values[$0] })
    }

    /// The new object whose key is now `currentKey`.
    func newObject(ofType typeName: String, currentKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), t.new != nil else { throw MigrationObjectError.unknownType(typeName, version: step.to.version) }
        return try loadNew(t, key: currentKey, originKey: nil)
    }

    /// The new form of the old object that had the key `originKey`.
    func newObject(ofType typeName: String, originKey: SQLValue) throws -> MigrationObject? {
        guard let t = transfer(typeName), t.new != nil else { throw MigrationObjectError.unknownType(typeName, version: step.to.version) }
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
        try flushBatches()
        guard let n = t.new, let layout = t.newLayout else { return nil }
        guard t.filled || t.enumerating || t.created > 0 else { throw MigrationObjectError.notEnumeratedYet(t.name) }
        let cols = (t.newColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
        let s = try statement("SELECT \(cols) FROM \(Identifier.quoted(t.tableName)) WHERE \(Identifier.quoted(n.keyColumn)) = ?")
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
            try flushBatches()
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
