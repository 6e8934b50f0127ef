import Foundation
import UrnaStore

/// Setting up and tearing down a step's working tables, user objects set aside and triggers.
extension StepExecutor {
    // MARK: - Setup

    static let linksTable = "temp.\"_urna_m_links\""
    static let listOwnersTable = "temp.\"_urna_m_list_owners\""
    static let listItemsTable = "temp.\"_urna_m_list_items\""

    /// Key maps for every type, the explicit-link log and the staged lists: created before the closure
    /// runs because schema changes while statements are stepping are best avoided.
    func createTempTables() throws {
        for t in transfers where t.old != nil && t.new != nil {
            sources[t.name] = try ObjectSource(typeName: t.name, width: t.newColumns.count, connection: connection)
        }
        for t in transfers where t.old != nil && t.new != nil {
            try quiet(
                "CREATE TEMP TABLE \(Identifier.quoted("_urna_m_keys_" + t.name)) (\"old_key\" \(t.newKeySQLType) PRIMARY KEY, \"new_key\" \(t.newKeySQLType)) WITHOUT ROWID"
            )
        }
        try quiet(
            "CREATE TEMP TABLE \"_urna_m_links\" (\"tbl\" TEXT, \"col\" TEXT, \"rid\" INTEGER, PRIMARY KEY (\"tbl\", \"col\", \"rid\")) WITHOUT ROWID"
        )
        try quiet(
            "CREATE TEMP TABLE \"_urna_m_list_owners\" (\"list\" TEXT, \"rid\" INTEGER, \"origin\", PRIMARY KEY (\"list\", \"rid\")) WITHOUT ROWID"
        )
        // rebuildLists keeps the old rows of the owners a closure did not restage by looking owners up by origin:
        // without this index that is a scan of every staged owner per old list row (quadratic: 45,000 orders
        // with 4 items each, all restaged, took 18+ minutes; 12,000 owners take 32 s instead of 0.05 s).
        try quiet(
            "CREATE INDEX temp.\"_urna_m_list_owners_origin\" ON \"_urna_m_list_owners\" (\"list\", \"origin\")")
        try quiet(
            "CREATE TEMP TABLE \"_urna_m_list_items\" (\"list\" TEXT, \"rid\" INTEGER, \"position\" INTEGER, \"target\", PRIMARY KEY (\"list\", \"rid\", \"position\")) WITHOUT ROWID"
        )
    }

    func dropTempTables() throws {
        dropSources()
        statements.removeAll()
        oldLookups.removeAll()
        for t in transfers {
            t.insertStatement = nil
            t.keyMapInsert = nil
            if t.old != nil && t.new != nil {
                try quiet("DROP TABLE temp.\(Identifier.quoted("_urna_m_keys_" + t.name))")
            }
        }
        try quiet("DROP TABLE \(Self.linksTable)")
        try quiet("DROP TABLE \(Self.listOwnersTable)")
        try quiet("DROP TABLE \(Self.listItemsTable)")
    }

    /// A staging table for every type of the new schema (cheap while empty); the ones nobody writes
    /// are dropped at the end and their old tables kept as they are.
    func createStagingTables() throws {
        for t in transfers where !t.isRemoved {
            guard let sql = analysis.createStagingSQL(t) else { continue }
            try quiet(sql)
            if t.tableChanges || t.isAdded { markRebuilt(t) }
            if t.isAdded { t.filled = true }
        }
    }

    /// Marks a type's table as rebuilt: its new objects go to the staging table.
    func markRebuilt(_ t: TypeTransfer) {
        guard !t.rebuilt else { return }
        t.rebuilt = true
        if let sql = analysis.createStagingSQL(t) { recorder.note(sql) }
    }

    /// Takes back `markRebuilt`: the type keeps its table (altered in place, or carried to the next step), so its
    /// staging table stays empty and is dropped unused (`swapTables`), and the report does not list its CREATE.
    func unmarkRebuilt(_ t: TypeTransfer) {
        guard t.rebuilt else { return }
        t.rebuilt = false
        if let sql = analysis.createStagingSQL(t) { recorder.forget(sql) }
    }

