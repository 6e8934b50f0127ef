import Foundation
import UrnaImport
import UrnaPostgres
import UrnaStore

/// `--db postgresql://...` for the commands that work on an object graph (init, status, query, show, export,
/// import, migrate, adopt): the command runs unchanged on a private SQLite working copy of the database's Urna tables,
/// made inside one PostgreSQL transaction, and a command that writes puts the result back in that same
/// transaction. So every rule (identity, precedence, upserts, migrations and their checks) is the one the
/// SQLite files have, and every write is all-or-nothing on the server: a failure, a signal or a kill rolls the
/// transaction back and the database is as it was.
///
/// Writers take an advisory lock (two urna runs never interleave) and lock Urna's tables against other
/// writers for the run; `lock_timeout` turns a long wait into a clear message. Readers work on a REPEATABLE
/// READ snapshot of the last commit (they wait while a writer refills the tables: `PostgresWorkingCopy`). The cost is a full copy each way per command:
/// fine for one election's files, slow for every election since 1994 (README: Limitations).
enum PostgresStaging {
    /// How long to wait for another writer's locks before giving up (URNA_PG_LOCK_TIMEOUT overrides, in ms).
    static var lockTimeoutMilliseconds: Int {
        ProcessInfo.processInfo.environment["URNA_PG_LOCK_TIMEOUT"].flatMap(Int.init) ?? 30_000
    }

    enum Mode {
        case read
        case write
    }

    /// Whether this command line writes, or why it cannot run on PostgreSQL.
    static func mode(of command: String, _ p: ParsedArguments) throws -> Mode {
        switch command {
        case "status", "query", "show", "export": return .read
        case "migrate":
            if p.has("vacuum") {
                throw UsageError(
                    "--vacuum compacts SQLite files; on PostgreSQL run VACUUM (or let autovacuum do it)")
            }
            return p.has("dry-run") ? .read : .write
        case "init": return .write
        case "import":
            if p.has("datasette-metadata") {
                throw UsageError(
                    "--datasette-metadata describes SQLite files for Datasette; it has no meaning on PostgreSQL")
            }
            return .write
        case "restore":
            throw UsageError(
                "PostgreSQL databases have no migration backup file: each migrate run is one transaction "
                    + "(a failure changes nothing); restore from your own pg_dump")
        case "adopt": return p.has("dry-run") ? .read : .write
        default:
            throw UsageError("\(command) works on SQLite files only")
        }
    }

    /// Runs `command` against the PostgreSQL database at `location`.
    static func run(_ command: Command, _ parsed: ParsedArguments, location: String) throws -> Int32 {
        let name = command.spec.name
        let mode = try mode(of: name, parsed)
        if name == "query", let code = try QueryCommand.runOnPostgres(parsed, location: location) { return code }
        if name == "status", let code = try StatusCommand.runOnPostgres(parsed, location: location) { return code }
        // adopt on a database without Urna data: the plain tables named as the family version's types.
        var adoptable: Schema?
        if name == "adopt", let family = parsed.value("family").flatMap(CommandContext.current.family(named:)),
            let version = try? parsed.int("version")
        {
            adoptable = family.schema(version: version)
        }
        let copy = try openWorkingCopy(location, writing: mode == .write, lockTables: adoptable)
        let old = copy.recorded
        let adopted = old == nil ? adoptable : nil
        let display = copy.connection.displayName
        if old == nil, adopted == nil, mode == .read || name == "migrate" { throw noUrnaData(display) }
        if let old, name == "init" {
            throw CLIError(
                ExitCode.failure,
                "\(display) already holds \(CommandContext.current.dataName) (\(old.family) version \(old.version)); init never "
                    + "replaces data: use another database")
        }
        if mode == .write {
            // Refused now, not after the whole command ran on the working copy. An import refills the tables in
            // place, so the server's triggers on them would run (--allow-triggers lets them); a migration or
            // an adoption creates them anew and makes those triggers again afterwards instead.
            copy.allowTriggers = parsed.has("allow-triggers")
            try copy.refuseBeforeWork(refill: name == "import")
        }
        if let adopted {
            try copy.materializePlainTables(named: PostgresLayout.tableNames(for: adopted))
        } else {
            try copy.materialize(pageSize: old?.family == "elections" ? Importer.pageSize : nil, resolve: codeSchema)
        }
        var args = parsed
        args.values["db"] = [copy.path]
        if name == "import", args.value("rejects") == nil {
            // The default (<db>.rejects.csv) would sit in the private folder and vanish with it.
            // Chosen here, not by the user: a FIFO or device planted at the name gets no row (a numbered name does).
            args.programDefaults["rejects"] = FileManager.default.currentDirectoryPath + "/urna-postgres.rejects.csv"
        }
        if name == "migrate", args.value("backup") == nil {
            // The transaction is the safety net: a failed run leaves the database untouched.
            args.flags.insert("no-backup")
        }
        DatabaseName.stage(copy.path, as: display)
        defer { DatabaseName.unstage() }
        let code: Int32
        do {
            code = try command.run(args)
        } catch let e as UsageError {
            throw e
        } catch let e as CLIError {
            throw CLIError(e.code, DatabaseName.named(e.message, copy.path))
        } catch {
            // Messages name the database, never the private working copy.
            let (c, message) = CLI.classify(error, database: display)
            throw CLIError(c, DatabaseName.named(message, copy.path))
        }
        guard mode == .write, code == ExitCode.ok else { return code }
        if name == "migrate", let old, try unchanged(old, at: copy.path) {
            // Nothing to migrate: the server's rows stay as they are (no refill, no triggers, no new row versions).
            try copy.rollback()
            return code
        }
        let counts: PostgresTransfer.Counts
        do {
            counts = try copy.commit(replacing: adopted, resolve: codeSchema)
        } catch {
            throw commitFailure(error, command: name, display: display, path: copy.path)
        }
        if !parsed.has("quiet") && !parsed.has("json") {
            let rows = counts.reduce(0) { $0 + $1.rows }
            CLI.printError("stored in \(display): \(rows) rows in \(counts.count) tables, in one transaction")
            reportTriggers(of: copy)
        }
        return code
    }

