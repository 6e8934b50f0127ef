import Foundation
import UrnaStore

/// After the closure: copy what it didn't, make links follow changed keys, rebuild lists, swap tables.
extension StepExecutor {
    /// Objects of rebuilt types the closure didn't enumerate: through Swift when their identities or
    /// values need it, else with one INSERT ... SELECT (links to re-keyed objects translated in SQL).
    func copyRemainingObjects() throws {
        for t in transfers where t.old != nil && t.new != nil && t.rebuilt && !t.filled && !t.cleared && t.needsSwift {
            try enumerate(t.name) { _, _ in }
            t.enumerations -= 1
        }
        for t in transfers where t.old != nil && t.new != nil && t.rebuilt && !t.filled && !t.cleared {
            try renameColumnsInPlace(t)
        }
        let keyMaps = Set(transfers.filter(\.hasKeyMap).map(\.name))
        for t in transfers where t.old != nil && t.new != nil && t.rebuilt && !t.filled && !t.cleared {
            if try dropColumnsInPlace(t) { continue }
            if try carryForward(t) { continue }
            // Rows a read-only pass owed are written here, by the same copy.
            t.owed = nil
            let sql = analysis.bulkCopySQL(t, keyMaps: keyMaps, from: oldRows(t))
            do {
                try exec(sql)
            } catch let e as SQLiteError where e.isConstraint {
                try explainFailedCopy(t, e)
                throw StepAborted()
            }
            t.rowsWritten += connection.changes
            t.filled = true
            t.filledByBulk = true
            try checkWidenedValues(t, rows: Identifier.quoted(t.tableName))
        }
    }

    /// A type whose only change is renamed columns (same order, types and constraints, no closure wrote its
    /// objects) keeps its table: `ALTER TABLE ... RENAME COLUMN` instead of copying every row. Kept only when
    /// the table's CREATE text then is exactly the new version's; otherwise undone (a savepoint) and copied.
    func renameColumnsInPlace(_ t: TypeTransfer) throws {
        // A table an earlier step of the run did not write yet has an older form: copied.
        guard t.new != nil, let renames = analysis.columnRenamesOnly(t), t.created == 0, t.deleted == 0,
            t.rowsWritten == 0, !isIncoming(t.name), t.owed == nil || linksStayPut(t)
        else { return }
        let table = Identifier.quoted(t.name)
        let statements = renames.map {
            "ALTER TABLE \(table) RENAME COLUMN \(Identifier.quoted($0.0)) TO \(Identifier.quoted($0.1))"
        }
        guard try alterInPlace(t, statements, restoringExactText: false) else { return }  // copied instead
        unmarkRebuilt(t)
        t.filled = true
        if t.owed != nil {
            // A read-only pass's rows: counted as an unfused run, which wrote them, counts them.
            t.owed = nil
            t.rowsWritten += try count("SELECT count(*) FROM \(table)")
            report.readOnlyPasses.removeAll { $0 == t.name }
        }
        for sql in statements { recorder.note(sql) }
    }

