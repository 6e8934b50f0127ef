import Foundation
import UrnaMigrator
import UrnaStore

/// `urna sql`: one SQL statement against the file, read-only unless `--write`, rows streamed as they come.
enum SQLCommand {
    static let spec = CommandSpec(
        name: "sql", abstract: "Run one SQL statement (read-only) and print its rows as a table, CSV or JSON.",
        usage: "urna sql [--db PATH] SQL [--table|--csv|--json] [--param NAME=VALUE]... [--write [--allow-triggers]]",
        discussion: """
            For what `urna query` cannot say: GROUP BY, sums, joins. The tables are the file's object types
            (`urna schema --family NAME` lists their columns; links hold the target's key, decimals are exact
            integers of their smallest unit: cents for money). The file is opened read-only: a statement
            that would write (INSERT, UPDATE, DELETE, CREATE, DROP, ...) is refused unless --write, which runs it
            in one transaction, and rolled back if it would change the family's own tables (a DROP TABLE of
            one of its types, a dropped column or index: use a migration step for those; tables and indexes of your
            own are fine), or if it sets off a trigger the file holds (unless --allow-triggers), or changes the
            _urna_* tables (the schema, the history, the other records kept there), application_id or
            user_version.
            Values go in with --param NAME=VALUE as :NAME (a plain whole number binds as an
            integer, anything else as text), never pasted into the SQL. Strings in SQL take single quotes
            ('PT'); double quotes name columns. Rows are printed as they come: --table (the default) takes its
            column widths from the first 1,000 rows. Bad SQL exits 64 with SQLite's message and the place.
            """,
        options: [
            .value("db", "PATH", "Database file (default: urna.sqlite)."),
            .flag("table", "Print aligned columns with a header (the default)."),
            .flag("csv", "Print CSV with a header row."),
            .flag("json", "Print a JSON array of objects keyed by column name."),
            .value("param", "NAME=VALUE", "Bind VALUE to :NAME in the SQL (repeatable).", repeatable: true),
            .flag("write", "Allow a statement that changes the file (run in one transaction)."),
            .flag(
                "allow-triggers",
                "With --write, let triggers the file (or the PostgreSQL database) holds run (else the statement is "
                    + "rolled back)."),
        ],
        positionals: [("SQL", "One SQL statement, e.g. \"SELECT count(*) FROM sqlite_master\".")],
        minPositionals: 1, maxPositionals: 1,
        examples: [
            "urna sql --db urna.sqlite \"SELECT state, count(*) AS candidacies FROM Candidate GROUP BY state\"",
            "urna sql --db urna.sqlite \"SELECT p.acronym, count(*) AS n FROM Candidate c JOIN Party p ON p.id = c.party GROUP BY p.acronym ORDER BY n DESC LIMIT 5\" --csv",
            "urna sql --db urna.sqlite \"SELECT sum(value) / 100.0 AS reais FROM Good WHERE candidacy IN (SELECT id FROM Candidate WHERE sequence = :sq)\" --param sq=130000600702 --json",
        ])

    enum Format { case table, csv, json }