    /// What to say when storing the working copy failed. The command's own summary is already printed: say
    /// plainly that none of it reached the server, or, when the connection went while COMMIT was on its way,
    /// that the outcome is unknown (and how to look, with the program's own name, `tool`).
    static func commitFailure(
        _ error: any Error, command name: String, display: String, path: String,
        tool: String = CommandContext.current.toolName
    ) -> CLIError {
        if let lost = error as? PostgresWorkingCopy.CommitOutcomeUnknown {
            return CLIError(
                ExitCode.failure,
                "`\(name)` ran on a private working copy, and while storing it: "
                    + lost.description(programName: tool))
        }
        let (c, message) = CLI.classify(error, database: display)
        return CLIError(
            c == ExitCode.ok ? ExitCode.failure : c,
            "\(display) was not changed: `\(name)` ran on a private working copy, and storing that copy in "
                + "\(display) failed in its one transaction, which was rolled back (\(DatabaseName.named(message, path))). "
                + "Any summary printed above describes the working copy only.")
    }

    /// Whether the working copy at `path` still records `schema` (a migrate that found nothing to do).
    static func unchanged(_ schema: Schema, at path: String) throws -> Bool {
        guard let now = try Store.recordedSchema(in: try Connection(path: path, create: false)) else { return false }
        return SchemaDescriptor.encode(now) == SchemaDescriptor.encode(schema)
    }

    /// The error for a database without Urna tables, which a reader cannot use.
    static func noUrnaData(_ display: String) -> CLIError {
        CLIError(
            ExitCode.missingInput,
            "\(display) holds no \(CommandContext.current.dataName) (no \(StorageLayout.schemaTable) table): create it with "
                + "`\(CommandContext.current.toolName) init --db URL --family NAME` or "
                + "`\(CommandContext.current.toolName) import --db URL FILES`")
    }

    /// A working copy of the database at `location`, with urna's lock wait; a timeout says how to wait longer.
    static func openWorkingCopy(_ location: String, writing: Bool, lockTables: Schema? = nil) throws
        -> PostgresWorkingCopy
    {
        do {
            return try PostgresWorkingCopy(
                url: location, writing: writing, lockTimeoutMilliseconds: lockTimeoutMilliseconds,
                lockTables: lockTables)
        } catch let e as PostgresWorkingCopy.LockTimeout {
            throw CLIError(ExitCode.failure, "\(e); or set URNA_PG_LOCK_TIMEOUT (milliseconds) to wait longer")
        }
    }

    /// The code's own schema when it equals the recorded one (it carries the views' SQL).
    static func codeSchema(_ recorded: Schema) -> Schema {
        guard let code = CommandContext.current.family(named: recorded.family)?.schema(version: recorded.version),
            SchemaDescriptor.encode(code) == SchemaDescriptor.encode(recorded)
        else { return recorded }
        return code
    }
    /// Names on stderr the server's triggers a commit of `copy` ran (`--allow-triggers`) or set aside and made
    /// again; nothing when there were none.
    static func reportTriggers(of copy: PostgresWorkingCopy) {
        if !copy.triggersRan.isEmpty {
            CLI.printError(
                "triggers that ran on the server (--allow-triggers), once for every row put back: "
                    + copy.triggersRan.map(\.qualifiedName).joined(separator: ", "))
        }
        if !copy.triggersRemade.isEmpty {
            CLI.printError(
                "triggers set aside and made again on the new tables (they did not run): "
                    + copy.triggersRemade.map(\.qualifiedName).joined(separator: ", "))
        }
    }
}

/// What messages call the database: the PostgreSQL URL (password hidden) while a command runs on its
/// private working copy, the path otherwise.
enum DatabaseName {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var staged: (path: String, name: String)?

    static func of(_ path: String) -> String {
        lock.lock()
        defer { lock.unlock() }
        if let staged, staged.path == path { return staged.name }
        return path
    }

    /// `text` with the working copy's path replaced by the database's name.
    static func named(_ text: String, _ path: String) -> String {
        let name = of(path)
        return name == path ? text : text.replacingOccurrences(of: path, with: name)
    }

    static func stage(_ path: String, as name: String) {
        lock.lock()
        staged = (path, name)
        lock.unlock()
    }

    static func unstage() {
        lock.lock()
        staged = nil
        lock.unlock()
    }
}
