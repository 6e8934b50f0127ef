import Foundation
import UrnaStore

/// A first pass over a type whose closure only reads it (fused runs only): the old rows are read and the closure
/// run on each object as usual, but nothing is written while the new objects stay exactly what the automatic copy
/// would make of them. The rows are then owed to the new version, and paid in one statement after the closure:
/// the bulk copy, a carry into the next step's rebuild, or `ALTER TABLE ... DROP COLUMN` in place (a later closure
/// step that only reads a type another closure step rebuilt, then drops columns of it, no longer rebuilds it).
///
/// Whatever would see the difference pays the owed rows first (`payOwedRows`): looking up a new object of the type,
/// creating or deleting one, clearing the type, a second pass. An object the closure changes, deletes or keeps a
/// reference to ends the read-only pass at that row: the rows before it are written in one statement, it is written
/// as the enumeration writes it, and the rest of the pass is the usual one (`fill`), so the new table, the ledger
/// and every failure are those of an unfused run.
extension StepExecutor {
    /// Whether `t`'s first pass may run read-only: every new column is an old one copied unchanged or a constant,
    /// so an object the closure leaves alone is exactly the row the bulk copy writes, and no required column can
    /// receive a nil there (the failure would be worded differently).
    func readsOnlyFirst(_ t: TypeTransfer) -> Bool {
        guard fusion != nil, !readsAhead, t.old != nil, t.new != nil, !t.filled, !t.cleared, !t.needsSwift,
            t.created == 0, t.rowsWritten == 0, t.deleted == 0, t.owed == nil, t.newColumns.count <= 64
        else { return false }
        for (i, s) in t.sources.enumerated() {
            let c = t.newColumns[i]
            switch s {
            case .copy(let oi):
                if !c.isOptional && c.property != nil && t.oldColumns[oi].isOptional { return false }
            case .constant(let v):
                if v.isNull && !c.isOptional && c.property != nil { return false }
            case .convert, .rowid:
                return false
            }
        }
        return true
    }

