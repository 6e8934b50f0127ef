import Foundation
import UrnaImport

/// `urna datasette-metadata`: the file's Datasette metadata on stdout (or beside the file with --write-file).
enum DatasetteMetadataCommand {
    /// The spec for the running command line: the elections family's source columns are mentioned only where
    /// the program has that family.
    static var spec: CommandSpec { spec(elections: CommandContext.current.family(named: "elections") != nil) }

    static func spec(elections: Bool) -> CommandSpec {
        CommandSpec(
            name: "datasette-metadata",
            abstract: "Print Datasette metadata for a file: hidden tables, labels, descriptions.",
            usage: "urna datasette-metadata [--db PATH] [--out FILE]",
            discussion: """
                Open the file in Datasette with `datasette FILE --metadata FILE.metadata.json`: the _urna_schema and
                _urna_history tables and the link tables of lists are hidden, links show a readable label (a type's
                name column), and every table and column says what it holds and its unit. The database name in it is
                the file's name without its extension, as Datasette names it.
                """
                    + (elections
                        ? "\nFiles of the elections family (TSE's candidate data) also get the source column of each "
                            + "value described."
                        : ""),
            options: [
                .value("db", "PATH", "Database file (default: urna.sqlite)."),
                .value("out", "FILE", "Write here instead of standard output (replaced whole, never half-written)."),
            ],
            positionals: [], minPositionals: 0, maxPositionals: 0,
            examples: [
                "urna datasette-metadata --db urna.sqlite --out urna.metadata.json",
                "urna datasette-metadata --db urna.sqlite",
            ])
    }

    static var command: Command { Command(spec: spec, run: run) }

    @Sendable static func run(_ p: ParsedArguments) throws -> Int32 {
        let path = databasePath(p)
        if let out = p.value("out"), out != "-" {
            try OutputPaths.refuse(out, option: "--out", database: path)
            try OutputPaths.refuseReplacing(out, option: "--out")
        }
        let store = try openExistingStore(path, readOnly: true)
        let text = DatasetteMetadata(
            schema: store.schema, databaseName: DatasetteMetadata.databaseName(forPath: path),
            tool: CommandContext.current.toolName
        ).json()
        if let out = p.value("out"), out != "-" {
            try writeWhole(text + "\n", to: out)
            CLI.printError("wrote \(out)")
        } else {
            print(text)
        }
        return ExitCode.ok
    }

    /// The metadata file's path beside a database: `urna.sqlite` -> `urna.metadata.json`.
    static func besidePath(ofDatabase path: String) -> String {
        (path as NSString).deletingPathExtension + ".metadata.json"
    }

    /// Writes `text` to a new temporary file in the same folder (`O_EXCL | O_NOFOLLOW`) and renames it over
    /// `path`; a FIFO, a device or standard output is written through, never replaced.
    static func writeWhole(_ text: String, to path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIError(ExitCode.failure, "\(path) is a folder: give --out the path of a file")
        }
        do {
            try OutputFileName.writeWhole(Array(text.utf8), to: path, what: "the metadata", option: "--out")
        } catch let e as OutputPathError {
            throw CLIError(ExitCode.failure, e.description)
        }
    }
}

extension DatasetteMetadataCommand {
    /// Refuses, before an import, a metadata path beside `database` that cannot or must not be written: a
    /// folder, the database or an input (also through links), an SQLite file, another database's -wal or
    /// -journal, a program, a file without write permission.
    static func checkBeside(database: String, inputs: [String]) throws {
        let out = besidePath(ofDatabase: database)
        let prefix = "--datasette-metadata writes \(out) beside the database"
        let elsewhere = "; or write the metadata elsewhere with urna datasette-metadata --out FILE after the import"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), isDirectory.boolValue {
            throw UsageError("\(prefix), and a folder has that name (nothing was changed)\(elsewhere)")
        }
        do {
            try OutputPaths.refuse(out, option: "--out", database: database, inputs: inputs)
            try OutputPaths.refuseReplacing(out, option: "--out")
        } catch let e as UsageError {
            throw UsageError("\(prefix): \(e.message)\(elsewhere)")
        }
    }

    /// Writes the metadata of the database at `database` to `<name>.metadata.json` beside it.
    static func writeBeside(database: String, quiet: Bool) throws {
        let store = try openExistingStore(database, readOnly: true)
        let out = besidePath(ofDatabase: database)
        let text = DatasetteMetadata(
            schema: store.schema, databaseName: DatasetteMetadata.databaseName(forPath: database)
        )
        .json()
        try writeWhole(text + "\n", to: out)
        if !quiet { CLI.printError("Datasette metadata: \(out) (datasette \(database) --metadata \(out))") }
    }
}
