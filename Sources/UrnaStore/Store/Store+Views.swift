import Foundation

extension Store {
    /// The views of `schema` (those whose SQL comes from code) that the file holds under their names with other
    /// SQL, or as a table: text the file put there, which urna and every query naming the view (`SELECT ... FROM
    /// goods`, Datasette) would run and show as the family's. A view that is missing is not listed (a query naming
    /// it fails, nothing false is answered). Empty when every view present is the code's.
    ///
    /// ```swift
    /// let replaced = try Store.replacedViews(of: codeSchema, in: store.connection)  // ["goods"]
    /// ```
    public static func replacedViews(of schema: Schema, in c: Connection) throws -> [String] {
        var out: [String] = []
        let code = schema.views.filter { !$0.sql.isEmpty }
        guard !code.isEmpty else { return out }
        for v in code {
            // Triggers (and indexes) have names of their own: only a table or a view answers a query naming `v`.
            let rows = try c.rows(
                "SELECT type, sql FROM sqlite_master WHERE name = ?1 COLLATE NOCASE AND type IN ('table','view')",
                [.text(v.name)])
            for row in rows {
                let sql: String = if case .text(let s) = row[1] { s } else { "" }
                // The code's own text first (the usual case, no scratch database); then the text SQLite keeps for it.
                if row[0] != .text("view")
                    || (collapsed(sql) != collapsed(v.createSQL)
                        && collapsed(sql) != collapsed(storedSQL(of: v) ?? v.createSQL))
                {
                    out.append(v.name)
                    break
                }
            }
        }
        return out
    }

    /// The tables of `schema` (its types' tables, their list tables, Urna's metadata tables) that the file holds as
    /// views: SQLite runs a view's SQL whenever its name is read, so a planted one answered made-up rows as the
    /// family's, or never ended (a recursive one hung `urna status`). Empty when every one present is a table.
    ///
    /// ```swift
    /// let planted = try Store.tablesHeldAsViews(of: store.schema, in: store.connection)  // ["Party"]
    /// ```
    public static func tablesHeldAsViews(of schema: Schema, in c: Connection) throws -> [String] {
        var ours = Set(StorageLayout.metadataTables.map { $0.lowercased() })
        for t in schema.tableTypes {
            ours.insert(t.name.lowercased())
            for p in t.properties where !p.ignored {
                if case .list = p.type {
                    ours.insert(StorageLayout.listTable(type: t.name, property: p.name).lowercased())
                }
            }
        }
        var out: [String] = []
        for row in try c.rows("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name") {
            if case .text(let name) = row[0], ours.contains(name.lowercased()) { out.append(name) }
        }
        return out
    }

    /// The error for `tablesHeldAsViews`, naming the file and the way back with `programName`'s own restore (an
    /// app's users were told of "Urna's table" and `urna restore`, a program they may not have).
    package static func tablesHeldAsViewsError(
        _ names: [String], path: String, schema: Schema, programName: String = "urna"
    ) -> StoreError {
        let one = names.count == 1
        let owner = programName == "urna" ? "Urna's" : "\(programName)'s"
        return .schemaMismatch(
            "\(names.joined(separator: ", ")) \(one ? "is a view, not \(owner) table" : "are views, not \(owner) tables") "
                + "of \(schema.family): SQLite runs a view's SQL whenever it is read (it can answer made-up rows or "
                + "never end); nothing was read or changed: restore the file from a backup (\(programName) restore "
                + "--db \(path))")
    }

    /// The text SQLite keeps in `sqlite_master.sql` for the view's `createSQL`: SQLite drops the final `;` and
    /// whatever follows it, so the code's own text is not always what a file made from it holds. The view is created
    /// in a private in-memory database (CREATE VIEW does not need the tables it names) and read back; nil when SQLite
    /// will not create it there.
    private static func storedSQL(of v: SchemaView) -> String? {
        guard let scratch = try? Connection(path: ":memory:"), (try? scratch.execute(v.createSQL)) != nil,
            case .text(let s)? = try? scratch.scalar(
                "SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?1", [.text(v.name)])
        else { return nil }
        return s
    }

    /// The error for `replacedViews`, naming the file, the views and the way back.
    package static func replacedViewsError(_ names: [String], path: String, schema: Schema) -> StoreError {
        let list = names.joined(separator: ", ")
        let one = names.count == 1
        return .schemaMismatch(
            "\(one ? "the view" : "the views") \(list) \(one ? "is" : "are") not the \(one ? "one" : "ones") "
                + "\(schema.family) version \(schema.version) defines (the file holds other SQL under "
                + "\(one ? "that name" : "those names"), which every query naming \(one ? "it" : "them") would run); "
                + "nothing was read or changed: restore the file from a backup, or drop \(one ? "it" : "them") if you "
                + "made \(one ? "it" : "them") (sqlite3 \(path) 'DROP VIEW \"\(names[0])\"')")
    }

    /// Whitespace runs as one space: the same statement however its lines were broken.
    private static func collapsed(_ sql: String) -> String {
        sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
    }
}