    /// The first pass over `t`, read-only while the closure leaves the new objects alone (see the extension).
    func enumerateReadOnly(_ t: TypeTransfer, _ block: @escaping (MigrationObject, MigrationObject) throws -> Void)
        throws
    {
        guard let oldLayout = t.oldLayout, let newLayout = t.newLayout else { return }
        markRebuilt(t)
        let select = try RowStatement(connection, analysis.selectOldSQL(t, from: oldRows(t)))
        let oldCount = t.oldColumns.count
        let width = t.newColumns.count
        var nonNil = Array(repeating: 0, count: t.droppedColumns.count)
        t.readOnlyPass = true
        t.owed = .noneYet
        defer { t.readOnlyPass = false }
        let ops = t.carryOps
        let defaults = t.columnDefaults
        let dropped = t.droppedColumns
        // The old and new object are reused row after row while nobody else holds them (as `EnumerationCursor`
        // does): a row's objects are then put in exactly the state fresh ones would have, without allocating.
        var oldObject: MigrationObject?
        var newObject: MigrationObject?
        while try select.step() {
            let rowid = select.int(at: Int32(oldCount))
            if oldObject == nil {
                oldObject = MigrationObject(
                    layout: oldLayout, executor: self, values: Array(repeating: .null, count: oldCount),
                    originKey: nil)
            }
            if newObject == nil {
                newObject = MigrationObject(layout: newLayout, executor: self, values: defaults, originKey: nil)
            }
            let old = oldObject.unsafelyUnwrapped.values.base
            for i in 0..<oldCount { old[i] = select.value(at: Int32(i)) }
            for (k, c) in dropped.enumerated() where !old[c].isNull { nonNil[k] += 1 }
            let originKey = t.oldKeyIndex.map { old[$0] }
            oldObject.unsafelyUnwrapped.state.pointee = ObjectState(originKey: originKey)
            let carried = newObject.unsafelyUnwrapped.values.base
            for i in 0..<width {
                switch ops[i] {
                case .copy(let oi): carried[i] = old[oi]
                case .constant(let v): carried[i] = v
                case .convert, .rowid: carried[i] = defaults[i]  // not in a read-only pass (`readsOnlyFirst`)
                }
            }
            newObject.unsafelyUnwrapped.state.pointee = ObjectState(originKey: originKey)
            newObject.unsafelyUnwrapped.isPending = true
            t.currentPending = newObject
            do {
                defer { t.currentPending = nil }
                try block(oldObject.unsafelyUnwrapped, newObject.unsafelyUnwrapped)
                if let e = takePendingError() { throw e }
            }
            t.enumerated += 1
            // Progress as the usual pass reports it (every 50,000 objects).
            if t.enumerated % 50_000 == 0 {
                reporter?.progress(type: t.name, done: t.enumerated, total: countsBefore[t.name] ?? 0)
            }
            // An old object the closure kept is left to it (it holds its values: no live row).
            if !isKnownUniquelyReferenced(&oldObject!) { oldObject = nil }
            let kept = !isKnownUniquelyReferenced(&newObject!)
            let st = newObject.unsafelyUnwrapped.state
            let untouched =
                !kept && !st.pointee.isDeleted && !st.pointee.changed && st.pointee.dirtyMask == 0
                && st.pointee.dirtyHigh.isEmpty && st.pointee.lists.isEmpty && st.pointee.inexact.isEmpty
            if untouched && t.owed != nil {
                t.owed = .through(rowid)
                continue
            }
            // The pass ends here: the rows before this one are written now (unless something paid them already),
            // this one as the enumeration writes it, the rest by the usual pass.
            try payOwedRows(t)
            try writeEnumerated(newObject.unsafelyUnwrapped, of: t)
            try fill(t, with: block, after: rowid)
            if let counted = t.droppedCounts {
                t.droppedCounts = zip(counted, nonNil).map { $0 + $1 }
            }
            return
        }
        t.droppedCounts = nonNil
        t.owed = .all
        let total = countsBefore[t.name] ?? 0
        if total >= 50_000 { reporter?.progress(type: t.name, done: t.enumerated, total: total) }
        report.readOnlyPasses.append(t.name)
    }

    /// Writes the rows a read-only pass owes `t` (`owed`, as the automatic copy would,
    /// links still in their old keys as an enumeration leaves them): before anything reads or writes the type's
    /// new table. After a finished pass, the type is then filled as an enumeration fills it.
    func payOwedRows(_ t: TypeTransfer) throws {
        guard let owed = t.owed else { return }
        t.owed = nil
        var upTo: String?
        switch owed {
        case .noneYet: upTo = nil
        case .through(let rowid): upTo = " WHERE rowid <= \(rowid)"
        case .all: upTo = ""
        }
        if let upTo {
            let rows =
                isIncoming(t.name)
                ? "(SELECT * FROM \(oldRows(t))\(upTo))"
                : "(SELECT *, rowid AS rowid FROM \(Identifier.quoted(t.name))\(upTo))"
            let sql = analysis.bulkCopySQL(t, keyMaps: [], from: rows)
            recorder.noteOnce(
                "\(analysis.bulkCopySQL(t, keyMaps: []))  -- the objects a closure read and left as they were")
            try quiet(sql)
            t.rowsWritten += connection.changes
        }
        if !t.readOnlyPass {
            t.filled = true
            t.filledBySwift = true
            report.readOnlyPasses.removeAll { $0 == t.name }
        }
    }

    /// Writes one enumerated object as the enumeration's INSERT OR IGNORE does (same checks, same failure).
    func writeEnumerated(_ o: MigrationObject, of t: TypeTransfer) throws {
        guard prepareForWrite(o, of: t) else { return }
        try noteKeyChange(o, of: t)
        let s = try RowStatement(connection, "INSERT OR IGNORE" + analysis.insertSQL(t).dropFirst("INSERT".count))
        for i in 0..<o.values.count { s.bind(o.values[i], at: Int32(i + 1)) }
        try s.run()
        guard connection.changes > 0 else {
            log.record(
                ValidationFailure(check: "unique", type: t.name, message: EnumerationCursor.sameKeyMessage(o, of: t)))
            o.isDeleted = true
            return
        }
        t.rowsWritten += 1
        o.rowid = connection.lastInsertRowID
        try noteExplicitLinks(o)
        if !o.lists.isEmpty { try flushLists(of: o) }
    }

