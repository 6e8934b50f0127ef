import Foundation
import UrnaImport
import UrnaMigrator
import UrnaStore

enum AdoptCommand {
    static let spec = CommandSpec(
        name: "adopt", abstract: "Bring a plain SQLite file under a schema family's version, so it can be migrated.",
        usage: "urna adopt --db PATH --family NAME --version N [--dry-run] [--json]",
        discussion: """
            The file's tables must hold that version's storage contract columns (see `urna schema --family NAME
            --version N`). When they follow it column by column (types, NOT NULL, defaults, keys, foreign keys,
            indexes) adopting records the family, the version and its descriptor, and no row changes. When they
            hold the same columns in another form (a plain rowid table with no _id, nullable or untyped columns,
            another order, a CHECK or UNIQUE), they are rebuilt into the contract in one transaction, every row
            kept (_id from the rowid). A missing or extra column, a NULL in a required column, a duplicate key, a
            value of another type or a broken link is listed, every one (exit 65), and the file is not changed.
            --dry-run does it all on a private copy and says what adopting would do. Other tables are left alone.
            """,
        options: [
            .value("db", "PATH", "The SQLite file to adopt (it must exist)."),
            .value("family", "NAME", "Schema family whose storage contract the tables follow."),
            .value("version", "N", "The version the tables are at."),
            .flag("dry-run", "Show what adopting would do (done on a private copy); the file is not touched."),
            .flag("json", "Print the result as JSON."),
        ],
        positionals: [], minPositionals: 0, maxPositionals: 0,
        examples: [
            "urna adopt --db legacy.sqlite --family people --version 0 --dry-run",
            "urna adopt --db legacy.sqlite --family people --version 0",
        ])

    static let command = Command(spec: spec) { p in
        let context = CommandContext.current
        guard let path = p.value("db") else { throw UsageError("--db is required: the plain SQLite file to adopt") }
        guard let name = p.value("family") else {
            throw UsageError("--family is required (one of: \(context.familyNames))")
        }
        guard let family = context.family(named: name) else {
            throw UsageError("unknown family '\(name)'; \(context.toolName) knows: \(context.familyNames)")
        }
        guard let version = try p.int("version") else {
            throw UsageError(
                "--version is required: the version of \(name) the tables are at ("
                    + family.versionNumbers.map(String.init).joined(separator: ", ") + ")")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CLIError(
                ExitCode.missingInput, "\(path) does not exist: give --db the path of the SQLite file to adopt")
        }
        let dryRun = p.has("dry-run")
        if !dryRun { try requireWritableDatabase(path, command: "\(context.toolName) adopt") }
        let report: AdoptionReport
        do {
            var options = MigrationOptions()
            options.appVersion = context.ledgerVersion
            report = try Migrator(family: family, options: options).adopt(path: path, version: version, dryRun: dryRun)
        } catch let e as MigrationError {
            if case .alreadyCurrent(_, let f, let v) = e {
                print(
                    p.has("json")
                        ? JSONText.object([
                            ("status", JSONText.string("nothing to do")), ("family", JSONText.string(f)),
                            ("version", String(v)),
                        ])
                        : "nothing to do: \(DatabaseName.of(path)) is already \(f) version \(v)")
                return ExitCode.ok
            }
            throw CLIError(
                e.exitCode == 0 ? ExitCode.failure : e.exitCode, e.description(programName: context.toolName))
        }
        if p.has("json") {
            print(
                JSONText.object([
                    ("status", JSONText.string(dryRun ? "would-adopt" : "adopted")),
                    ("family", JSONText.string(report.family)), ("version", String(report.version)),
                    ("dryRun", dryRun ? "true" : "false"),
                    ("counts", JSONText.object(report.counts.keys.sorted().map { ($0, String(report.counts[$0]!)) })),
                    (
                        "rebuilt",
                        JSONText.object(report.rebuilt.keys.sorted().map { ($0, String(report.rebuilt[$0]!)) })
                    ),
                    ("created", "[" + report.created.map(JSONText.string).joined(separator: ",") + "]"),
                    ("changes", "[" + report.changes.map(JSONText.string).joined(separator: ",") + "]"),
                    ("otherTables", "[" + report.otherTables.map(JSONText.string).joined(separator: ",") + "]"),
                ]))
        } else {
            let counts = report.counts.keys.sorted().map { "\($0) \(report.counts[$0]!)" }.joined(separator: ", ")
            let verb = dryRun ? "would adopt" : "adopted"
            // On PostgreSQL, the database's URL, not its private working copy's path.
            let shown = DatabaseName.of(path)
            let rebuilt = report.rebuilt.keys.sorted().map { "\($0) (\(report.rebuilt[$0]!) rows kept)" }
            let outcome =
                rebuilt.isEmpty
                ? "no row \(dryRun ? "would change" : "was changed")"
                : "\(dryRun ? "would rebuild" : "rebuilt") into the storage contract: "
                    + rebuilt.joined(separator: ", ")
            TypedText.report("\(verb) \(shown): \(report.family) version \(report.version) (\(counts)); \(outcome)")
            for change in report.changes { TypedText.report("  " + TerminalSafe.line(change)) }
            if !report.created.isEmpty {
                TypedText.report(
                    "\(dryRun ? "would create" : "created") empty: " + report.created.joined(separator: ", "))
            }
            if !report.otherTables.isEmpty {
                TypedText.report("left alone: " + report.otherTables.map(TerminalSafe.line).joined(separator: ", "))
            }
            if dryRun {
                TypedText.report("dry run: \(shown) was not changed; run again without --dry-run to adopt it")
            } else if version < family.latestVersion {
                TypedText.report("next: \(context.toolName) migrate --db \(shown) --dry-run")
            }
        }
        return ExitCode.ok
    }
}