    /// Runs `statements` (ALTER TABLE on `t`'s table) under a savepoint and keeps them only when the table's CREATE
    /// text then is the new version's but for white space (restored exactly when `restoringExactText`); otherwise,
    /// or when one of them fails, undoes them all and answers false, and the caller copies the table instead.
    func alterInPlace(_ t: TypeTransfer, _ statements: [String], restoringExactText: Bool) throws -> Bool {
        guard let n = t.new else { return false }
        try quiet("SAVEPOINT urna_alter_in_place")
        var kept = false
        defer {
            if !kept { try? quiet("ROLLBACK TO urna_alter_in_place") }
            try? quiet("RELEASE urna_alter_in_place")
        }
        do {
            for sql in statements { try quiet(sql) }
            let fresh = StorageLayout.createTableSQL(n, in: step.to)
            guard
                case .text(let actual)? = try connection.scalar(
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(t.name)]),
                SQLText.normalize(actual) == SQLText.normalize(fresh)
            else { return false }
            if restoringExactText, actual != fresh { try restoreCreateText(of: t.name, fresh) }
        } catch {
            return false
        }
        kept = true
        return true
    }

    /// Decimal scale-ups multiply stored integers; a product past 64 bits would silently become REAL.
    func checkWidenedValues(_ t: TypeTransfer, rows: String) throws {
        for (i, s) in t.sources.enumerated() {
            guard case .convert(_, _, let to, _, _) = s, case .decimal = to else { continue }
            let c = Identifier.quoted(t.newColumns[i].name)
            let n = try count(
                "SELECT count(*) FROM \(rows) WHERE typeof(\(c)) NOT IN ('integer', 'null')")
            if n > 0 {
                log.record(
                    ValidationFailure(
                        check: "conversion", type: t.name, property: t.newColumns[i].name,
                        message: "\(n) value(s) overflow \(to.name) (more than 64 bits): convert them in a closure"))
            }
        }
    }

    /// A bulk copy broke a constraint: find which keys collide or which required values are missing.
    func explainFailedCopy(_ t: TypeTransfer, _ e: SQLiteError) throws {
        if let nk = t.newKeyIndex, e.message.contains("UNIQUE") || e.message.contains("PRIMARY") {
            let expr = analysis.bulkExpression(t, column: nk, keyMaps: [])
            let rows = try connection.rows(
                "SELECT k, count(*) FROM (SELECT \(expr) AS k FROM \(oldRows(t)) o) GROUP BY k HAVING count(*) > 1 LIMIT 5"
            )
            for r in rows {
                log.record(
                    ValidationFailure(
                        check: "unique", type: t.name, property: t.newColumns[nk].name,
                        message: "\(r[1]) objects would share the primary key \(r[0])"))
            }
            if !rows.isEmpty { return }
        }
        log.record(
            ValidationFailure(check: "constraint", type: t.name, message: "copying the objects failed: \(e.message)"))
    }

    /// Links carried with an old key are rewritten to the target's new key (links the closure set
    /// are left alone: they are final).
    func rewriteChangedKeys() throws {
        for target in transfers where target.hasKeyMap {
            for u in transfers where u.new != nil {
                // Bulk copies translated their links already (carried ones do as they are read); added types hold
                // only links the closure set.
                if (u.rebuilt && !u.filledBySwift) || u.carriedForward { continue }
                for c in u.newColumns {
                    guard case .link(let x) = c.type, x == target.name else { continue }
                    let table = Identifier.quoted(u.tableName)
                    let col = Identifier.quoted(c.name)
                    var sql =
                        "UPDATE \(table) SET \(col) = (SELECT m.\"new_key\" FROM \(target.keyMapTable) m WHERE m.\"old_key\" = \(table).\(col)) WHERE \(col) IN (SELECT \"old_key\" FROM \(target.keyMapTable))"
                    if u.explicitLinkColumns.contains(c.name) {
                        sql +=
                            " AND rowid NOT IN (SELECT \"rid\" FROM \(Self.linksTable) WHERE \"tbl\" = \(StorageLayout.literal(.text(u.name))) AND \"col\" = \(StorageLayout.literal(.text(c.name))))"
                    }
                    try exec(sql)
                    if !u.rebuilt { u.rowsWritten += connection.changes }
                }
            }
        }
    }

    /// Lists whose table, owners' keys, targets' keys or values changed get a new table: carried rows
    /// (keys translated), then the lists the closure set.
    func rebuildLists() throws {
        for l in analysis.lists {
            guard let owner = transfer(l.owner), let target = transfer(l.target) else { continue }
            let staged = stagedLists.contains(l.key)
            guard l.tableChanges || owner.hasKeyMap || target.hasKeyMap || staged || owner.cleared || target.cleared
            else { continue }
            guard let create = analysis.createListStagingSQL(l) else { continue }
            try exec(create)
            rebuiltLists.insert(l.key)
            if let old = l.oldTable, target.cleared, !owner.cleared, owner.old != nil {
                // Every entry pointed at an object of a type the closure cleared (`deleteData`): none is carried.
                var entries = "SELECT count(*) FROM \(Identifier.quoted(old))"
                if !owner.hasKeyMap, let key = owner.new?.keyColumn {
                    entries +=
                        " WHERE \"owner\" IN (SELECT \(Identifier.quoted(key)) FROM \(Identifier.quoted(owner.tableName)))"
                }
                let n = try count(entries)
                if n > 0 { report.clearedLinks[l.key, default: 0] += n }
            }
            if let old = l.oldTable, !owner.cleared, !target.cleared, owner.old != nil, target.old != nil {
                func translated(_ column: String, _ t: TypeTransfer) -> String {
                    let ref = "l.\"\(column)\""
                    guard t.hasKeyMap else { return ref }
                    let probe = Affinity.sqlExpression(ref, from: t.oldKeySQLType, to: t.newKeySQLType)
                    return
                        "COALESCE((SELECT m.\"new_key\" FROM \(t.keyMapTable) m WHERE m.\"old_key\" = \(probe)), \(ref))"
                }
                var sql =
                    "INSERT INTO \(Identifier.quoted(l.stagingTable)) (\"owner\", \"position\", \"target\") SELECT \(translated("owner", owner)), l.\"position\", \(translated("target", target)) FROM \(Identifier.quoted(old)) l"
                if staged {
                    // `+` keeps the owner's affinity off the comparison, so the lookup uses the owners' (list, origin)
                    // index: an untyped column compared with an INTEGER one cannot use it (one scan of every staged
                    // owner per old list row, quadratic). Both sides hold the old key as the file stores it.
                    sql +=
                        " WHERE NOT EXISTS (SELECT 1 FROM \(Self.listOwnersTable) s WHERE s.\"list\" = \(StorageLayout.literal(.text(l.key))) AND s.\"origin\" = +l.\"owner\")"
                }
                try exec(sql)
            }
            if staged, let ownerType = owner.new {
                try exec(
                    "INSERT INTO \(Identifier.quoted(l.stagingTable)) (\"owner\", \"position\", \"target\") SELECT n.\(Identifier.quoted(ownerType.keyColumn)), i.\"position\", i.\"target\" FROM \(Self.listItemsTable) i JOIN \(Identifier.quoted(owner.tableName)) n ON n.rowid = i.\"rid\" WHERE i.\"list\" = \(StorageLayout.literal(.text(l.key)))"
                )
            }
        }
    }

    func listTable(_ l: ListTransfer) -> String? {
        if rebuiltLists.contains(l.key) { return l.stagingTable }
        return l.oldTable
    }

    /// Objects deleted in the step: links to them become nil and they leave every list, as a delete
    /// in the store does. The report counts what was cleared (`StepReport.clearedLinks`): the closure deleted the
    /// objects by name, not the links to them, so a dry run says how many go with them.
    func removeDanglingReferences() throws {
        for d in transfers where d.new != nil && (d.deleted > 0 || d.cleared) {
            guard let dn = d.new else { continue }
            let keys = "SELECT \(Identifier.quoted(dn.keyColumn)) FROM \(Identifier.quoted(d.tableName))"
            for u in transfers where u.new != nil {
                for c in u.newColumns {
                    guard case .link(let x) = c.type, x == d.name else { continue }
                    let col = Identifier.quoted(c.name)
                    try exec(
                        "UPDATE \(Identifier.quoted(u.tableName)) SET \(col) = NULL WHERE \(col) IS NOT NULL AND \(col) NOT IN (\(keys))"
                    )
                    let cleared = connection.changes
                    if cleared > 0 { report.clearedLinks["\(u.name).\(c.name)", default: 0] += cleared }
                    if !u.rebuilt { u.rowsWritten += cleared }
                }
            }
            for l in analysis.lists where l.owner == d.name || l.target == d.name {
                guard let table = listTable(l) else { continue }
                for column in ["owner", "target"] where (column == "owner" ? l.owner : l.target) == d.name {
                    try exec("DELETE FROM \(Identifier.quoted(table)) WHERE \"\(column)\" NOT IN (\(keys))")
                    // Entries of other objects' lists that pointed at the deleted ones (a deleted owner's own list
                    // goes with it).
                    let cleared = connection.changes
                    if column == "target", cleared > 0 { report.clearedLinks[l.key, default: 0] += cleared }
                }
            }
        }
    }

    /// Old tables out, new tables in under the final names; unused staging tables dropped.
    func swapTables() throws {
        for s in statements.values { s.reset() }
        statements.removeAll()
        oldLookups.removeAll()
        for t in transfers {
            t.insertStatement = nil
            t.keyMapInsert = nil
        }
        // Removed types' tables go first: a type renamed by case only ("Doctor" → "doctor") takes a name SQLite
        // holds the same as the removed one's ("there is already another table or index with this name").
        for t in transfers where t.isRemoved { try exec("DROP TABLE \(Identifier.quoted(t.name))") }
        for t in transfers where !t.isRemoved {
            if t.rebuilt {
                if !t.isAdded { try exec("DROP TABLE \(Identifier.quoted(t.name))") }
                try exec("ALTER TABLE \(Identifier.quoted(t.tableName)) RENAME TO \(Identifier.quoted(t.name))")
            } else {
                try quiet("DROP TABLE \(Identifier.quoted(StepAnalysis.stagingName(t.name)))")
            }
        }
        for d in analysis.droppedLists { try exec("DROP TABLE IF EXISTS \(Identifier.quoted(d.table))") }
        // Every old table goes before any staging table takes its name: lists whose names renames swap
        // (`tags` ↔ `labels`) each take the other's table name.
        for l in analysis.lists where rebuiltLists.contains(l.key) {
            if let old = l.oldTable { try exec("DROP TABLE IF EXISTS \(Identifier.quoted(old))") }
        }
        for l in analysis.lists where rebuiltLists.contains(l.key) {
            try exec("ALTER TABLE \(Identifier.quoted(l.stagingTable)) RENAME TO \(Identifier.quoted(l.newTable))")
        }
        for t in transfers { t.rebuilt = false }
    }

    /// The new schema's indexes exist, the old schema's others are gone.
    func ensureIndexes() throws {
        let oldIndexes = StepAnalysis.indexStatements(step.from)
        let newIndexes = StepAnalysis.indexStatements(step.to)
        var existing: [String: String] = [:]
        for row in try connection.rows("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            if case .text(let n) = row[0], case .text(let s) = row[1] { existing[n] = s }
        }
        for name in oldIndexes.keys.sorted() where newIndexes[name] == nil && existing[name] != nil {
            try exec("DROP INDEX \(Identifier.quoted(name))")
        }
        for (name, sql) in newIndexes.sorted(by: { $0.key < $1.key }) {
            if let have = existing[name] {
                if SQLText.normalize(have) == SQLText.normalize(sql) { continue }
                try exec("DROP INDEX \(Identifier.quoted(name))")
            }
            if !isLastStep {
                deferredIndexes.pending[name] = sql
                continue
            }
            try exec(sql)
        }
        deferredIndexes.pending = isLastStep ? [:] : deferredIndexes.pending.filter { newIndexes[$0.key] != nil }
    }

    /// Creates the deferred indexes of `table` now, before a lookup by one of its columns (a closure asking an
    /// old object for its inverse): without them each lookup would read the whole table.
    func createDeferredIndexes(on table: String) throws {
        for (name, sql) in deferredIndexes.pending.sorted(by: { $0.key < $1.key })
        where SQLText.indexedTable(sql) == table {
            try exec(sql)
            deferredIndexes.pending[name] = nil
        }
    }

    // MARK: - Checks

    /// The tables now match what a fresh file of the new version would have.
    func checkShape() throws {
        var expected = try DatabaseShape.expected(for: step.to)
        var actual = RunLedger.withoutLedgerColumns(try DatabaseShape.read(connection), expected: expected)
        // Tables carried into the next step keep their older form until it rebuilds them (and checks them then).
        for name in (fusion?.outgoing ?? [:]).keys {
            expected.tables[name] = nil
            actual.tables[name] = nil
        }
        for d in actual.differences(
            from: expected, allowExtraIndexes: true, allowExtraTables: true,
            missingIndexesAllowed: Set(deferredIndexes.pending.keys))
        {
            log.record(ValidationFailure(check: "shape", message: d))
        }
    }

    /// Which steps a dangling reference found now may come from.
    var foreignKeyScope: String {
        guard case .forRun(let steps, let first) = foreignKeyCheck, steps > 1 else { return "" }
        return
            " (links are checked once, after the run's last step: any of the \(steps) steps from v\(first) may have left it)"
    }

    /// Before this step clears links to the objects it deleted (`removeDanglingReferences`), checks the links as
    /// the earlier steps left them when those steps skipped their check: a reference that already pointed at
    /// nothing must fail the run, not vanish with the cleared ones. Old tables are still as those steps left them
    /// here (the closure and the copies wrote only staging tables).
    func checkInheritedLinks() throws {
        guard inheritsUncheckedLinks, transfers.contains(where: { $0.old != nil && ($0.deleted > 0 || $0.cleared) })
        else { return }
        let scope = " (left by an earlier step of this run, before v\(step.from.version))"
        var tables = transfers.filter { $0.old != nil && !isIncoming($0.name) }.map(\.name)
        tables += analysis.lists.compactMap(\.oldTable) + analysis.droppedLists.map(\.table)
        try checkForeignKeys(tables: tables, scope: scope)
        try checkIncomingLinks(transfers.filter { $0.old != nil && isIncoming($0.name) }.map(\.name), scope: scope)
    }

    /// `PRAGMA foreign_key_check` over the whole file, or over `tables` only. Over the whole file, the cheaper
    /// `ForeignKeyProbe` says first whether any link dangles; the pragma then lists them.
    func checkForeignKeys(tables: [String]? = nil, scope: String? = nil) throws {
        if tables == nil, try !ForeignKeyProbe.anyDangling(in: connection) { return }
        var reported = 0
        var rows: [[SQLValue]] = []
        if let tables {
            for t in Set(tables).sorted() where try connection.tableExists(t) {
                rows += try connection.rows("PRAGMA main.foreign_key_check(\(Identifier.quoted(t)))")
            }
        } else {
            rows = try connection.rows("PRAGMA foreign_key_check")
        }
        let scope = scope ?? foreignKeyScope
        for row in rows {
            guard case .text(let table) = row[0] else { continue }
            let parent = row.count > 2 ? "\(row[2])" : "?"
            var column = "?"
            if row.count > 3, case .integer(let fk) = row[3] {
                let fks = try connection.rows("PRAGMA foreign_key_list(\(Identifier.quoted(table)))")
                if let f = fks.first(where: { if case .integer(let id) = $0[0] { id == fk } else { false } }) {
                    column = "\(f[3])"
                }
            }
            var which = ""
            if case .integer(let rowid) = row[1] {
                if let t = transfer(table), let n = tables == nil ? t.new : t.old {
                    let key = try connection.scalar(
                        "SELECT \(Identifier.quoted(n.keyColumn)) FROM \(Identifier.quoted(table)) WHERE rowid = ?",
                        [.integer(rowid)])
                    which = " object \(key.map { "\($0)" } ?? "rowid \(rowid)")"
                } else {
                    which = " row \(rowid)"
                }
            }
            log.record(
                ValidationFailure(
                    check: "foreign-key", type: table, property: column,
                    message:
                        "\(which.isEmpty ? "a row" : String(which.dropFirst())) points at a \(parent) that does not exist"
                        + scope))
            reported += 1
            if reported >= log.limit { break }
        }
    }

    // MARK: - History

    func writeHistory(_ report: StepReport) throws {
        try connection.run(
            "INSERT INTO \"\(StorageLayout.historyTable)\" (family, from_version, to_version, applied_at, duration_ms, objects_touched, descriptor_checksum) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(family), .integer(Int64(step.from.version)), .integer(Int64(step.to.version)),
                .text(ISODate.format(Date())),
                .integer(Int64((report.durationSeconds * 1000).rounded())), .integer(Int64(report.objectsTouched)),
                .text(report.descriptorChecksum),
            ])
        recorder.note("INSERT INTO \"\(StorageLayout.historyTable)\" (...) VALUES (...)")
    }
}
