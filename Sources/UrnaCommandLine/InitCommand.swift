import Foundation
import UrnaImport
import UrnaMigrator
import UrnaPostgres
import UrnaSchemas
import UrnaStore

enum InitCommand {
    static let spec = CommandSpec(
        name: "init", abstract: "Create an empty database file at a schema family's version.",
        usage: "urna init [--db PATH] --family NAME [--version N]",
        discussion: "Families: \(CommandContext.current.familyNames). Without --version, the latest.",
        options: [
            .value("db", "PATH", "File to create (default: urna.sqlite); it must not exist yet."),
            .value("family", "NAME", "Schema family: \(CommandContext.current.familyNames)."),
            .value("version", "N", "Schema version (default: the family's latest)."),
        ],
        positionals: [], minPositionals: 0, maxPositionals: 0,
        examples: [
            "urna init --db people.sqlite --family people --version 0", "urna init --db tse.sqlite --family elections",
        ])

    static let command = Command(spec: spec) { p in
        guard let name = p.value("family") else {
            throw UsageError("--family is required (one of: \(CommandContext.current.familyNames))")
        }
        guard let family = CommandContext.current.family(named: name) else {
            throw UsageError(
                "unknown family '\(name)'; \(CommandContext.current.toolName) knows: \(CommandContext.current.familyNames)"
            )
        }
        let version = try p.int("version") ?? family.latest.version
        guard let schema = family.schema(version: version) else {
            throw UsageError(
                "\(name) has no version \(version); versions: \(family.versions.map { String($0.schema.version) }.joined(separator: ", "))"
            )
        }
        let path = databasePath(p)
        if FileManager.default.fileExists(atPath: path) {
            throw CLIError(
                ExitCode.failure, "\(path) already exists; choose another --db (init never overwrites a file)")
        }
        // A dangling symlink at the name would have the file created wherever it points.
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil {
            throw CLIError(
                ExitCode.failure,
                "\(path) is a symbolic link (to a file that does not exist); urna does not create a database through "
                    + "a link: choose another --db (nothing was created)")
        }
        // An elections file is made to be bulk-loaded: it gets the page size the importer gives its own files.
        _ = try Store(path: path, schema: schema, pageSize: name == "elections" ? Importer.pageSize : nil)
        print(
            TerminalSafe.line(
                "created \(DatabaseName.of(path)): \(name) version \(version) (\(schema.tableTypes.map(\.name).joined(separator: ", ")))"
            ))
        return ExitCode.ok
    }
}

enum SchemaCommand {
    static let spec = CommandSpec(
        name: "schema", abstract: "Print a family's schema descriptor, or the difference between two versions.",
        usage: "urna schema --family NAME [--version N] [--diff A B] [--json]",
        discussion: "The descriptor is the JSON each file records about itself in its _urna_schema table.",
        options: [
            .value("family", "NAME", "Schema family: \(CommandContext.current.familyNames)."),
            .value("version", "N", "Version to print (default: latest)."),
            .flag("diff", "Print the difference between versions A and B (two arguments)."),
            .flag("json", "With --diff: print JSON."),
        ],
        positionals: [("A B", "With --diff: the two versions to compare.")], minPositionals: 0, maxPositionals: 2,
        examples: ["urna schema --family people --version 1", "urna schema --family elections --diff 1 3"])

    static let command = Command(spec: spec) { p in
        guard let name = p.value("family") else { throw UsageError("--family is required") }
        guard let family = CommandContext.current.family(named: name) else {
            throw UsageError(
                "unknown family '\(name)'; \(CommandContext.current.toolName) knows: \(CommandContext.current.familyNames)"
            )
        }
        if p.has("diff") {
            guard p.positionals.count == 2, let a = Int(p.positionals[0]), let b = Int(p.positionals[1]) else {
                throw UsageError("--diff takes two version numbers, e.g. --diff 1 3")
            }
            guard let from = family.schema(version: a), let to = family.schema(version: b) else {
                throw UsageError(
                    "\(name) has versions \(family.versions.map { String($0.schema.version) }.joined(separator: ", "))")
            }
            let diff = SchemaDiff(from: from, to: to)
            print(p.has("json") ? diff.renderJSON() : diff.renderText())
            return ExitCode.ok
        }
        if !p.positionals.isEmpty {
            throw UsageError("unexpected argument '\(p.positionals[0])' (did you mean --diff?)")
        }
        let version = try p.int("version") ?? family.latest.version
        guard let schema = family.schema(version: version) else {
            throw UsageError(
                "\(name) has no version \(version); versions: \(family.versions.map { String($0.schema.version) }.joined(separator: ", "))"
            )
        }
        print(SchemaDescriptor.encode(schema))
        return ExitCode.ok
    }
}

