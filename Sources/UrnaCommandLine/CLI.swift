import Foundation
import UrnaImport
import UrnaMigrator
import UrnaPostgres
import UrnaStore

/// Exit codes, as README documents them.
enum ExitCode {
    static let ok: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    static let badData: Int32 = 65
    static let missingInput: Int32 = 66
}

/// An error that already knows its exit code and message.
struct CLIError: Error {
    let code: Int32
    let message: String
    init(_ code: Int32, _ message: String) {
        self.code = code
        self.message = message
    }
}

/// One subcommand: its spec and what it does.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws -> Int32
}

enum CLI {
    /// The release this build is: the latest version in CHANGELOG.md (a test keeps the two equal).
    static let version = "0.5.0"

    static var commands: [Command] {
        let all = [
            InitCommand.command, StatusCommand.command, QueryCommand.command, SQLCommand.command,
            SchemaCommand.command, ImportCommand.command, ShowCommand.command, MigrateCommand.command,
            ExportCommand.command, AdoptCommand.command, RestoreCommand.command, DownloadCommand.command,
            DatasetteMetadataCommand.command, CopyCommand.command, CompletionCommand.command,
        ]
        // The TSE commands belong to the elections family: an app's own command line without it has none.
        if CommandContext.current.family(named: "elections") != nil { return all }
        return all.filter { !tseOnly.contains($0.spec.name) }
    }

    /// Commands that read or show TSE data, offered only with the elections family.
    static let tseOnly: Set<String> = ["import", "show", "download"]

    static func overview() -> String {
        let context = CommandContext.current
        let tool = context.toolName
        let about =
            context.family(named: "elections") != nil
            ? """
            load Brazil's TSE candidate dumps into a clean object graph in plain SQLite,
            and upgrade those files safely from one schema version to the next.
            """
            : """
            the data of \(context.familyNames) in plain SQLite files, upgraded safely from one
            schema version to the next (every upgrade previewed with --dry-run first).
            """
        var s = """
            OVERVIEW: \(tool) — \(about)

            USAGE: \(tool) <subcommand> [options]

            SUBCOMMANDS:

            """
        for c in commands {
            s += "  " + c.spec.name.padding(toLength: 20, withPad: " ", startingAt: 0) + c.spec.abstract + "\n"
        }
        s += """

            OPTIONS:
              -h, --help      Show help (also: \(tool) <subcommand> --help).
              --version       Show the version.

            Default database: \(context.defaultDatabase) in the current folder (--db PATH to choose another).
            Exit codes: 0 ok, 1 failure, 64 bad usage, 65 bad data, 66 missing input.
            Interrupted (SIGINT, SIGTERM, SIGHUP): 130, 143, 129, and nothing was changed.

            """
        s += "\nEXAMPLES:\n" + overviewExamples().map { "  \($0)\n" }.joined()
        return s
    }