    /// Views and triggers are dropped while tables are rebuilt (renaming a table re-checks every view
    /// and trigger, and triggers must not fire on copies); user indexes vanish with their table.
    /// All are recreated at the end of the step, as written; a view that no longer reads stops the
    /// upgrade. (A trigger body is only checked by SQLite when it fires.)
    func setAsideUserObjects() throws {
        let ours = Set(StepAnalysis.indexStatements(step.from).keys)
        for row in try connection.rows(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('index', 'view', 'trigger') ORDER BY rowid"
        ) {
            guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let table) = row[2],
                case .text(let sql) = row[3]
            else { continue }
            if type == "index" && (ours.contains(name) || table.hasPrefix("_urna")) { continue }
            // The family's own views are not the user's: dropped here, created from code again at the end.
            if type == "view" && step.from[view: name] != nil {
                try exec("DROP VIEW \(Identifier.quoted(name))")
                continue
            }
            // Recreated at the end of the step: SQL the file recorded must be one CREATE of its own kind.
            try SchemaObjectSQL.check(sql, type: type, name: name, table: table)
            userObjects.append((type, name, table, sql))
        }
        for o in userObjects where o.type != "index" {
            try exec("DROP \(o.type.uppercased()) \(Identifier.quoted(o.name))")
        }
    }

    func restoreUserObjects() throws {
        // The new version's views first (from code, never from the file): a user's view may read them.
        for v in step.to.views
        where try count("SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(v.name)]) == 0 {
            try exec(v.createSQL)
        }
        for kind in ["index", "view", "trigger"] {
            for o in userObjects where o.type == kind {
                let exists =
                    try count(
                        "SELECT count(*) FROM sqlite_master WHERE type = ? AND name = ?", [.text(kind), .text(o.name)])
                    > 0
                if exists { continue }
                do {
                    try exec(o.sql)
                    // SQLite accepts a view on a missing column and fails only when it is read: read it.
                    if kind == "view" {
                        _ = try connection.prepare("SELECT * FROM \(Identifier.quoted(o.name)) LIMIT 0")
                    }
                    // Nor does it check a trigger's body when the trigger is created: it compiles it with each
                    // statement that would fire it. Prepare (never run) one of each kind on its table.
                    if kind == "trigger" { try compileTriggers(on: o.table) }
                } catch let e as SQLiteError {
                    // Gone again (the run fails and rolls back anyway), so the next trigger on the table is compiled
                    // without it: each one compiles all of them, and the second was reported with the first's error.
                    if kind == "trigger" { try? quiet("DROP TRIGGER IF EXISTS \(Identifier.quoted(o.name))") }
                    log.record(
                        ValidationFailure(
                            check: kind, type: o.table,
                            message:
                                "\(kind) \(o.name) no longer works on version \(step.to.version) (\(e.message)): drop it or change it before migrating"
                        ))
                }
            }
        }
    }

    /// Prepares an INSERT, an UPDATE of every column and a DELETE on `table` (nothing is run), which compiles
    /// the triggers they would fire: a trigger reading a column that is gone fails here, not in the app later.
    func compileTriggers(on table: String) throws {
        let t = Identifier.quoted(table)
        let columns = try connection.rows("SELECT name FROM pragma_table_info(?1)", [.text(table)]).compactMap {
            r -> String? in
            if case .text(let n) = r[0] { n } else { nil }
        }
        _ = try connection.prepare("INSERT INTO \(t) DEFAULT VALUES")
        if !columns.isEmpty {
            let set = columns.map { "\(Identifier.quoted($0)) = \(Identifier.quoted($0))" }.joined(separator: ", ")
            _ = try connection.prepare("UPDATE \(t) SET \(set) WHERE 0")
        }
        _ = try connection.prepare("DELETE FROM \(t) WHERE 0")
    }
}
