import Foundation
import UrnaImport
import UrnaMigrator
import UrnaPostgres
import UrnaSchemas
import UrnaStore

enum MigrateCommand {
    static let spec = CommandSpec(
        name: "migrate", abstract: "Upgrade a file to a newer schema version, or preview the upgrade.",
        usage:
            "urna migrate [--db PATH] [--to N] [--dry-run] [--sample N] [--json] [--backup PATH | --no-backup] [--allow-loss TYPE.PROPERTY]... [--vacuum]",
        discussion: """
            Every step from the file's version to the target runs in one transaction: the file ends wholly upgraded or
            exactly as it was. Before committing, foreign keys, integrity, NOT NULL, uniqueness and the new tables
            against the target descriptor are checked. A backup copy is kept next to the file unless --no-backup.
            --dry-run runs the real migration closures on a private copy and reports the diff, the SQL, counts before
            and after, what closures changed, data that would be dropped, sample objects and the projected time;
            the file is not touched. A step without a closure that would drop data (a removed property or type
            holding values, a lossy conversion, a required property added without a default) is refused unless
            --allow-loss names it (TYPE.PROPERTY, or TYPE for a removed type; repeat it for each).
            --vacuum runs VACUUM after the commit, giving back the pages of the rebuilt tables, and reports the
            file's size before and after (a dry run vacuums its copy).
            """,
        options: [
            .value("db", "PATH", "Database file (default: urna.sqlite)."),
            .value("to", "N", "Target version (default: the family's latest)."),
            .flag("dry-run", "Preview on a private copy; never changes the file."),
            .value("sample", "N", "Objects to show before/after per changed type in a dry run (default 3)."),
            .flag("json", "Print the report as one JSON object."),
            .value("backup", "PATH", "Where to keep the backup (default: next to the file)."),
            .flag("no-backup", "Keep no backup."),
            .value(
                "allow-loss", "TYPE.PROPERTY",
                "Let the upgrade drop or convert with loss this property's data (repeatable).", repeatable: true),
            .flag("vacuum", "VACUUM the file after a successful upgrade and report its size before and after."),
        ],
        positionals: [], minPositionals: 0, maxPositionals: 0,
        examples: [
            "urna migrate --db old.sqlite --dry-run", "urna migrate --db old.sqlite --to 2 --json",
            "urna migrate --db old.sqlite --no-backup",
        ])