    static func main(_ args: [String]) -> Int32 {
        let tool = CommandContext.current.toolName
        guard let first = args.first else {
            print(overview(), terminator: "")
            return ExitCode.ok
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", args.count > 1 {
                // `urna help qeury` printed the overview and exited 0, as if the name had been found.
                guard let c = commands.first(where: { $0.spec.name == args[1] }) else {
                    printError(unknownSubcommand(args[1]))
                    return ExitCode.usage
                }
                print(c.spec.helpText(), terminator: "")
            } else {
                print(overview(), terminator: "")
            }
            return ExitCode.ok
        }
        if first == "--version" {
            // An app's own version, then the urna it is built on ("school-app 4.0 (urna 0.5.0)"): urna's number
            // alone under the app's name told its users a version the app never had.
            print(CommandContext.current.ledgerVersion)
            return ExitCode.ok
        }
        guard let command = commands.first(where: { $0.spec.name == first }) else {
            printError(unknownSubcommand(first))
            return ExitCode.usage
        }
        let rest = Array(args.dropFirst())
        // Help is asked for before `--` only: after it, `-h` is an argument (a file named -h to import).
        let options = rest.firstIndex(of: "--").map { Array(rest[..<$0]) } ?? rest
        if options.contains("--help") || options.contains("-h") {
            print(command.spec.helpText(), terminator: "")
            return ExitCode.ok
        }
        var database: String?
        do {
            let parsed = try ArgumentParser.parse(rest, spec: command.spec)
            if command.spec.options.contains(where: { $0.name == "db" }) {
                let location = databasePath(parsed)
                if PostgresURL.isPostgres(location) {
                    database = PostgresURL.redacted(location)
                    if command.spec.name == "sql" { return try SQLCommand.runOnPostgres(parsed, location: location) }
                    return try PostgresStaging.run(command, parsed, location: location)
                }
                database = databasePath(parsed)
                try InputChecks.checkDatabase(databasePath(parsed))
            }
            return try command.run(parsed)
        } catch let e as UsageError {
            printError(
                "Error: \(e.message)\nUsage: \(ToolName.apply(command.spec.usage))\n"
                    + "See '\(tool) \(command.spec.name) --help'.")
            return ExitCode.usage
        } catch let e as CLIError {
            printError("Error: \(e.message)")
            return e.code
        } catch {
            let (code, message) = classify(error, database: database)
            printError("Error: \(message)")
            return code
        }
    }

    /// A first session with the tool, for the overview: TSE files in and out with the elections family, else a
    /// file of the app's first family made, checked and upgraded.
    static func overviewExamples() -> [String] {
        let context = CommandContext.current
        let tool = context.toolName
        if context.family(named: "elections") != nil {
            return [
                "\(tool) import --db urna.sqlite SampleData/consulta_cand_2018_MG.csv SampleData/bem_candidato_2018_MG.csv",
                "\(tool) query --db urna.sqlite Candidate \"state == 'MG' AND postCode == 3\" --fields nickname,party.acronym",
                "\(tool) migrate --db old.sqlite --dry-run",
            ]
        }
        guard let family = context.families.first else { return [] }
        let file = "\(family.name).sqlite"
        return [
            "\(tool) init --db \(file) --family \(family.name)", "\(tool) status --db \(file)",
            "\(tool) migrate --db \(file) --dry-run",
        ]
    }

    /// What `urna NAME` says when NAME is no subcommand: an option before the subcommand (`urna --verison`, `urna -v`)
    /// is named as an option, with the ones there are; a misspelt subcommand gets "did you mean".
    static func unknownSubcommand(_ name: String) -> String {
        let tool = CommandContext.current.toolName
        if name.hasPrefix("-") {
            var msg = "Error: unknown option '\(name)'"
            if let hint = ArgumentParser.suggestion(for: name, among: ["--help", "--version"]) {
                msg += "; did you mean '\(hint)'?"
            } else {
                msg += "; before a subcommand there are only -h (--help) and --version"
            }
            return msg + "\nRun '\(tool) --help' for the list of subcommands."
        }
        var msg = "Error: unknown subcommand '\(name)'"
        if let hint = ArgumentParser.suggestion(for: name, among: commands.map(\.spec.name)) {
            msg += "; did you mean '\(hint)'?"
        }
        return msg + "\nRun '\(tool) --help' for the list of subcommands."
    }

    /// Maps library errors to exit codes; `database` (the --db file, when the command has one) is named in
    /// messages about SQLite failures, which do not know the path themselves.
    static func classify(_ error: Error, database: String? = nil) -> (Int32, String) {
        // The command line's own errors already say their code and message (a download's "no member for SP"
        // was printed as `CLIError(code: 65, message: ...)` and exited 1).
        if let e = error as? CLIError { return (e.code, e.message) }
        if let e = error as? UsageError { return (ExitCode.usage, e.message) }
        if let e = error as? ExitCodeProviding {
            // Only the documented codes leave the tool; anything else a library suggests is a failure.
            let documented: Set<Int32> = [
                ExitCode.ok, ExitCode.failure, ExitCode.usage, ExitCode.badData, ExitCode.missingInput,
            ]
            return (documented.contains(e.exitCode) && e.exitCode != 0 ? e.exitCode : ExitCode.failure, "\(error)")
        }
        switch error {
        case let e as QueryPredicateError: return (ExitCode.usage, "\(e)")
        case let e as StoreError:
            switch e {
            case .unknownType, .unknownProperty: return (ExitCode.usage, "\(e)")
            default: return (ExitCode.badData, "\(e)")
            }
        case let e as SchemaError: return (ExitCode.badData, "\(e)")
        case let e as SQLiteError:
            let db = database ?? "the database"
            if e.isReadOnly { return (ExitCode.failure, "\(db) is read-only (\(e.message)); nothing was changed") }
            if e.isBusy {
                return (
                    ExitCode.failure,
                    "\(db) is locked by another process that is writing to it (\(e.message)); nothing was changed: try again when it finishes"
                )
            }
            if e.isDiskFull {
                return (
                    ExitCode.failure,
                    "the disk holding \(db) is full (\(e.message)); nothing was changed: free some space and run again"
                )
            }
            if e.primaryCode == 26 {  // SQLITE_NOTADB
                return (
                    ExitCode.badData,
                    "\(db) is not an SQLite database (\(e.message)): give --db the path of an Urna file"
                )
            }
            if e.primaryCode == 11 {  // SQLITE_CORRUPT
                return (
                    ExitCode.badData,
                    "\(db) is damaged (\(e.message)); nothing was changed: see `sqlite3 FILE 'PRAGMA "
                        + "integrity_check'` and restore the file from a backup (urna migrate keeps one as FILE.v<N>.bak)"
                )
            }
            if e.primaryCode == 14, let database, !FileManager.default.fileExists(atPath: folder(of: database)) {
                // `init --db nodir/x.sqlite` was told its folder "cannot be written" and to copy the file elsewhere.
                return (
                    ExitCode.failure,
                    "cannot create \(database): the folder \(folder(of: database)) does not exist; create it "
                        + "(mkdir -p \(folder(of: database))) or give another --db PATH; nothing was changed"
                )
            }
            if e.primaryCode == 14, let database, !isWritableFolder(of: database) {  // SQLITE_CANTOPEN
                let name = (database as NSString).lastPathComponent
                let walSize =
                    (try? FileManager.default.attributesOfItem(atPath: database + "-wal")[.size] as? NSNumber)?.intValue
                if (walSize ?? 0) > 0 {
                    return (
                        ExitCode.failure,
                        "cannot open \(database) (\(e.message)): its write-ahead log \(name)-wal holds changes "
                            + "not yet in the file, and SQLite needs to create \(name)-shm in the same folder to read them, which cannot be "
                            + "written; copy the file and its -wal to a writable place"
                    )
                }
                return (
                    ExitCode.failure,
                    "cannot open \(database) (\(e.message)): its folder cannot be written, and SQLite "
                        + "needs to create \(name)-shm there to read a file in WAL mode; copy the file to a writable place"
                )
            }
            return (ExitCode.failure, database.map { "\($0): \(e)" } ?? "\(e)")
        default: return (ExitCode.failure, "\(error)")
        }
    }

    static func printError(_ s: String) {
        if Interruption.signal != 0 { return }  // the error a signal caused: "interrupted: ..." says it all
        // A password typed into --db (even in a form urna did not take for a URL) is never echoed.
        // Names and values from files are in these messages: no escape sequence from a file reaches the terminal.
        let text = TerminalSafe.text(TypedText.shown(PostgresURL.maskCredentials(s)))
        StandardError.write(text.hasSuffix("\n") ? text : text + "\n")
    }
}

