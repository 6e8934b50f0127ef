import Foundation
import UrnaImport
import UrnaMigrator
import UrnaPostgres
import UrnaStore

/// `urna copy`: an object graph from an SQLite file into a PostgreSQL database, or back.
enum CopyCommand {
    /// The spec for the running command line: an app's executable names its own data.
    static var spec: CommandSpec { spec(data: CommandContext.current.dataName) }

    static func spec(data: String) -> CommandSpec {
        CommandSpec(
            name: "copy", abstract: "Copy a database between an SQLite file and PostgreSQL, in one transaction.",
            usage: "urna copy --from FILE|URL --to URL|FILE [--replace [--allow-triggers]]",
            discussion: """
                Copies every table of the family (objects, links, lists), _urna_schema and _urna_history, with each
                value converted by its property's type: exact money as numeric, dates as timestamptz, embedded
                objects as jsonb (README: storage contract). One side is an SQLite file, the other a
                postgresql://USER@HOST:PORT/DB URL (PG* environment variables fill in what the URL leaves out).
                Into PostgreSQL: one transaction; a database that already holds \(data) is refused unless
                --replace, and a table outside the families is never touched; triggers made on the server on the
                family's tables are refused by name unless --allow-triggers (a new schema sets them aside and makes
                them again instead). Into a file: the file must not exist; it
                appears complete or not at all. Tables and views outside the family (your own, an FTS index) are
                not copied; a warning names each one.
                """,
            options: [
                .value("from", "FILE|URL", "Where the data is."),
                .value("to", "URL|FILE", "Where it goes."),
                .flag("replace", "Replace the \(data) a PostgreSQL database already holds."),
                .flag(
                    "allow-triggers",
                    "With --replace, let triggers made on the server on the family's tables run as they are refilled."),
            ],
            positionals: [], minPositionals: 0, maxPositionals: 0,
            examples: [
                "urna copy --from urna.sqlite --to postgresql://urna@127.0.0.1:5432/tse",
                "urna copy --from postgresql://urna@127.0.0.1:5432/tse --to tse-copy.sqlite",
            ])
    }

    static var command: Command { Command(spec: spec, run: run) }

    @Sendable static func run(_ p: ParsedArguments) throws -> Int32 {
        guard let from = p.value("from"), let to = p.value("to") else {
            throw UsageError("--from and --to are both required")
        }
        switch (PostgresURL.isPostgres(from), PostgresURL.isPostgres(to)) {
        case (false, true):
            return try fileToPostgres(from, to, replace: p.has("replace"), allowTriggers: p.has("allow-triggers"))
        case (true, false):
            if p.has("replace") {
                throw UsageError("--replace is for PostgreSQL targets: a file target must not exist")
            }
            return try postgresToFile(from, to)
        case (false, false):
            throw UsageError("both are SQLite files: copy the file itself (sqlite3 FROM \".backup TO\")")
        case (true, true):
            throw UsageError("both are PostgreSQL databases: use pg_dump | psql, or copy through a file")
        }
    }

    static func fileToPostgres(_ file: String, _ url: String, replace: Bool, allowTriggers: Bool = false) throws
        -> Int32
    {
        try InputChecks.checkDatabase(file, option: "--from")
        guard FileManager.default.fileExists(atPath: file) else {
            throw CLIError(ExitCode.missingInput, "\(file) does not exist: give --from the path of an Urna file")
        }
        try HotJournal.recoverIfNeeded(file)
        let sqlite = try Connection(path: file, readOnly: true, create: false)
        try sqlite.execute("BEGIN")  // one snapshot, whatever writes the file meanwhile
        guard let schema = try Store.recordedSchema(in: sqlite) else {
            throw CLIError(
                ExitCode.badData, "\(file) is not an Urna file (it has no \(StorageLayout.schemaTable) table)")
        }
        let target = try PostgresStaging.openWorkingCopy(url, writing: true)
        if let old = target.recorded, !replace {
            throw CLIError(
                ExitCode.failure,
                "\(target.connection.displayName) already holds \(CommandContext.current.dataName) (\(old.family) version \(old.version)); "
                    + "nothing was changed: add --replace to replace it with \(file)'s")
        }
        target.allowTriggers = allowTriggers
        // Before any row moves: the same schema is refilled in place, where the server's triggers would run.
        try target.refuseBeforeWork(
            refill: target.recorded.map { SchemaDescriptor.encode($0) == SchemaDescriptor.encode(schema) } ?? false)
        let counts = try target.commit(from: sqlite, resolve: PostgresStaging.codeSchema)
        TypedText.report(summary(from: file, to: target.connection.displayName, schema: schema, counts: counts))
        PostgresStaging.reportTriggers(of: target)
        let relations = try sqlite.rows(
            "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
        ).map { ("\($0[0])", "\($0[1])") }
        warnNotCopied(relations, copied: counts, schema: schema, from: file)
        return ExitCode.ok
    }

