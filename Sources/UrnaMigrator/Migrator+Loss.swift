import Foundation
import UrnaStore

/// Refusing, at plan time, every step without a closure that would discard data, and listing the user's own
/// views, indexes and triggers a plan would break.
extension Migrator {
    /// Where the data of the file being planned stands, for deciding whether a step would lose any.
    struct DataProbe {
        let connection: Connection
        /// The schema the file is at.
        let start: Schema

        /// Whether the table `table` of the file has a row (matching `condition`, SQL over its columns).
        func exists(_ table: String, where condition: String? = nil) -> Bool {
            guard (try? connection.tableExists(table)) == true else { return false }
            let filter = condition.map { " WHERE \($0)" } ?? ""
            let sql = "SELECT EXISTS(SELECT 1 FROM \(Identifier.quoted(table))\(filter))"
            return (try? connection.integer(sql)) != 0
        }
    }

    /// The losses of every step of a run nobody allowed (see the one-step form), on the file as `probe` reads it.
    static func lossRefusals(_ steps: [ResolvedStep], probe: DataProbe) -> [PlanRefusal] {
        steps.enumerated().flatMap { index, step in
            lossRefusals(
                step, index: index, earlierClosures: steps[..<index].contains { $0.closure != nil }, probe: probe)
        }
    }

