import Foundation
import UrnaImport
import UrnaStore

enum ExportCommand {
    /// The spec for the running command line: the TSE formats with the elections family, JSON lines of a type
    /// named with --type for an app's own families (their files have no Candidate to default to).
    static var spec: CommandSpec {
        CommandContext.current.family(named: "elections") != nil ? electionsSpec : appSpec
    }

    static var appSpec: CommandSpec {
        let tool = CommandContext.current.toolName
        return CommandSpec(
            name: "export", abstract: "Export objects of one type as JSON lines.",
            usage: "\(tool) export [--db PATH] --format json --type TYPE [PREDICATE] [--out FILE] [--quiet]",
            discussion: """
                One object per line of TYPE (`\(tool) schema` lists the file's types); links as the target's key, lists
                as arrays of keys, dates as ISO-8601 text, exact decimals as numbers. PREDICATE filters them, in the
                syntax of `\(tool) query`. Memory stays flat whatever the size; --out is written to a temporary file
                renamed at the end, so a failed export leaves no partial file; it never replaces an SQLite database
                or a write-protected file.
                """,
            options: [
                .value("db", "PATH", "Database file (default: urna.sqlite)."),
                .value("format", "FORMAT", "json (required)."),
                .value("type", "TYPE", "The type to export (required)."),
                .value("out", "FILE", "Write here instead of standard output."),
                .flag("quiet", "Do not print the summary line."),
            ],
            positionals: [("PREDICATE", "Optional filter, in the syntax of query.")], minPositionals: 0,
            maxPositionals: 1,
            examples: [
                "\(tool) export --format json --type \(CommandContext.current.families.first?.latest.tableTypes.first?.name ?? "TYPE")"
            ])
    }

    static let electionsSpec = CommandSpec(
        name: "export",
        abstract: "Export objects as an XML candidate dump, a TSE CSV file or JSON lines.",
        usage:
            "urna export [--db PATH] --format xml|csv|json [--type TYPE] [PREDICATE] [--out FILE] [--encoding latin1|utf8] [--spreadsheet-safe] [--quiet]",
        discussion: """
            xml   One <candidato> per candidacy (one child element per TSE column, modern names) with its <bens>,
                  then <coligacoes>: what `urna import` reads back. Candidates only.
            csv   A TSE file: `;`, every field double-quoted, a header of modern column names, #NULO# and -1 for
                  nulls. --type Candidate (consulta_cand, the default), Good (bem_candidato, 19 columns) or
                  Coalition (consulta_coligacao: one row per party of each coalition).
            json  One object per line of any type (--type, default Candidate); links as the target's key,
                  lists as arrays of keys.
            Importing the Candidate, Good and Coalition CSV exports into a fresh file gives the same objects;
            an XML export too, coalitions and their member parties included (import reads <coligacoes>).
            Candidate.image/site and Party.president are not TSE data and are not written.
            PREDICATE filters the exported type, in the syntax of `urna query`. XML and CSV are Latin-1
            (ISO-8859-1) like TSE's files unless --encoding utf8; XML writes other characters as &#N;, CSV
            refuses them. CPF, e-mail and voter ID are written only if the file holds them (the output file is
            then created readable by you only). Memory stays flat whatever the size; --out is written to a
            temporary file renamed at the end, so a failed export leaves no partial file. --out may not name the
            database or its -wal, -shm or -journal (also through a symlink); a symlink at --out is replaced, never
            followed; a FIFO, a device or - is written through.
            """,
        options: [
            .value("db", "PATH", "Database file (default: urna.sqlite)."),
            .value("format", "FORMAT", "xml, csv or json (required)."),
            .value("type", "TYPE", "What to export (default: Candidate); see above for each format."),
            .value("out", "FILE", "Write here instead of standard output."),
            .value("encoding", "NAME", "latin1 (default for xml and csv) or utf8 (json is always utf8)."),
            .flag("quiet", "Do not print the summary line."),
            .flag(
                "spreadsheet-safe",
                "csv: write a cell that begins like a formula (=, @, tab, or + or - before anything but a plain number) with a leading ' so a spreadsheet shows it as text (not for re-import: the ' stays in the data)."
            ),
        ],
        positionals: [("PREDICATE", "Optional filter, e.g. \"state == 'MG'\".")], minPositionals: 0,
        maxPositionals: 1,
        examples: [
            "urna export --db urna.sqlite --format xml --out candidatos.xml",
            "urna export --format xml \"state == 'MG' AND post ==[c] 'governador'\" --out mg-governadores.xml",
            "urna export --format csv --out consulta_cand.csv && urna export --format csv --type Good --out bem_candidato.csv",
            "urna export --format csv --type Coalition --encoding utf8 --out consulta_coligacao.csv",
            "urna export --format json --type Party",
        ])