    static let command = Command(spec: spec) { p in
        if p.value("backup") != nil && p.has("no-backup") {
            throw UsageError("choose one of --backup PATH and --no-backup")
        }
        if let b = p.value("backup"), b.isEmpty { throw UsageError("--backup needs a file path (or use --no-backup)") }
        let path = databasePath(p)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError(
                ExitCode.missingInput, "\(path) does not exist: give --db PATH" + FormerDefaultDatabase.hint(for: path))
        }
        let sample = try p.int("sample") ?? 3
        let context = CommandContext.current
        var options = MigrationOptions()
        options.appVersion = context.ledgerVersion
        options.vacuum = p.has("vacuum")
        let schemas = context.families.flatMap { $0.versions.map(\.schema) }
        for name in p.values["allow-loss"] ?? [] {
            guard !name.isEmpty, !name.hasPrefix("."), !name.hasSuffix(".") else {
                throw UsageError("--allow-loss takes TYPE.PROPERTY (or TYPE for a removed type), not '\(name)'")
            }
            // A misspelt allowance would silently allow nothing: it must name a type (and property) of a version.
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let known = schemas.contains { s in
                guard let t = s[type: parts[0]] else { return false }
                return parts.count == 1 || t[property: parts[1]] != nil
            }
            guard known else {
                let all = Set(
                    schemas.flatMap { s in
                        s.types.flatMap { t in [t.name] + t.properties.map { "\(t.name).\($0.name)" } }
                    })
                let hint =
                    ArgumentParser.suggestion(for: name, among: Array(all).sorted()).map { "; did you mean \($0)?" }
                    ?? ""
                throw UsageError(
                    "--allow-loss \(name) names no type or property of any version of \(context.familyNames)\(hint)")
            }
            options.allowances += MigrationAllowance.loss(of: name)
        }
        if p.has("dry-run") {
            // The registry reads the family from a private copy: the file itself is never opened, so a file that is
            // no SQLite database at all is told apart by its header here (the copy would fail less clearly).
            if InputChecks.looksLikeSQLite(path) == false {
                throw CLIError(
                    ExitCode.badData,
                    "\(DatabaseName.of(path)) is not an SQLite database: give --db the path of an Urna file")
            }
            do {
                let report = try context.registry.dryRun(
                    path: path, to: try p.int("to"), sample: sample, options: options)
                var text = DatabaseName.named(p.has("json") ? report.renderJSON() : report.renderText(), path)
                if !p.has("json"), PostgresURL.isPostgres(DatabaseName.of(path)) {
                    // On PostgreSQL there is no file, no backup and no disk beside it: say what holds there.
                    text = text.replacingOccurrences(
                        of: "the file was not touched", with: "the database was not changed"
                    )
                    .replacingOccurrences(of: " (backup copy included)", with: "")
                    .split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("Disk: ") }.joined(separator: "\n")
                }
                TypedText.report(text)
                if report.outcome == .previewed, report.realRunLacksSpace, let need = report.spaceNeed {
                    // The preview ran on a copy on another disk: the real run would be refused, so the dry run is too.
                    let refusal = MigrationError.insufficientSpace(
                        path: DatabaseName.of(path), backup: nil, needed: need.totalBytes,
                        available: report.spaceAvailable ?? 0, detail: need.description)
                    throw CLIError(
                        refusal.exitCode,
                        "the real run would be refused: " + refusal.description(programName: context.toolName))
                }
                return report.outcome == .failed ? ExitCode.badData : ExitCode.ok
            } catch let e as MigrationError {
                if case .alreadyCurrent(_, let family, let version) = e {
                    print(
                        p.has("json")
                            ? JSONText.object([
                                ("status", JSONText.string("nothing to do")), ("version", String(version)),
                            ])
                            : "nothing to do: \(DatabaseName.of(path)) is already at \(family) version \(version)")
                    return ExitCode.ok
                }
                throw CLIError(e.exitCode, describe(e, context))
            }
        }
        try requireWritableDatabase(path, command: "\(context.toolName) migrate")
        try HotJournal.recoverIfNeeded(path)
        if let b = p.value("backup") {
            try requireUsableBackupPath(b)
            try OutputPaths.refuse(b, option: "--backup", database: path, refusingSymlinks: true)
        }
        let recorded: Schema
        do {
            let c = try Connection(path: path, readOnly: true, create: false)
            let read: Schema?
            do { read = try Store.recordedSchema(in: c) } catch {
                throw unusableDescriptor(error, path: path, toolName: context.toolName) ?? error
            }
            guard let r = read else {
                throw CLIError(ExitCode.badData, notOursMessage(path, reason: "no _urna_schema table", context))
            }
            recorded = r
        }
        guard let family = context.family(named: recorded.family) else {
            throw CLIError(
                ExitCode.badData,
                "\(path) holds family '\(recorded.family)', which \(context.toolName) does not know (it knows: \(context.familyNames)): "
                    + "use the program that made the file")
        }
        let target = try p.int("to") ?? family.latestVersion
        let migrator = Migrator(family: family, options: options)
        let plan: MigrationPlan
        do {
            plan = try migrator.plan(path: path, to: target)
        } catch let e as MigrationError {
            if case .alreadyCurrent = e {
                print(
                    p.has("json")
                        ? JSONText.object([("status", JSONText.string("nothing to do")), ("version", String(target))])
                        : "nothing to do: \(DatabaseName.of(path)) is already at \(family.name) version \(target)")
                return ExitCode.ok
            }
            throw CLIError(e.exitCode, describe(e, context))
        }
        let backup: BackupPolicy = p.has("no-backup") ? .none : (p.value("backup").map(BackupPolicy.at) ?? .besideFile)
        let report: MigrationReport
        do {
            report = try migrator.run(plan, backup: backup)
        } catch MigrationError.storage(let e) {
            // SQLite's error does not know the file: name it, say what happened and what to do.
            var (code, message) = CLI.classify(e, database: path)
            if e.isDiskFull, let need = try? migrator.spaceNeed(for: plan, backup: backup) {
                message +=
                    " (measured from the file, this upgrade needs about \(SpaceNeed.megabytes(need.totalBytes)) free: \(need))"
            }
            throw CLIError(code, message)
        } catch let e as MigrationError {
            throw CLIError(
                e.exitCode == 0 ? ExitCode.failure : e.exitCode, describe(e, context))
        }
        let rendered = DatabaseName.named(p.has("json") ? report.renderJSON() : report.renderText(), path)
        if p.has("json") { print(rendered) } else { TypedText.report(rendered) }
        return ExitCode.ok
    }

    /// Refuses a --backup PATH the backup cannot be written to, before anything is touched: a folder, a file
    /// that is already there (never overwritten), a folder that does not exist or cannot be written.
    static func requireUsableBackupPath(_ b: String) throws {
        let unchanged = "nothing was changed"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: b, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                throw CLIError(
                    ExitCode.failure,
                    "the backup path \(b) is a folder: give a file path, such as "
                        + "\((b as NSString).appendingPathComponent("backup.sqlite")); \(unchanged)")
            }
            throw CLIError(
                ExitCode.failure,
                "the backup path \(b) already exists: \(CommandContext.current.toolName) never overwrites a file with a backup; "
                    + "remove it or choose another --backup PATH; \(unchanged)")
        }
        let dir = folder(of: b)
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError(
                ExitCode.failure,
                "the folder \(dir) of the backup path \(b) does not exist: create it or choose "
                    + "another --backup PATH; \(unchanged)")
        }
        if access(dir, W_OK) != 0 {
            let why = String(cString: strerror(errno))
            throw CLIError(
                ExitCode.failure,
                "the folder \(dir) of the backup path \(b) cannot be written (\(why)): choose another "
                    + "--backup PATH; \(unchanged)")
        }
    }
}

extension MigrationError: ExitCodeProviding {}
extension ImportError: ExitCodeProviding {}

/// "FILE is not a hotel-app file (...)" for a file without urna's tables, naming the family in the `adopt` that
/// brings it under one when the program knows only one.
func notOursMessage(_ path: String, reason: String, _ context: CommandContext) -> String {
    describe(.notAnUrnaFile(path: path, reason: reason), context)
}

/// A migration error as this program says it (its name, and its one family in the advice to adopt).
func describe(_ e: MigrationError, _ context: CommandContext) -> String {
    let message = e.description(programName: context.toolName)
    guard case .notAnUrnaFile = e, context.families.count == 1, let family = context.families.first else {
        return message
    }
    return message.replacingOccurrences(of: "--family NAME", with: "--family \(family.name)")
}