    /// The losses of `step` (the `index`-th of the run) nobody allowed: removed properties and types whose
    /// data is not nil, required properties added without a default to existing objects. A step with a
    /// closure is trusted to have carried what it needs.
    static func lossRefusals(_ step: ResolvedStep, index: Int, earlierClosures: Bool, probe: DataProbe)
        -> [PlanRefusal]
    {
        guard step.closure == nil else { return [] }
        // Only the first step reads the file as it is; later ones can only tell whether the type had objects.
        func mayHaveObjects(_ type: String) -> Bool {
            if earlierClosures { return true }
            return probe.start[type: type] != nil && probe.exists(type)
        }
        func mayHaveValues(_ type: String, _ p: Property) -> Bool {
            guard index == 0 else { return mayHaveObjects(type) }
            if case .list = p.type { return probe.exists(StorageLayout.listTable(type: type, property: p.name)) }
            return probe.exists(type, where: "\(Identifier.quoted(p.name)) IS NOT NULL")
        }
        var out: [PlanRefusal] = []
        func refuse(_ type: String, _ property: String?, _ reason: String, _ fix: String) {
            out.append(
                PlanRefusal(
                    fromVersion: step.from.version, toVersion: step.to.version, type: type, property: property,
                    reason: reason, fix: fix))
        }
        for old in step.from.tableTypes {
            guard let new = step.to[type: old.name] else {
                guard mayHaveObjects(old.name), !step.allows(.discardType(type: old.name)) else { continue }
                // SQLite ignores case in table names, and a type is never renamed by itself: say so.
                let sameButCase = step.to.tableTypes.first {
                    $0.name != old.name && $0.name.lowercased() == old.name.lowercased()
                }
                refuse(
                    old.name, nil,
                    "the type is removed and its objects would be dropped"
                        + (sameButCase.map {
                            " (\($0.name) is added and differs from it only in case: types are not renamed by "
                                + "themselves)"
                        } ?? ""),
                    (sameButCase.map {
                        "keep the name \(old.name), or give the step a closure that creates each \($0.name) from its "
                            + "\(old.name) (migration.create(\"\($0.name)\", value:)) and sets the links to it; or allow "
                            + "the loss: "
                    } ?? "give the step a closure that moves what it needs, or allow the loss: ")
                        + MigrationAllowance.discardType(type: old.name).spelledOut)
                continue
            }
            for p in old.properties where !p.ignored && p.type.isStoredSomewhere {
                if step.renames.keptName(type: old.name, oldName: p.name, in: new) != nil { continue }
                guard mayHaveValues(old.name, p), !step.allows(.discard(type: old.name, property: p.name)) else {
                    continue
                }
                let added = new.properties.filter { step.from[type: old.name]?[property: $0.name] == nil }
                var reason = "the property is removed and its non-nil values would be dropped"
                var fix = "declare the rename if it is one"
                if let onto = step.renames.first(where: { $0.type == old.name && $0.to == p.name }) {
                    reason =
                        "\(old.name).\(onto.from) is renamed to \(p.name), so the values \(p.name) holds now would be "
                        + "dropped"
                    fix = "rename \(p.name) too, or give the step a closure that keeps them"
                } else if let same = added.first(where: { $0.name.lowercased() == p.name.lowercased() }) {
                    reason =
                        "\(old.name).\(same.name) differs from it only in case: it is the same property renamed, "
                        + "but no rename is declared, so its values would be dropped"
                    fix =
                        "declare it: MigrationStep(renames: [PropertyRename(type: \"\(old.name)\", from: \"\(p.name)\", to: \"\(same.name)\")])"
                } else if let near = added.first(where: { editDistance($0.name.lowercased(), p.name.lowercased()) <= 2 }
                ) {
                    reason += " (\(old.name).\(near.name) is added: a typo, or a rename not declared?)"
                    fix =
                        "if it is a rename, declare it: PropertyRename(type: \"\(old.name)\", from: \"\(p.name)\", to: \"\(near.name)\")"
                }
                refuse(
                    old.name, p.name, reason,
                    fix + "; or give the step a closure; or allow the loss: "
                        + MigrationAllowance.discard(type: old.name, property: p.name).spelledOut)
            }
            // A primary key added with nothing to set it gives every object the same key: the run would fail on
            // the second object. Said at plan time (when the file's own objects are known: the first step).
            if let key = new.primaryKey,
                step.oldName(type: new.name, newName: key.name).flatMap({ old[property: $0] }) == nil,
                index == 0, probe.start[type: old.name] != nil,
                (try? probe.connection.integer("SELECT count(*) >= 2 FROM \(Identifier.quoted(old.name))")) == 1
            {
                let value = StorageLayout.literal(
                    ValueCodec.encode(key.effectiveDefault, as: key.type, schema: step.to))
                refuse(
                    new.name, key.name,
                    "the primary key is added and nothing sets it: every existing object would get \(value), so the "
                        + "upgrade would fail on the second one",
                    "give the step a closure that sets it (migration.enumerateObjects(ofType: \"\(new.name)\") { old, new in "
                        + "new[\"\(key.name)\"] = ... })")
            }
            for p in new.storedProperties where !p.optional && p.defaultValue == nil && !p.primaryKey {
                guard step.oldName(type: new.name, newName: p.name).flatMap({ old[property: $0] }) == nil,
                    mayHaveObjects(old.name),
                    !step.allows(.nullsBecomeDefault(type: new.name, property: p.name))
                else { continue }
                let zero = ValueCodec.encode(p.effectiveDefault, as: p.type, schema: step.to)
                refuse(
                    new.name, p.name,
                    "a required property is added without a default: every existing object would get \(StorageLayout.literal(zero))",
                    "give it a default, or a closure that sets it, or allow it: .nullsBecomeDefault(type: "
                        + "\"\(new.name)\", property: \"\(p.name)\") (command line: --allow-loss \(new.name).\(p.name))"
                )
            }
        }
        return out
    }