/// Errors from the libraries that know which exit code they mean.
protocol ExitCodeProviding { var exitCode: Int32 { get } }

/// Standard `--db` handling: the path given, or the program's default database (urna.sqlite for urna) here.
func databasePath(_ p: ParsedArguments) -> String { p.value("db") ?? CommandContext.current.defaultDatabase }

/// Whether the file at `path` opens as SQLite and has no `_urna_schema` table (a plain SQLite file).
func lacksRecordedSchema(_ path: String) -> Bool {
    guard let c = try? Connection(path: path, readOnly: true, create: false) else { return false }
    do { return try Store.recordedSchema(in: c) == nil } catch { return false }
}

/// Opens an existing Urna file, with exit code 66 when it is missing.
///
/// A read-only command reads everything from one snapshot: the store is returned inside a read
/// transaction (left open until the process ends) whose schema is the one the store was opened with. Without
/// it, each statement would see the file as it was at that moment, and a migration or import committing
/// while a command runs would mix the old and the new state in one output.
func openExistingStore(_ path: String, readOnly: Bool = false) throws -> Store {
    guard FileManager.default.fileExists(atPath: path) else {
        let tool = CommandContext.current.toolName
        throw CLIError(
            ExitCode.missingInput,
            "\(path) does not exist: give --db PATH, or create it with `\(tool) init`"
                + (CommandContext.current.family(named: "elections") != nil ? " or `\(tool) import`" : "")
                + FormerDefaultDatabase.hint(for: path))
    }
    try HotJournal.recoverIfNeeded(path)
    func open(readOnly: Bool) throws -> Store {
        do {
            return try Store.openExisting(
                path: path, readOnly: readOnly, programName: CommandContext.current.toolName)
        } catch {
            // An app's users know the app, not the library under it: a plain SQLite file is "not a school-app
            // file", with the app's `adopt` for it, as `migrate` says (status, query and export said "not an Urna
            // file").
            if CommandContext.current.toolName != "urna", lacksRecordedSchema(path) {
                throw CLIError(
                    ExitCode.badData, notOursMessage(path, reason: "no _urna_schema table", CommandContext.current))
            }
            throw unusableDescriptor(error, path: path, toolName: CommandContext.current.toolName) ?? error
        }
    }
    // The store opens with the recorded schema, which knows its views by checksum only: the code's version of it
    // says what SQL they must hold (a file's own `goods` answered `urna sql` and Datasette with made-up rows).
    func refuseReplacedViews(_ store: Store) throws {
        let code = PostgresStaging.codeSchema(store.schema)
        let planted = try Store.tablesHeldAsViews(of: code, in: store.connection)
        guard planted.isEmpty else {
            throw CLIError(
                ExitCode.badData,
                "\(path): "
                    + "\(Store.tablesHeldAsViewsError(planted, path: path, schema: code, programName: CommandContext.current.toolName))"
            )
        }
        let replaced = try Store.replacedViews(of: code, in: store.connection)
        guard replaced.isEmpty else {
            throw CLIError(ExitCode.badData, "\(path): \(Store.replacedViewsError(replaced, path: path, schema: code))")
        }
    }
    guard readOnly else {
        let store = try open(readOnly: false)
        try refuseReplacedViews(store)
        return store
    }
    for _ in 0..<10 {
        let store = try open(readOnly: true)
        // One thread uses this store: its snapshot is pinned by a raw read transaction on the store's connection.
        store.connection.allowRawTransactionsFromOneThread()
        try store.connection.execute("BEGIN")
        // The first read inside the transaction fixes the snapshot; it must record the schema the store uses.
        if let recorded = try Store.recordedSchema(in: store.connection),
            SchemaDescriptor.encode(recorded) == SchemaDescriptor.encode(store.schema)
        {
            try refuseReplacedViews(store)
            return store
        }
        try? store.connection.execute("ROLLBACK")  // a migration committed in between: open again
    }
    throw CLIError(
        ExitCode.failure,
        "\(path) kept changing its schema while urna tried to read it; try again when the migration finishes")
}

