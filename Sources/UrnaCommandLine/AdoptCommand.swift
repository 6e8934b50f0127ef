import Foundation
import UrnaMigrator
import UrnaStore

enum AdoptCommand {
    static let spec = CommandSpec(
        name: "adopt", abstract: "Bring a plain SQLite file under a schema family's version, so it can be migrated.",
        usage: "urna adopt --db PATH --family NAME --version N [--json]",
        discussion: """
            The file's tables must match that version's storage contract column by column (names, types, NOT NULL,
            defaults, keys, foreign keys, indexes; see `urna schema --family NAME --version N`); every difference
            is listed otherwise (exit 65) and the file is not changed. Adopting records the family, the version and
            its descriptor in the file; no table or row changes. Other tables of the file are left alone.
            """,
        options: [
            .value("db", "PATH", "The SQLite file to adopt (it must exist)."),
            .value("family", "NAME", "Schema family whose storage contract the tables follow."),
            .value("version", "N", "The version the tables are at."),
            .flag("json", "Print the result as JSON."),
        ],
        positionals: [], minPositionals: 0, maxPositionals: 0,
        examples: ["urna adopt --db legacy.sqlite --family people --version 0"])

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
        try requireWritableDatabase(path, command: "\(context.toolName) adopt")
        let report: AdoptionReport
        do {
            report = try Migrator(family: family).adopt(path: path, version: version)
        } catch let e as MigrationError {
            throw CLIError(
                e.exitCode == 0 ? ExitCode.failure : e.exitCode, e.description(programName: context.toolName))
        }
        if p.has("json") {
            print(
                JSONText.object([
                    ("status", JSONText.string("adopted")), ("family", JSONText.string(report.family)),
                    ("version", String(report.version)),
                    ("counts", JSONText.object(report.counts.keys.sorted().map { ($0, String(report.counts[$0]!)) })),
                    ("otherTables", "[" + report.otherTables.map(JSONText.string).joined(separator: ",") + "]"),
                ]))
        } else {
            let counts = report.counts.keys.sorted().map { "\($0) \(report.counts[$0]!)" }.joined(separator: ", ")
            print("adopted \(path): \(report.family) version \(report.version) (\(counts)); no row was changed")
            if !report.otherTables.isEmpty {
                print("left alone: " + report.otherTables.joined(separator: ", "))
            }
            if version < family.latestVersion {
                print("next: \(context.toolName) migrate --db \(path) --dry-run")
            }
        }
        return ExitCode.ok
    }
}
