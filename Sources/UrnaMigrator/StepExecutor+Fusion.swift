import Foundation
import UrnaStore

/// Fused steps (`RunFusion`): where a step reads the old rows of a type an earlier step carried forward, and how a
/// step carries a type's copy into the next step's rebuild.
extension StepExecutor {
    /// The old rows of `t` as a FROM item: the table, or the SELECT an earlier step of the run left for them.
    func oldRows(_ t: TypeTransfer) -> String { oldRows(t.name) }

    func oldRows(_ name: String) -> String {
        if let select = fusion?.incoming[name] { return "(\(select))" }
        return Identifier.quoted(name)
    }

    /// Whether an earlier step of the run carried `name`'s rows forward (its table still has an older form).
    func isIncoming(_ name: String) -> Bool { fusion?.incoming[name] != nil }

    /// The old rows of an incoming type written to a temporary table with indexes on its key, its order and
    /// `column`, for lookups by a column the SELECT computes (an inverse link): the stepwise path's cost, paid only
    /// when a closure asks for it. Returns the FROM item to read.
    func materializedRows(_ name: String, indexing column: String) throws -> String {
        guard let fusion, let select = fusion.incoming[name] else { return Identifier.quoted(name) }
        let table: String
        if let made = fusion.materialized[name] {
            table = made
        } else {
            table = fusion.temporaryName("rows_" + name)
            fusion.temporaryTables.append(table)
            try quiet("CREATE TEMP TABLE \(Identifier.quoted(table)) AS \(select)")
            try quiet(
                "CREATE INDEX temp.\(Identifier.quoted(table + "_rowid")) ON \(Identifier.quoted(table))(\"rowid\")")
            recorder.note(
                "-- \(name): its carried rows written to a temporary table (a closure looks objects up by \(column))")
            fusion.incoming[name] = "SELECT * FROM temp.\(Identifier.quoted(table))"
            fusion.materialized[name] = table
        }
        try quiet(
            "CREATE INDEX IF NOT EXISTS temp.\(Identifier.quoted(table + "_" + column)) ON \(Identifier.quoted(table))(\(Identifier.quoted(column)))"
        )
        return oldRows(name)
    }

    /// Carries `t`'s copy into the next step's rebuild instead of writing it now, when nothing the closure did
    /// needs its table written here. True when carried.
    func carryForward(_ t: TypeTransfer) throws -> Bool {
        guard let fusion, case .later = foreignKeyCheck else { return false }
        let index = fusion.steps.firstIndex { $0.from.version == step.from.version && $0.to.version == step.to.version }
        guard let index, index + 1 < fusion.steps.count else { return false }
        guard RunFusion.reasonNotCarried(t, step: step, next: fusion.steps[index + 1]) == nil else { return false }
        // The closure wrote nothing of the type: its staging table is empty and no rows are owed to it.
        // (An enumeration that only read it, `enumerateReadOnly`, wrote nothing either.)
        guard t.created == 0, t.rowsWritten == 0, t.deleted == 0, t.enumerations == 0 || t.owed == .all,
            !t.filled, !t.cleared
        else {
            return false
        }
        // The user's views, triggers and indexes read the table as this version has it.
        guard !userObjects.contains(where: { $0.type != "index" || $0.table == t.name }) else { return false }
        // Links to objects this step deletes are cleared in the written table (`removeDanglingReferences`).
        for c in t.newColumns {
            guard case .link(let x) = c.type, let target = transfer(x) else { continue }
            if target.deleted > 0 || target.cleared { return false }
        }
        var keyMapTables: [String: String] = [:]
        var integerKeyMaps = Set<String>()
        for c in t.newColumns {
            guard case .link(let x) = c.type, let target = transfer(x), target.hasKeyMap, keyMapTables[x] == nil else {
                continue
            }
            // This step's key maps are dropped when it ends: the SELECT reads a copy. Old integer keys are kept as
            // integers there (the map holds them as the new key's type): each row's link is then found by rowid.
            let name = fusion.temporaryName("keys_" + x)
            fusion.temporaryTables.append(name)
            let copy = Identifier.quoted(name)
            let source = target.keyMapTable
            if target.oldKeySQLType == "INTEGER" {
                try quiet(
                    "CREATE TEMP TABLE \(copy) (\"old_key\" INTEGER PRIMARY KEY, \"new_key\" \(target.newKeySQLType))")
                try quiet(
                    "INSERT INTO temp.\(copy) SELECT CAST(\"old_key\" AS INTEGER), \"new_key\" FROM \(source) ORDER BY 1"
                )
                integerKeyMaps.insert(x)
            } else {
                try quiet(
                    "CREATE TEMP TABLE \(copy) (\"old_key\" \(target.newKeySQLType) PRIMARY KEY, \"new_key\" \(target.newKeySQLType)) WITHOUT ROWID"
                )
                try quiet("INSERT INTO temp.\(copy) SELECT \"old_key\", \"new_key\" FROM \(source)")
            }
            keyMapTables[x] = "temp.\(copy)"
        }
        let select = analysis.carriedSelectSQL(
            t, from: oldRows(t), keyMapTables: keyMapTables, integerKeyMaps: integerKeyMaps)
        fusion.outgoing[t.name] = select
        // Its staging table is dropped unused (`swapTables`); the old table stays for the next step to read.
        unmarkRebuilt(t)
        t.filled = true
        t.carriedForward = true
        t.owed = nil
        t.carriedRows = Int(try connection.integer("SELECT count(*) FROM \(oldRows(t))"))
        report.fusedIntoNextStep.append(t.name)
        recorder.note(
            "-- \(t.name): not written in this step (fused with the next one, which rebuilds it): its rows are read there as \(select)"
        )
        try checkWidenedValues(t, rows: "(\(select))")
        return true
    }

    /// Links of incoming types checked by hand (their tables still hold an older form, so `foreign_key_check`
    /// would compare old values): each non-nil link must find its target among the old objects.
    func checkIncomingLinks(_ names: [String], scope: String) throws {
        var reported = 0
        for name in names.sorted() {
            guard let t = transfer(name), let old = t.old else { continue }
            for c in t.oldColumns {
                guard case .link(let x) = c.type, let targetType = step.from[type: x] else { continue }
                let col = Identifier.quoted(c.name)
                let rows = try connection.rows(
                    "SELECT o.\(Identifier.quoted(old.keyColumn)), o.\(col) FROM \(oldRows(name)) o WHERE o.\(col) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(oldRows(x)) x WHERE x.\(Identifier.quoted(targetType.keyColumn)) = o.\(col)) LIMIT \(max(log.limit, 1))"
                )
                for r in rows {
                    log.record(
                        ValidationFailure(
                            check: "foreign-key", type: name, property: c.name,
                            message: "object \(r[0]) points at a \(x) that does not exist" + scope))
                    reported += 1
                    if reported >= log.limit { return }
                }
            }
        }
    }
}