    static var command: Command { Command(spec: spec, run: run) }

    @Sendable static func run(_ p: ParsedArguments) throws -> Int32 {
        let tse = CommandContext.current.family(named: "elections") != nil
        guard let formatName = p.value("format") else {
            throw UsageError(tse ? "--format is required: xml, csv or json" : "--format json is required")
        }
        guard let format = ExportFormat(rawValue: formatName.lowercased()), tse || format == .json else {
            throw UsageError(
                tse
                    ? "--format takes xml, csv or json, not '\(formatName)'"
                    : "--format takes json, not '\(formatName)'")
        }
        if !tse && p.value("type") == nil {
            let store = try openExistingStore(databasePath(p), readOnly: true)
            throw UsageError(
                "--type is required: one of \(store.schema.tableTypes.map(\.name).joined(separator: ", "))")
        }
        let encoding: ExportEncoding?
        switch p.value("encoding")?.lowercased() {
        case nil: encoding = nil
        case "latin1", "latin-1", "iso-8859-1": encoding = .latin1
        case "utf8", "utf-8": encoding = .utf8
        case let other?: throw UsageError("--encoding takes latin1 or utf8, not '\(other)'")
        }
        if let out = p.value("out") {
            try OutputPaths.refuse(out, option: "--out", database: databasePath(p))
            try OutputPaths.refuseReplacing(out, option: "--out")
        }
        let store = try openExistingStore(databasePath(p), readOnly: true)
        let typeName = p.value("type") ?? "Candidate"
        let types = store.schema.tableTypes.map(\.name)
        // XML and CSV name what they can write themselves (and refuse files that are not elections files).
        guard format != .json || types.contains(typeName) else {
            var msg = "unknown type '\(typeName)'; the file has: \(types.joined(separator: ", "))"
            if let hint = ArgumentParser.suggestion(for: typeName, among: types) { msg += " (did you mean '\(hint)'?)" }
            throw UsageError(msg)
        }
        if p.has("spreadsheet-safe"), format != .csv { throw UsageError("--spreadsheet-safe is for --format csv") }
        var options = ExportOptions(
            format: format, typeName: typeName, predicate: p.positionals.first, encoding: encoding)
        options.spreadsheetSafe = p.has("spreadsheet-safe")
        let exporter = try ElectionExporter(store: store, options: options)
        let out = p.value("out").flatMap { $0 == "-" ? nil : $0 }
        let summary = try exporter.export(toPath: out)
        if !p.has("quiet") {
            if let out, !OutputPaths.isStandardOutput(out) {
                print(TerminalSafe.line("exported \(summary.line) to \(out)"))
            } else {
                CLI.printError("exported \(summary.line)")
            }
        }
        // Said even with --quiet: a spreadsheet opening the file may run these cells.
        if summary.formulaLikeCells > 0 {
            let n = summary.formulaLikeCells
            CLI.printError(
                options.spreadsheetSafe
                    ? "\(n) cell\(n == 1 ? " that began like a spreadsheet formula was" : "s that began like a spreadsheet formula were") written with a leading '"
                    : "warning: \(n) cell\(n == 1 ? " begins" : "s begin") like a spreadsheet formula (=, @, tab, or + or - before anything but a plain number; first: "
                        + "\(summary.firstFormulaLikeCell ?? "?")): a spreadsheet opening this file may run them; "
                        + "--spreadsheet-safe writes them with a leading '")
        }
        return ExitCode.ok
    }
}

extension ExportError: ExitCodeProviding {}
extension OutputPathError: ExitCodeProviding {}