    static func postgresToFile(_ url: String, _ file: String) throws -> Int32 {
        try InputChecks.checkDatabase(file, option: "--to")
        if FileManager.default.fileExists(atPath: file) {
            FileCopy.removeStaleTemporaries(near: file)  // a killed copy's second name for the file, if any
            throw CLIError(ExitCode.failure, "\(file) already exists; copy never replaces a file: give --to a new path")
        }
        try requireWritableDatabase(file, command: "\(CommandContext.current.toolName) copy")
        let pg = try PostgresConnection(url)
        try pg.execute("SET lock_timeout = \(PostgresStaging.lockTimeoutMilliseconds)")
        try PostgresTransfer.beginSnapshot(pg)
        defer { try? pg.execute("ROLLBACK") }
        // Written under a temporary name in the same folder, then linked into place: never half a file.
        FileCopy.removeStaleTemporaries(near: file)  // of copies killed before they could clean up
        let temporary = FileCopy.temporaryName(for: file)
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporary + s) } }
        guard
            let recorded = try PostgresTransfer.recordedSchema(in: pg)
        else {
            throw CLIError(
                ExitCode.missingInput,
                "\(pg.displayName) holds no \(CommandContext.current.dataName) (no \(StorageLayout.schemaTable) table)")
        }
        var counts: PostgresTransfer.Counts = []
        let freeBefore = Migrator.freeBytes(near: file)
        let schema: Schema
        do {
            schema =
                try PostgresTransfer.pull(
                    from: pg, to: temporary, pageSize: recorded.family == "elections" ? Importer.pageSize : nil,
                    resolve: PostgresStaging.codeSchema, progress: { counts.append(($0, $1)) }) ?? recorded
        } catch let e as SQLiteError where e.isDiskFull {
            // It said "the disk holding the database is full", naming neither the file nor any size.
            let written = ["", "-journal", "-wal"].reduce(Int64(0)) { $0 + FileCopy.size(temporary + $1) }
            throw CLIError(
                ExitCode.failure,
                "cannot write \(file): the disk holding it is full: the copy had written \(SpaceNeed.megabytes(written)) "
                    + "(the file and its journal) when it filled, of the "
                    + (freeBefore.map { "\(SpaceNeed.megabytes($0))" } ?? "unknown room")
                    + " free when it began, and needs more; nothing was written: free some space or give --to a path "
                    + "on another disk")
        }
        guard link(temporary, file) == 0 else {
            throw CLIError(
                ExitCode.failure, "cannot create \(file): \(String(cString: strerror(errno))); nothing was written")
        }
        // At once, not at the end: a kill while the summary was printed left the file with two names, and every
        // writing command refuses a file with two names.
        unlink(temporary)
        TypedText.report(summary(from: pg.displayName, to: file, schema: schema, counts: counts))
        let relations = try pg.query(
            "SELECT CASE WHEN table_type = 'VIEW' THEN 'view' ELSE 'table' END, table_name FROM "
                + "information_schema.tables WHERE table_schema = $1::text ORDER BY table_name", [pg.schema]
        ).rows.map { ($0[0] ?? "table", $0[1] ?? "") }
        warnNotCopied(relations, copied: counts, schema: schema, from: pg.displayName)
        return ExitCode.ok
    }

    /// Tables and views of the source that are not the family's (a user's own, an FTS index): copy moves only
    /// the family's object graph, so it names the rest rather than leaving them behind without a word.
    static func warnNotCopied(
        _ relations: [(String, String)], copied: PostgresTransfer.Counts, schema: Schema, from: String
    ) {
        var own = Set(copied.map { $0.table.lowercased() })
        own.formUnion(schema.views.map { $0.name.lowercased() })
        // urna's own bookkeeping (`_urna_schema`, `_urna_history`, ...) is left out by its prefix below.
        let left = relations.filter { kind, name in
            let n = name.lowercased()
            return !own.contains(n) && !n.hasPrefix("sqlite_") && !n.hasPrefix("_urna_")
        }
        guard !left.isEmpty else { return }
        let listed = left.prefix(20).map { "\($0.1) (\($0.0))" }.joined(separator: ", ")
        let more = left.count > 20 ? " and \(left.count - 20) more" : ""
        CLI.printError(
            "warning: not copied, as they are not part of the \(schema.family) family: \(listed)\(more) in \(from); "
                + "copy them yourself if you need them (they were left as they are)")
    }

    static func summary(from: String, to: String, schema: Schema, counts: PostgresTransfer.Counts) -> String {
        let rows = counts.reduce(0) { $0 + $1.rows }
        let detail = counts.map { "\($0.table) \($0.rows)" }.joined(separator: ", ")
        return "copied \(from) to \(to): \(schema.family) version \(schema.version), \(rows) rows (\(detail))"
    }
}