    /// The output format and the `--param` pairs of a command line.
    static func options(_ p: ParsedArguments) throws -> (Format, [(name: String, value: String)]) {
        let chosen = [("table", Format.table), ("csv", .csv), ("json", .json)].filter { p.has($0.0) }
        guard chosen.count <= 1 else { throw UsageError("choose one of --table, --csv and --json") }
        let parameters = try (p.values["param"] ?? []).map { pair -> (name: String, value: String) in
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                throw UsageError("--param takes NAME=VALUE, not '\(pair)'")
            }
            var name = String(pair[..<eq])
            if let first = name.first, ":@$".contains(first) { name.removeFirst() }
            return (name, String(pair[pair.index(after: eq)...]))
        }
        var seen = Set<String>()
        for (name, _) in parameters where !seen.insert(name).inserted {
            throw UsageError("--param \(name) is given twice: give each name once")
        }
        return (chosen.first?.1 ?? .table, parameters)
    }

    static let command = Command(spec: spec) { p in
        let (format, parameters) = try options(p)
        let path = databasePath(p)
        let write = p.has("write")
        if write { try requireWritableDatabase(path, command: "urna sql --write") }
        let store = try openExistingStore(path, readOnly: !write)
        let connection = store.connection
        connection.allowRawTransactionsFromOneThread()  // this command's one thread runs BEGIN ... COMMIT itself
        if !write { try connection.execute("PRAGMA query_only = 1") }
        // Triggers are SQL the file carries: one that a --write statement sets off (a planted `AFTER UPDATE ON
        // Party BEGIN DELETE FROM Good; END` under "1 row changed") is rolled back unless --allow-triggers.
        let triggers = write ? TriggerWatch(connection) : nil
        let statement = try SQLStatement(p.positionals[0], on: connection)
        if statement.writes && !write {
            throw UsageError(
                "this statement would change the file, and \(CommandContext.current.toolName) sql is read-only: add "
                    + "--write to run it "
                    + "(in one transaction), or work on a copy")
        }
        try statement.bind(parameters)
        if write { try connection.execute("BEGIN IMMEDIATE") }
        do {
            // The family's tables as they should be, and how they differ before the statement (a file can drift
            // already): a statement that adds a difference is rolled back.
            let expected = write ? try DatabaseShape.expected(for: store.schema) : nil
            let shapeBefore = try expected.map { try familyDifferences(connection, expected: $0) } ?? []
            let recordsBefore = write ? try bookkeeping(connection) : []
            let rows = try printRows(of: statement, as: format)
            if let expected {
                let changed = connection.changes
                if let fired = triggers?.fired, !fired.isEmpty, !p.has("allow-triggers") {
                    try? connection.execute("ROLLBACK")
                    let names = fired.map { Identifier.quoted($0) }.joined(separator: ", ")
                    throw CLIError(
                        ExitCode.badData,
                        "the statement set off \(fired.count == 1 ? "a trigger" : "\(fired.count) triggers") the file "
                            + "holds (\(names)), SQL of the file's own that urna does not run unasked; it was rolled "
                            + "back (nothing was changed): pass --allow-triggers to let \(fired.count == 1 ? "it" : "them") "
                            + "run, or drop \(fired.count == 1 ? "it" : "them") (DROP TRIGGER \(Identifier.quoted(fired[0])))"
                    )
                }
                var added = try familyDifferences(connection, expected: expected).filter { !shapeBefore.contains($0) }
                added += zip(recordsBefore, try bookkeeping(connection)).filter { $0.0.values != $0.1.values }.map {
                    "\($0.0.what) changed"
                }
                guard added.isEmpty else {
                    try? connection.execute("ROLLBACK")
                    throw CLIError(
                        ExitCode.badData,
                        "this statement changes the \(store.schema.family) family's tables or what urna records about the file, which its imports and "
                            + "migrations rely on: " + added.joined(separator: "; ")
                            + "; it was rolled back (nothing was changed): change them with a migration step instead")
                }
                try connection.execute("COMMIT")
                let ran = triggers?.fired ?? []
                CLI.printError(
                    "\(changed) row\(changed == 1 ? "" : "s") changed"
                        + (ran.isEmpty ? "" : " (and what the triggers \(ran.joined(separator: ", ")) changed)"))
            } else if format == .table {
                CLI.printError("\(rows) row\(rows == 1 ? "" : "s")")
            }
        } catch {
            if write { try? connection.execute("ROLLBACK") }
            throw error
        }
        return ExitCode.ok
    }

    /// What urna records about the file besides its tables, each with the words that name it: the schema it
    /// records (`_urna_schema`: an edited descriptor left every command refusing the file), its migration history,
    /// and the header's `application_id` (non-zero: urna takes the file for another application's and refuses it)
    /// and `user_version` (the version the descriptor records).
    static func bookkeeping(_ c: Connection) throws -> [(what: String, values: [[SQLValue]])] {
        [
            (
                "the recorded schema (\(StorageLayout.schemaTable))",
                try c.rows("SELECT * FROM \(StorageLayout.schemaTable)")
            ),
            (
                "the migration history (\(StorageLayout.historyTable))",
                // (Files made before the history existed have none: nothing to change there.)
                (try? c.rows("SELECT * FROM \(StorageLayout.historyTable) ORDER BY rowid")) ?? []
            ),
            ("the file's application_id", try c.rows("PRAGMA application_id")),
            ("the file's user_version", try c.rows("PRAGMA user_version")),
            ("urna's own tables (_urna_*: which exist, their definitions and row counts)", try urnaTables(c)),
        ]
    }

    /// Every `_urna_*` table with its SQL and row count: the generations values are known since
    /// (`_urna_field_generations`) and goods waiting for their candidacy (`_urna_pending_goods`) could be dropped
    /// or emptied unseen, and so could an empty `_urna_history`.
    static func urnaTables(_ c: Connection) throws -> [[SQLValue]] {
        try c.rows(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_urna\\_%' ESCAPE '\\' ORDER BY name"
        ).map { row in
            guard case .text(let name) = row[0] else { return row }
            return row + [.integer(try c.integer("SELECT count(*) FROM \(Identifier.quoted(name))"))]
        }
    }

    /// How the file's tables differ from its family's storage contract (tables and indexes of its own are not
    /// differences).
    static func familyDifferences(_ c: Connection, expected: DatabaseShape) throws -> [String] {
        try DatabaseShape.read(c).differences(
            from: expected, allowExtraIndexes: true, allowExtraTables: true, compareTableText: false)
    }

    /// Streams the rows to stdout; returns how many there were.
    static func printRows(of statement: SQLStatement, as format: Format) throws -> Int {
        try printRows(names: statement.columnNames, next: { try statement.step() ? statement.row() : nil }, as: format)
    }

    /// Streams rows from `next` (nil at the end) to stdout; returns how many there were.
    static func printRows(names: [String], next: () throws -> [SQLValue]?, as format: Format) throws -> Int {
        var count = 0
        var buffer = ""
        // A full disk or a closed stdout: the first failed write is kept and said at the end (it crashed the
        // process: FileHandle.write(_:) traps on an error).
        var writeError: Error?
        func emit(_ s: String) {
            buffer += s
            buffer += "\n"
            if buffer.utf8.count > 1 << 16 { flush() }
        }
        func flush() {
            if writeError == nil {
                do { try FileHandle.standardOutput.write(contentsOf: Data(buffer.utf8)) } catch { writeError = error }
            }
            buffer = ""
        }
        switch format {
        case .csv:
            if !names.isEmpty { emit(names.map(CSVText.field).joined(separator: ",")) }
            var formulas = CSVText.FormulaCells()
            while let row = try next() {
                count += 1
                let cells = row.map(plain)
                for (i, cell) in cells.enumerated() {
                    formulas.note(cell, row: count, column: i < names.count ? names[i] : "\(i + 1)")
                }
                emit(cells.map(CSVText.field).joined(separator: ","))
            }
            formulas.warn()
        case .json:
            buffer = "["
            while let row = try next() {
                buffer += count == 0 ? "\n" : ",\n"
                count += 1
                let pairs = zip(names, row).map { ($0, json($1)) }
                buffer += JSONText.object(pairs)
                if buffer.utf8.count > 1 << 16 { flush() }
            }
            emit(count == 0 ? "]" : "\n]")
        case .table:
            var table: TableText?
            while let row = try next() {
                count += 1
                if table == nil {
                    table = TableText(header: names, rightAligned: row.map(isNumber)) { emit($0) }
                }
                table!.add(row.map(plain))
            }
            if table == nil, !names.isEmpty { table = TableText(header: names) { emit($0) } }
            table?.finish()
        }
        flush()
        if let writeError {
            let posix = (writeError as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            throw CLIError(
                ExitCode.failure,
                "cannot write standard output (\(posix.map { String(cString: strerror(Int32($0.code))) } ?? "\(writeError)")); "
                    + "the rows were not all written")
        }
        return count
    }

    static func plain(_ v: SQLValue) -> String {
        switch v {
        case .null: ""
        case .integer(let i): String(i)
        case .real(let d): real(d)
        case .text(let s): s
        case .blob(let b): Data(b).base64EncodedString()
        }
    }

    static func json(_ v: SQLValue) -> String {
        switch v {
        case .null: "null"
        case .integer(let i): String(i)
        case .real(let d): d.isFinite ? real(d) : "null"
        case .text(let s): JSONText.string(s)
        case .blob(let b): JSONText.string(Data(b).base64EncodedString())
        }
    }

    /// A real as SQLite's own shell prints it: 15 significant digits, so a sum of reais reads
    /// 69752863.96 and not 69752863.960000008 (binary noise beyond what a double holds exactly).
    static func real(_ d: Double) -> String {
        guard d.isFinite else { return String(d) }
        let text = String(format: "%.15g", d)
        return text.contains(where: { $0 == "." || $0 == "e" }) ? text : text + ".0"
    }

    static func isNumber(_ v: SQLValue) -> Bool {
        switch v {
        case .integer, .real: true
        default: false
        }
    }
}