    /// The views, triggers and indexes of the file that are not in its descriptor and name a table or column
    /// the run removes or renames: they would fail to be recreated (and the run with them). One the steps' own SQL
    /// drops (`sqlBefore` of the step that removes the column or of an earlier one, `sqlAfter` of an earlier one)
    /// is not listed: the step recreates it in its new form, as the message tells the app to do.
    static func brokenUserObjects(_ steps: [ResolvedStep], probe: DataProbe) -> [String] {
        guard let first = steps.first else { return [] }
        // Lower-cased (SQLite's names are case-insensitive) -> as declared.
        var removedTables: [String: String] = [:]
        var removedColumns: [String: [String: String]] = [:]
        // Per user object (lower-cased name), what it uses that a step removes before the steps' SQL dropped it.
        var brokenBy: [String: (tables: Set<String>, columns: Set<String>)] = [:]
        let own = Set(StorageLayout.createSQL(for: first.from).compactMap(createdName))
        guard
            let rows = try? probe.connection.rows(
                "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('view', 'trigger', 'index') AND sql IS NOT NULL"
            )
        else { return [] }
        var objects: [(kind: String, name: String, table: String, words: Set<String>)] = rows.compactMap { r in
            guard case .text(let kind) = r[0], case .text(let name) = r[1], case .text(let table) = r[2],
                case .text(let sql) = r[3], !own.contains(name.lowercased())
            else { return nil }
            return (kind, name, table, Set(sqlWords(sql)))
        }
        // A full-text index over a family table (`fts5(title, content='Course')`) reads its columns by name.
        let searches = try? probe.connection.rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")
        for r in searches ?? [] {
            guard case .text(let name) = r[0], case .text(let sql) = r[1],
                let content = MigrationRunner.externalContentTable(sql)
            else { continue }
            objects.append(("search index", name, content, Set(sqlWords(sql))))
        }
        var dropped: Set<String> = []
        for step in steps {
            dropped.formUnion(step.sqlBefore.flatMap(droppedObjectNames))
            var stepTables: [String: String] = [:]
            var stepColumns: [String: [String: String]] = [:]
            for old in step.from.tableTypes {
                guard let new = step.to[type: old.name] else {
                    stepTables[old.name.lowercased()] = old.name
                    continue
                }
                // A type that gains a primary key loses its hidden `_id` column.
                if old.primaryKey == nil, new.primaryKey != nil {
                    stepColumns[old.name.lowercased(), default: [:]][ObjectSchema.rowIdColumn.lowercased()] =
                        "\(old.name).\(ObjectSchema.rowIdColumn)"
                }
                for p in old.properties where !p.ignored && p.type.isStoredSomewhere {
                    // A rename by case only breaks nothing: SQLite's names are case-insensitive (a view over
                    // `fullname` reads `fullName`), so it is not listed as a removed column.
                    if new[property: step.newName(type: old.name, oldName: p.name)] == nil
                        || step.newName(type: old.name, oldName: p.name).lowercased() != p.name.lowercased()
                    {
                        if case .list = p.type {
                            let table = StorageLayout.listTable(type: old.name, property: p.name)
                            stepTables[table.lowercased()] = table
                        } else {
                            stepColumns[old.name.lowercased(), default: [:]][p.name.lowercased()] =
                                "\(old.name).\(p.name)"
                        }
                    }
                }
            }
            removedTables.merge(stepTables) { a, _ in a }
            removedColumns.merge(stepColumns) { a, b in a.merging(b) { x, _ in x } }
            for o in objects where !dropped.contains(o.name.lowercased()) {
                // A search index names its content table in its options; its other words are its columns.
                let tables = stepTables.filter {
                    o.kind == "search index" ? $0.key == o.table.lowercased() : o.words.contains($0.key)
                }.map(\.value)
                var columns: [String] = []
                for (t, cs) in stepColumns where o.words.contains(t) || o.table.lowercased() == t {
                    columns += cs.filter { o.words.contains($0.key) }.map(\.value)
                }
                guard !tables.isEmpty || !columns.isEmpty else { continue }
                brokenBy[o.name.lowercased(), default: ([], [])].tables.formUnion(tables)
                brokenBy[o.name.lowercased(), default: ([], [])].columns.formUnion(columns)
            }
            dropped.formUnion(step.sqlAfter.flatMap(droppedObjectNames))
        }
        guard !removedTables.isEmpty || !removedColumns.isEmpty else { return [] }
        var out: [String] = []
        for o in objects {
            guard let b = brokenBy[o.name.lowercased()] else { continue }
            let what = (b.tables.sorted().map { "table \($0)" } + b.columns.sorted()).joined(separator: ", ")
            out.append(
                "\(o.kind) \(o.name) uses \(what), which the upgrade removes or renames: drop it first, or recreate it "
                    + "in a step's SQL (MigrationStep sqlAfter)")
        }
        out += brokenForeignKeys(own: own, removedTables: removedTables, removedColumns: removedColumns, probe: probe)
        return out.sorted()
    }