enum StatusCommand {
    static let spec = CommandSpec(
        name: "status", abstract: "Show a file's family, version, pending migration steps and object counts.",
        usage: "urna status [--db PATH] [--json]",
        discussion:
            "--json prints one object with family, version, latestVersion, pendingSteps and counts (type -> count).",
        options: [.value("db", "PATH", "Database file (default: urna.sqlite)."), .flag("json", "Print JSON.")],
        positionals: [], minPositionals: 0, maxPositionals: 0,
        examples: ["urna status --db urna.sqlite", "urna status --db old.sqlite --json"])

    static let command = Command(spec: spec) { p in
        let path = databasePath(p)
        let store = try openExistingStore(path, readOnly: true)
        try report(p, schema: store.schema, counts: try store.counts(), name: DatabaseName.of(path))
        return ExitCode.ok
    }

    /// Prints the status of a database named `name` (a path or a PostgreSQL URL) recording `schema`.
    static func report(_ p: ParsedArguments, schema: Schema, counts: [String: Int], name: String) throws {
        let context = CommandContext.current
        let tool = context.toolName
        let family = context.family(named: schema.family)
        let latest = family?.latest.version
        // Steps as the family declares them (a squashed or gapped history steps from version to version).
        let pending =
            family.map {
                $0.isOlderThanSupported(schema.version)
                    ? [] : $0.pendingSteps(from: schema.version, to: $0.latestVersion)
            } ?? []
        let newer = latest.map { schema.version > $0 } ?? false
        if p.has("json") {
            print(
                JSONText.object([
                    ("family", JSONText.string(schema.family)),
                    ("familyKnown", family == nil ? "false" : "true"),
                    ("version", String(schema.version)),
                    ("latestVersion", latest.map(String.init) ?? "null"),
                    (
                        "pendingSteps",
                        family == nil
                            ? "null" : "[" + pending.map { "\"\($0.from)->\($0.to)\"" }.joined(separator: ",") + "]"
                    ),
                    ("counts", JSONText.object(counts.keys.sorted().map { ($0, String(counts[$0]!)) })),
                ]))
        } else {
            // The family comes from the file (a hostile one names itself with escape sequences) and the path from
            // the user: neither reaches the terminal raw.
            func print(_ line: String) { Swift.print(TerminalSafe.line(line)) }
            print((PostgresURL.isPostgres(name) ? "database: " : "file:     ") + name)
            print("family:   \(schema.family)" + (family == nil ? " (family unknown to \(tool))" : ""))
            print("version:  \(schema.version)" + (latest.map { " (latest \($0))" } ?? ""))
            if family == nil {
                print(
                    "pending:  unknown: \(tool) does not know family '\(schema.family)' (it knows: \(context.familyNames)); "
                        + "ask the program that made the file")
            } else if let family, family.isOlderThanSupported(schema.version) {
                print(
                    "pending:  none here: version \(schema.version) is older than \(family.minimumVersion), the oldest \(tool) upgrades; "
                        + (family.olderFilesAdvice
                            ?? "upgrade it first with an earlier release of the program that made it"))
            } else if newer {
                print("pending:  none: the file is newer than every version \(tool) knows; use a newer \(tool)")
            } else if pending.isEmpty {
                print("pending:  none")
            } else {
                print(
                    "pending:  " + pending.map { "\($0.from) -> \($0.to)" }.joined(separator: ", ")
                        + "  (run: \(tool) migrate --db \(name) --dry-run)")
            }
            print("objects:")
            for t in schema.tableTypes {
                print("  " + t.name.padding(toLength: 14, withPad: " ", startingAt: 0) + String(counts[t.name] ?? 0))
            }
        }
    }
}