    /// No link of `t` is rewritten or cleared after the copy (targets re-keyed, deleted or cleared in this step):
    /// on a table kept in place those updates would count as writes the copy never makes.
    func linksStayPut(_ t: TypeTransfer) -> Bool {
        for c in t.newColumns {
            guard case .link(let x) = c.type, let target = transfer(x) else { continue }
            if target.hasKeyMap || target.deleted > 0 || target.cleared { return false }
        }
        return true
    }

    /// Old columns a type only drops (every other column kept, unchanged, in its place), when a finished read-only
    /// pass left it unwritten: `ALTER TABLE ... DROP COLUMN` instead of a copy, kept only when the table's CREATE
    /// text is then exactly the new version's (otherwise undone, and copied). The ledger counts its rows as written
    /// (SQLite rewrites each one), as the copy would. True when dropped in place.
    func dropColumnsInPlace(_ t: TypeTransfer) throws -> Bool {
        guard let n = t.new, t.owed == .all, !isIncoming(t.name), t.created == 0, t.deleted == 0,
            !t.cleared, t.rowsWritten == 0, t.newColumns.count < t.oldColumns.count
        else { return false }
        var next = 0
        for (i, s) in t.sources.enumerated() {
            guard case .copy(let oi) = s, oi >= next, t.oldColumns[oi].name == t.newColumns[i].name,
                t.oldColumns[oi].sqlType == t.newColumns[i].sqlType
            else { return false }
            next = oi + 1
        }
        guard linksStayPut(t), let old = t.old, t.droppedCounts != nil else { return false }
        let kept = Set(t.sources.compactMap { if case .copy(let oi) = $0 { oi } else { nil } })
        let dropped = t.oldColumns.indices.filter { !kept.contains($0) }.map { t.oldColumns[$0].name }
        // The step's report counts the dropped values from the pass (the columns are gone afterwards): only when
        // the dropped columns are exactly the properties the new version no longer stores.
        let gone = old.storedProperties.filter { n[property: $0.name] == nil }.map(\.name)
        guard Set(gone) == Set(dropped), gone.count == t.droppedColumns.count else { return false }
        let table = Identifier.quoted(t.name)
        let statements = dropped.map { "ALTER TABLE \(table) DROP COLUMN \(Identifier.quoted($0))" }
        guard try alterInPlace(t, statements, restoringExactText: true) else { return false }  // copied instead
        t.owed = nil
        unmarkRebuilt(t)
        t.filled = true
        t.rowsWritten += try count("SELECT count(*) FROM \(table)")
        report.readOnlyPasses.removeAll { $0 == t.name }
        report.droppedInPlace.append(t.name)
        for sql in statements { recorder.note(sql + "  -- in place: the closure only read \(t.name)") }
        return true
    }

    /// Dropping the last column leaves the CREATE text one line break short of a fresh file's (SQLite cuts the
    /// column's text out with the break before the closing parenthesis). The same statement but for white space,
    /// so the text is put back as a fresh file has it: SQLite's documented procedure for schema edits that change
    /// nothing on disk (writable_schema, then a new schema_version). Checked: the table then reads exactly so.
    func restoreCreateText(of table: String, _ fresh: String) throws {
        let version = try connection.integer("PRAGMA schema_version")
        try quiet("PRAGMA writable_schema = ON")
        defer { try? quiet("PRAGMA writable_schema = OFF") }
        try connection.run(
            "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [.text(fresh), .text(table)])
        try quiet("PRAGMA schema_version = \(version + 1)")
        try quiet("PRAGMA writable_schema = OFF")
        guard
            case .text(let now)? = try connection.scalar(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)]), now == fresh
        else { throw MigrationObjectError.unknownType(table, version: step.to.version) }
    }
}