    /// The lower-cased names of the triggers, views, indexes and (search) tables a step's SQL drops (`DROP TRIGGER IF EXISTS
    /// main."story_fts_ai"`), statement by statement.
    static func droppedObjectNames(_ sql: String) -> [String] {
        sql.split(separator: ";").compactMap { statement -> String? in
            let words = statement.split(whereSeparator: { $0.isWhitespace }).map(String.init)
            guard words.count >= 3, words[0].uppercased() == "DROP",
                ["TRIGGER", "VIEW", "INDEX", "TABLE"].contains(words[1].uppercased())
            else { return nil }
            var name = words[2]
            if words.count >= 5, words[2].uppercased() == "IF", words[3].uppercased() == "EXISTS" { name = words[4] }
            if let dot = name.lastIndex(of: "."), !name.hasPrefix("\"") || name[..<dot].hasSuffix("\"") {
                name = String(name[name.index(after: dot)...])
            }
            let quotes: Set<Character> = ["\"", "`", "[", "]"]
            return String(name.filter { !quotes.contains($0) }).lowercased()
        }
    }

    /// The app's own tables whose foreign keys name a table or column the run removes: SQLite's foreign key checks
    /// refuse the whole file then ("foreign key mismatch"), so the run would fail at its last check.
    static func brokenForeignKeys(
        own: Set<String>, removedTables: [String: String], removedColumns: [String: [String: String]],
        probe: DataProbe
    ) -> [String] {
        guard
            let tables = try? probe.connection.rows(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                    + "AND name NOT LIKE '\\_urna\\_%' ESCAPE '\\'")
        else { return [] }
        var out: [String] = []
        for r in tables {
            guard case .text(let table) = r[0], !own.contains(table.lowercased()),
                let keys = try? probe.connection.rows("PRAGMA foreign_key_list(\(Identifier.quoted(table)))")
            else { continue }
            var what: Set<String> = []
            for k in keys where k.count > 4 {
                guard case .text(let parent) = k[2] else { continue }
                if let t = removedTables[parent.lowercased()] {
                    what.insert("table \(t)")
                } else if case .text(let column) = k[4],
                    let c = removedColumns[parent.lowercased()]?[column.lowercased()]
                {
                    what.insert(c)
                }
            }
            guard !what.isEmpty else { continue }
            out.append(
                "table \(table) has a foreign key to \(what.sorted().joined(separator: ", ")), which the upgrade removes "
                    + "or renames (its foreign key checks would fail): recreate the table in a step's SQL "
                    + "(MigrationStep sqlBefore/sqlAfter) with a key the new version has")
        }
        return out
    }

    /// The lower-cased words of some SQL (identifiers with their quotes taken off).
    static func sqlWords(_ sql: String) -> [String] {
        sql.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
    }

    /// The name an urna CREATE TABLE/INDEX statement creates, lower-cased.
    static func createdName(_ sql: String) -> String? {
        guard let open = sql.firstIndex(of: "\"") else { return nil }
        let rest = sql[sql.index(after: open)...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        return rest[..<close].lowercased()
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension PropertyType {
    /// Whether values of the type are kept in the file (a column or a list table; not inverse links).
    var isStoredSomewhere: Bool {
        if case .linkingObjects = self { return false }
        return true
    }
}
