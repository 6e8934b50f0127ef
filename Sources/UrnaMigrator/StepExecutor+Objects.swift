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
        }
        t.enumerations += 1
        // A second pass finds the objects a read-only first pass left unwritten in the new table.
        try payOwedRows(t)
        if t.new != nil && !t.filled {
            if readsOnlyFirst(t) {
                try withoutActuallyEscaping(block) { try enumerateReadOnly(t, $0) }
            } else {
                try withoutActuallyEscaping(block) { try fill(t, with: $0) }
            }
            return
        }
        // Later passes (and types the new version drops) update or read; nothing to insert.
        let select = try RowStatement(connection, analysis.selectOldSQL(t, from: oldRows(t)))
        let oldCount = t.oldColumns.count
        let removedPlaceholder =
            t.new == nil ? MigrationObject(layout: newLayout, executor: self, values: [], originKey: nil) : nil
        while try select.step() {
            let values = (0..<oldCount).map { select.value(at: Int32($0)) }
            let originKey = t.oldKeyIndex.map { values[$0] }
            let oldObject = MigrationObject(layout: oldLayout, executor: self, values: values, originKey: originKey)
            let newObject: MigrationObject
            if let removedPlaceholder {
                newObject = removedPlaceholder
            } else {
                guard let key = originKey, let stored = try self.newObject(ofType: typeName, originKey: key) else {
                    continue
                }
                newObject = stored
            }
            try block(oldObject, newObject)
            if let e = takePendingError() { throw e }
            t.enumerated += 1
            if newObject.changed { t.changed += 1 }
        }
    }

    /// The first pass over a type: one `INSERT OR IGNORE ... SELECT` from the type's object source,
    /// whose cursor runs the closure object by object.
    /// `after`: only the old rows past this rowid (a read-only pass handled the others).
    func fill(
        _ t: TypeTransfer, with block: @escaping (MigrationObject, MigrationObject) throws -> Void, after: Int64? = nil
    ) throws {
        markRebuilt(t)
        guard let source = sources[t.name] else {
            throw MigrationObjectError.unknownType(t.name, version: step.to.version)
        }
        let selectSQL = analysis.selectOldSQL(t, from: oldRows(t), after: after)
        let select = try RowStatement(connection, selectSQL)
        let prefetch =
            readsAhead && !isIncoming(t.name)
            ? OldRowPrefetcher(path: connection.path, sql: selectSQL, width: t.oldColumns.count + 1) : nil
        if let prefetch {
            prefetch.start()
            report.readAhead.append(t.name)
        }
        defer { prefetch?.cancel() }
        let cursor = EnumerationCursor(executor: self, transfer: t, select: select, prefetch: prefetch, block: block)
        let previous = source.cursor
        source.cursor = cursor
        defer { source.cursor = previous }
        let columns = t.newColumns.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        let picked = (0..<t.newColumns.count).map { "c\($0)" }.joined(separator: ", ")
        let sql =
            "INSERT OR IGNORE INTO \(Identifier.quoted(t.tableName)) (\(columns)) SELECT \(picked) FROM \(Identifier.quoted(source.name))"
        recorder.noteOnce("\(sql)  -- each row: the old object through the closure")
        let insert = try RowStatement(connection, sql)
        do {
            try insert.run()
        } catch {
            if let e = cursor.error { throw e }
            throw error
        }
        if let e = cursor.error { throw e }
        try cursor.finish()
        t.filled = true
        t.filledBySwift = true
        if cursor.total >= 50_000 { reporter?.progress(type: t.name, done: Int(cursor.emitted), total: cursor.total) }
    }

    /// Writes new column `i` of `o`, converted from its old column (a conversion the type change needs).
    func convertCarried(_ t: TypeTransfer, into o: MigrationObject, from old: MigrationObject, column i: Int) {
        guard case .convert(let oi, let from, let to, _, let nullDefault) = t.sources[i] else { return }
        old.load(oi)
        let v = old.values[oi]
        if v.isNull {
            o.values[i] = nullDefault ?? .null
        } else if case .embedded(let a) = from, case .embedded(let b) = to, let oe = step.from[type: a],
            let ne = step.to[type: b],
            a != b || PropertyConversion.embeddedDiffers(a, oldSchema: step.from, newSchema: step.to)
        {
            // The embedded type changed shape: each object is rewritten in the new shape, and any loss is counted.
            if let (reshaped, exact) = EmbeddedReshape.reshape(v, from: oe, in: step.from, to: ne, in: step.to) {
                o.values[i] = reshaped
                if !exact { o.inexact.append(i) }
            } else {
                o.values[i] = t.columnDefaults[i]
                o.inexact.append(i)
            }
        } else if let (converted, exact) = StoredValueConverter.convert(v, from: from, to: to) {
            o.values[i] = converted
            if !exact { o.inexact.append(i) }
        } else {
            o.values[i] = t.columnDefaults[i]
            o.inexact.append(i)
        }
    }

    /// Checks a finished new object before it is written: conversions that lost data, required
    /// values left nil. False when the object was deleted instead.
    func prepareForWrite(_ o: MigrationObject) -> Bool { prepareForWrite(o, of: o.transfer) }

    /// `prepareForWrite` for an object of `t` (enumerations pass their transfer).
    func prepareForWrite(_ o: MigrationObject, of t: TypeTransfer) -> Bool {
        let st = o.state
        st.pointee.isPending = false
        if st.pointee.isDeleted {
            t.deleted += 1
            return false
        }
        if !st.pointee.inexact.isEmpty { recordInexact(o, of: t) }
        for i in t.requiredColumns where o.isLoaded(i) && o.values.isNull(i) {
            requiredValueMissing(o, of: t, column: i)
        }
        if st.pointee.changed && !st.pointee.isCreated { t.changed += 1 }
        return true
    }

    /// A required column of `o` is nil: it takes the default, and unless allowed that is a failure.
    /// (Kept out of line: the per-object path above stays free of the failure log's bookkeeping.)
    @inline(never)
    func requiredValueMissing(_ o: MigrationObject, of t: TypeTransfer, column i: Int) {
        let name = t.newColumns[i].name
        o.values[i] = t.columnDefaults[i]
        if step.allows(.nullsBecomeDefault(type: t.name, property: name)) { return }
        log.record(
            ValidationFailure(
                check: "required", type: t.name, property: name,
                message:
                    "object \(o.originKey.map { "\($0)" } ?? "(new)") has no value for this required property: set it in the closure, give it a default, or allow nils to become the default: "
                    + MigrationAllowance.nullsBecomeDefault(type: t.name, property: name).spelledOut
            ))
    }

    /// Conversions of `o`'s carried values that lost data (allowed, or logged as failures).
    @inline(never)
    func recordInexact(_ o: MigrationObject, of t: TypeTransfer) {
        for i in o.inexact where !o.isDirty(i) {
            let name = t.newColumns[i].name
            if step.allows(.lossyConversion(type: t.name, property: name)) {
                t.lossyValues[name, default: 0] += 1
            } else {
                log.record(
                    ValidationFailure(
                        check: "conversion", type: t.name, property: name,
                        message:
                            "object \(o.originKey.map { "\($0)" } ?? "(new)"): its old value has no exact \(t.newColumns[i].type.name) value; set it in the closure or allow the lossy conversion: "
                            + MigrationAllowance.lossyConversion(type: t.name, property: name).spelledOut
                    ))
            }
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
            log.record(
                ValidationFailure(
                    check: Self.isUniqueViolation(e) ? "unique" : "constraint", type: t.name,
                    message: refusedWrite(o, e)))
            o.isDeleted = true
            return false
        }
        o.rowid = connection.lastInsertRowID
        return true
    }

    static func isUniqueViolation(_ e: SQLiteError) -> Bool {
        e.message.contains("UNIQUE") || e.message.contains("PRIMARY")
    }

    /// Why SQLite refused to write `o`, said with the type and the key (the staging table's name is ours, not
    /// the app's): two objects given one key in this step is the closure's mistake to fix.
    func refusedWrite(_ o: MigrationObject, _ e: SQLiteError) -> String {
        let t = o.transfer
        let key = t.newKeyIndex.map { "\(o.values[$0])" } ?? "(new)"
        if Self.isUniqueViolation(e), let k = t.newKeyIndex {
            return "two \(t.name) objects were given the primary key \(key) in this step (\(t.newColumns[k].name)): "
                + "give each its own key, or change the one that has it (migration.newObject(ofType: \"\(t.name)\", "
                + "forPrimaryKey:))"
        }
        let reason = e.message.replacingOccurrences(of: "_urna_new_", with: "")
        return "\(t.name) \(key) cannot be written: \(reason)"
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
    func noteKeyChange(_ o: MigrationObject) throws { try noteKeyChange(o, of: o.transfer) }

    /// `noteKeyChange` for an object of `t` (enumerations pass their transfer).
    func noteKeyChange(_ o: MigrationObject, of t: TypeTransfer) throws {
        guard let nk = t.newKeyIndex else { return }
        // A key carried unchanged from the old key column can't have changed.
        if !o.isLoaded(nk), t.carriedFrom[nk] >= 0, Int(t.carriedFrom[nk]) == t.oldKeyIndex { return }
        guard let origin = o.originKey else { return }
        o.load(nk)
        let before = Affinity.apply(origin, sqlType: t.newKeySQLType)
        let now = Affinity.apply(o.values[nk], sqlType: t.newKeySQLType)
        guard before != now else { return }
        let s: Statement
        if let cached = t.keyMapInsert {
            s = cached
        } else {
            s = try connection.prepare(
                "INSERT OR REPLACE INTO \(t.keyMapTable) (\"old_key\", \"new_key\") VALUES (?, ?)")
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
        let t = o.transfer
        guard let rowid = o.rowid else { return }
        let c = t.newColumns[i]
        do {
            try connection.run(
                "UPDATE \(Identifier.quoted(t.tableName)) SET \(Identifier.quoted(c.name)) = ? WHERE rowid = ?",
                [o.values[i], .integer(rowid)])
        } catch let e as SQLiteError where e.isConstraint {
            throw MigrationObjectError.notWritten(type: t.name, reason: refusedWrite(o, e))
        }
        if i == t.newKeyIndex {
            try noteKeyChange(o)
            if t.newKeySQLType == "INTEGER", case .integer(let newRowid) = o.values[i], newRowid != rowid {
                // An INTEGER PRIMARY KEY is the rowid: keep the staged links and lists pointing at the row.
                try connection.run(
                    "UPDATE \(Self.linksTable) SET \"rid\" = ? WHERE \"tbl\" = ? AND \"rid\" = ?",
                    [.integer(newRowid), .text(t.name), .integer(rowid)])
                for l in analysis.lists where l.owner == t.name {
                    try connection.run(
                        "UPDATE \(Self.listOwnersTable) SET \"rid\" = ? WHERE \"list\" = ? AND \"rid\" = ?",
                        [.integer(newRowid), .text(l.key), .integer(rowid)])
                    try connection.run(
                        "UPDATE \(Self.listItemsTable) SET \"rid\" = ? WHERE \"list\" = ? AND \"rid\" = ?",
                        [.integer(newRowid), .text(l.key), .integer(rowid)])
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
            try connection.run(
                "DELETE FROM \(Self.listItemsTable) WHERE \"list\" = ? AND \"rid\" = ?",
                [.text(listKey), .integer(rowid)])
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
        guard let t = transfer(typeName) else {
            throw MigrationObjectError.unknownType(typeName, version: step.to.version)
        }
        guard t.new != nil, let layout = t.newLayout else { throw MigrationObjectError.removedType(typeName) }
        try payOwedRows(t)
        markRebuilt(t)
        let o = MigrationObject(layout: layout, executor: self, values: t.columnDefaults, originKey: nil)
        o.isCreated = true
        o.isPending = true
        for (name, v) in given.sorted(by: { $0.key < $1.key }) { try o.setValue(v, forKey: name) }
        try assignCreatedID(o, of: t)
        if !t.createNoted {
            recorder.noteOnce(analysis.insertSQL(t))
            t.createNoted = true
        }
        let rowsBefore = t.rowsWritten
        try insert(o)
        if t.rowsWritten > rowsBefore {
            t.rowsWritten -= 1
            t.created += 1
        }
        if o.isDeleted {
            // Only a refused INSERT marks a new object deleted here: say why, not "deleted".
            throw MigrationObjectError.notWritten(type: typeName, reason: log.last?.message ?? "refused by SQLite")
        }
        return o
    }

    func delete(_ object: MigrationObject) throws {
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
        guard let t = transfer(typeName) else { throw MigrationObjectError.unknownType(typeName, version: nil) }
        guard !t.cleared else { return }
        let oldCount = t.old == nil ? 0 : (countsBefore[typeName] ?? 0)
        if t.new != nil {
            try payOwedRows(t)
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
            throw MigrationObjectError.badRename(
                type: typeName, from: oldName, to: newName, reason: "version \(step.from.version) has no \(oldName)")
        }
        guard let np = new[property: newName] else {
            throw MigrationObjectError.badRename(
                type: typeName, from: oldName, to: newName, reason: "version \(step.to.version) has no \(newName)")
        }
        guard op.type.isColumn == np.type.isColumn else {
            throw MigrationObjectError.badRename(
                type: typeName, from: oldName, to: newName, reason: "one is a list, the other is not")
        }
        guard t.enumerations == 0, t.created == 0, !t.cleared, !(t.filled && t.old != nil && t.rowsWritten > 0) else {
            throw MigrationObjectError.renameAfterEnumeration(type: typeName)
        }
        let rename = PropertyRename(type: typeName, from: oldName, to: newName)
        guard !analysis.renames.contains(rename) else { return }
        closureRenames.append(rename)
        let renames = analysis.renames + [rename]
        StepAnalysis.decideSources(t, step: step) { n in renames.first { $0.type == typeName && $0.to == n }?.from ?? n
        }
        t.prepare(oldSchema: step.from, newSchema: step.to)
        analysis = analysis.withRenames(renames)
        if t.tableChanges { markRebuilt(t) }
    }

    /// A created object of a type without a primary key gets an `_id` above every old object's (kept by the copy
    /// of old rows, which comes after the closure: SQLite's own choice, one above the staging table's largest,
    /// collided with them and failed the step).
    func assignCreatedID(_ o: MigrationObject, of t: TypeTransfer) throws {
        guard let n = t.new, n.primaryKey == nil, let layout = t.newLayout,
            let i = layout.hidden.indices.first(where: { layout.hidden[$0] }), o.values[i] == .null
        else { return }
        if t.nextCreatedID == nil {
            var top: Int64 = 0
            if let old = t.old {
                let column = old.primaryKey == nil ? Identifier.quoted(ObjectSchema.rowIdColumn) : "rowid"
                top = try connection.integer("SELECT coalesce(max(\(column)), 0) FROM \(oldRows(t))")
            }
            let staged = try connection.integer(
                "SELECT coalesce(max(\(Identifier.quoted(ObjectSchema.rowIdColumn))), 0) FROM \(Identifier.quoted(t.tableName))"
            )
            t.nextCreatedID = max(top, staged) &+ 1
        }
        o.values[i] = .integer(t.nextCreatedID!)
        t.nextCreatedID! &+= 1
    }
}