/// The descriptor a file records, when it cannot be read or used (edited by hand, damaged), said with the file's
/// name and the way back: `status` and `query` said only "the schema descriptor is not valid: The given data was
/// not valid JSON." (a descriptor nested 100,000 deep) or "type 'goods' is declared twice", naming no file.
/// `toolName` names the program whose `restore` is the way back (an app's users were told `urna restore`).
func unusableDescriptor(_ error: Error, path: String, toolName: String) -> CLIError? {
    guard let reason = DamagedDescriptor.reason(of: error) else { return nil }
    return CLIError(
        ExitCode.badData,
        "\(path): "
            + DamagedDescriptor.detail(path: path, reason: reason, restore: "\(toolName) restore --db \(path)"))
}

/// Whether the folder holding `path` exists and can be written (for root too: a read-only mount or an
/// immutable folder says no).
func isWritableFolder(of path: String) -> Bool {
    access(folder(of: path), W_OK) == 0
}

/// The folder holding `path` ("." for a bare name).
func folder(of path: String) -> String {
    let d = PathText.folder(of: path)
    return d.isEmpty ? "." : d
}

/// Refuses, before anything is touched and with a message that says why, to run a command that writes the
/// database at `path` when the file or its folder cannot be written. Permission bits do not stop root, so
/// this asks the kernel (`access(2)`), which also reports read-only mounts and immutable files. SQLite would
/// fail too, but with "unable to open database file" or halfway through, after the backup. A file with several
/// names (hard links) is refused too: two imports through two names of one file at once both exited 0 and left
/// it failing `integrity_check`, one import's rows gone.
func requireWritableDatabase(_ path: String, command: String) throws {
    let unchanged = "nothing was changed"
    var st = stat()
    if stat(path, &st) == 0, st.st_nlink > 1 {
        // A run killed between giving its new file its name and removing the private one (`copy`, an import into a
        // new file) left that second name: the file was refused here until someone found and removed it.
        FileCopy.removeStaleTemporaries(near: path)
        ImportIntegrity.removeStaleImportTemporaries(near: path)
        // A new file another urna is linking into place has two names for an instant: look again.
        usleep(100_000)
        if stat(path, &st) == 0, st.st_nlink > 1 {
            throw CLIError(
                ExitCode.failure,
                "\(path) has \(st.st_nlink) names (hard links to one file): SQLite keeps a database's -wal, -shm and "
                    + "journal beside the name it was opened by, so a process writing through another name at the "
                    + "same time would not see them and the file would be damaged; \(unchanged). Work on a copy "
                    + "(cp \(path) NEW) or remove the other names")
        }
    }
    if FileManager.default.fileExists(atPath: path) {
        if access(path, W_OK) != 0 {
            let why = String(cString: strerror(errno))
            throw CLIError(
                ExitCode.failure,
                "\(path) is read-only (\(why)): \(command) must write to it; \(unchanged). "
                    + "Make it writable (a read-write mount, chattr -i, chmod u+w) or work on a copy")
        }
    }
    let dir = folder(of: path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw CLIError(
            ExitCode.failure, "the folder \(dir) does not exist: create it or give another --db PATH; \(unchanged)")
    }
    if access(dir, W_OK) != 0 {
        let why = String(cString: strerror(errno))
        throw CLIError(
            ExitCode.failure,
            "the folder \(dir) is read-only (\(why)): SQLite writes its journal next to \(path), "
                + "so \(command) cannot run there; \(unchanged). Move the file to a writable folder")
    }
}
