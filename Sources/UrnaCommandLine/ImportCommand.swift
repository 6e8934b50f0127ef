import Foundation
import UrnaImport
import UrnaRecords
import UrnaStore

enum ImportCommand {
    static let spec = CommandSpec(
        name: "import", abstract: "Import TSE candidate, asset and coalition files (CSV, zip or XML) into a database.",
        usage:
            "urna import [--db PATH] [--rejects PATH] [--max-errors N] [--max-rejects-rows N] [--max-rejects-bytes SIZE] [--allow-triggers] [--encoding latin1|cp1252|utf8] [--date-order day-first|month-first] [--keep-personal-data] [--json] [--quiet] [--datasette-metadata] FILE|DIR...",
        discussion: """
            Files are recognised by their content (every consulta_cand layout from 2004 to 2024, bem_candidato,
            consulta_legendas / consulta_coligacao, zips as TSE ships them, and XML dumps), not by their names.
            The whole run is one transaction: it all lands, or nothing does. Importing the same files again changes
            nothing. Bad rows go to the rejects file (file, line, column, reason and the original bytes; created
            readable by you only) and never stop the good rows. CPF, e-mail and voter-ID number are not stored unless
            --keep-personal-data is given (the database, its -wal and -shm are then created readable by you only).
            The rejects file is never written through a symlink and never replaces a file: when its name is taken,
            the rows go to the first free numbered name (x.rejects.1.csv, ...), which the summary names. A FIFO or
            a device (--rejects /dev/null) is written through. --rejects may not name the database, its -wal,
            -shm or -journal, or an input (also through a symlink). A flood of bad rows stops the import (nothing is
            committed) when the rejects file reaches --max-rejects-rows or --max-rejects-bytes. Triggers the file
            holds on Urna's tables, and indexes on them that compute an expression or have a WHERE clause, are
            refused unless --allow-triggers; Urna's tables must match the schema before the import; either way the file must pass
            PRAGMA foreign_key_check and match its schema before the import commits. A folder is read recursively (files sorted by path); files in it that
            are not TSE data (PDFs, SQLite files, read-mes, other CSVs) are skipped with one warning each, as is a
            PDF, SQLite or other plainly foreign file named on the command line.
            """,
        options: [
            .value("db", "PATH", "Database file (default: urna.sqlite); created when missing."),
            .value("rejects", "PATH", "Where rejected rows go (default: <db>.rejects.csv)."),
            .value("max-errors", "N", "Roll the whole import back (exit 65) when more than N rows are rejected."),
            .value(
                "max-rejects-rows", "N",
                "Stop (exit 65, nothing committed) past N rejected rows (default: 1000000; 'none': no bound)."),
            .value(
                "max-rejects-bytes", "SIZE",
                "Stop (exit 65, nothing committed) when the rejects file would pass SIZE bytes; K, M, G suffixes "
                    + "(default: 100M; 'none': no bound)."),
            .flag(
                "allow-triggers",
                "Let triggers (and expression or partial indexes) the file, or the PostgreSQL database, holds on Urna's "
                    + "tables run during the import; the summary names them."
            ),
            .value("encoding", "NAME", "Force the input encoding: latin1, cp1252 or utf8 (default: detected)."),
            .value(
                "date-order", "ORDER",
                "Read every file's slash dates day-first (dd/MM/yyyy, as TSE writes them) or month-first (M/d/yyyy, "
                    + "a US spreadsheet's); a date written the other way is left empty with a warning (default: each "
                    + "file's dates decide)."),
            .flag("keep-personal-data", "Also store CPF, e-mail and voter-ID number."),
            .flag("json", "Print the summary as one JSON object."),
            .flag("quiet", "No progress and no summary on success."),
            .flag("datasette-metadata", "Also write Datasette metadata beside the database (<db>.metadata.json)."),
        ],
        positionals: [("FILE|DIR...", "TSE files (.csv/.txt, .zip or .xml) or folders holding them.")],
        minPositionals: 1, maxPositionals: nil,
        examples: [
            "urna import --db urna.sqlite SampleData/consulta_cand_2018_MG.csv SampleData/bem_candidato_2018_MG.csv",
            "urna import --db ac.sqlite --max-errors 0 consulta_cand_2016_AC.txt consulta_legendas_2016_AC.txt",
        ])

    static let command = Command(spec: spec) { p in
        let encoding: TextEncodingChoice
        switch p.value("encoding")?.lowercased() {
        case nil: encoding = .auto
        case "latin1", "latin-1", "iso-8859-1": encoding = .latin1
        case "cp1252", "windows-1252": encoding = .cp1252
        case "utf8", "utf-8": encoding = .utf8
        case let other?: throw UsageError("--encoding takes latin1, cp1252 or utf8, not '\(other)'")
        }
        let dateOrder: TSEDate.Order?
        switch p.value("date-order")?.lowercased() {
        case nil: dateOrder = nil
        case "day-first", "dmy": dateOrder = .dayFirst
        case "month-first", "mdy": dateOrder = .monthFirst
        case let other?: throw UsageError("--date-order takes day-first or month-first, not '\(other)'")
        }
        let maxErrors = try p.int("max-errors")
        if let m = maxErrors, m < 0 { throw UsageError("--max-errors must be 0 or more") }
        try requireWritableDatabase(databasePath(p), command: "urna import")
        var options = ImportOptions(
            dbPath: databasePath(p), rejectsPath: p.value("rejects"), maxErrors: maxErrors,
            encoding: encoding, keepPersonalData: p.has("keep-personal-data"))
        options.defaultRejectsPath = p.programDefaults["rejects"]
        options.dateOrder = dateOrder
        try ImportSafety.apply(p, to: &options)
        // Checked before anything is imported: a refusal after the commit read as a failed import (exit 1).
        if p.has("datasette-metadata") {
            try DatasetteMetadataCommand.checkBeside(database: databasePath(p), inputs: p.positionals)
        }
        let bar = ImportProgressBar(quiet: p.has("quiet") || p.has("json"))
        let (files, skipped) = try ImportCommand.discoverInputsAndSkipped(p.positionals)
        var summary = try Importer(options: options, progress: bar).run(files: files)
        bar.finish()
        if p.has("json") {
            // The text summary follows the warnings on stderr; JSON stands alone, so it names the skipped files too.
            summary.warnings.insert(contentsOf: skipped.map { "skipped \($0.path): \($0.reason)" }, at: 0)
            print(summary.renderJSON())
        } else if !p.has("quiet") {
            TypedText.report(summary.renderText(), terminator: summary.renderText().hasSuffix("\n") ? "" : "\n")
        }
        if p.has("datasette-metadata") {
            do {
                try DatasetteMetadataCommand.writeBeside(
                    database: databasePath(p), quiet: p.has("quiet") || p.has("json"))
            } catch let e as CLIError {
                throw CLIError(
                    e.code,
                    "the import was committed, but its Datasette metadata was not written: \(e.message); "
                        + "write it with urna datasette-metadata --db \(databasePath(p)) --out FILE")
            }
        }
        return ExitCode.ok
    }
}

/// Draws import progress on stderr when it is a terminal: bytes read, rows per second, ETA.
final class ImportProgressBar: ImportProgress {
    let terminal: TerminalProgress
    init(quiet: Bool) { terminal = TerminalProgress(quiet: quiet) }

    func importProgress(_ s: ImportProgressSnapshot) {
        let mib = Double(s.bytesRead) / 1_048_576
        let total = Double(s.bytesTotal) / 1_048_576
        var eta = ""
        if s.fractionRead > 0.01, s.fractionRead < 1 {
            eta = String(format: ", ETA %.0fs", s.elapsedSeconds / s.fractionRead - s.elapsedSeconds)
        }
        let file = s.file.map { ($0 as NSString).lastPathComponent } ?? ""
        terminal.draw(
            String(
                format: "[%d/%d] %@ %@: %.1f/%.1f MiB, %d rows, %.0f rows/s%@", s.fileIndex, s.fileCount,
                Self.words(s.phase), file, mib, total, s.rowsRead, s.rowsPerSecond, eta))
    }

    func finish() { terminal.finish() }

    /// What a phase is called on screen.
    static func words(_ phase: ImportProgressSnapshot.Phase) -> String {
        switch phase {
        case .reading: "reading"
        case .heldAssets: "writing goods that came before their candidacy"
        case .catalogues: "writing elections, parties and coalitions"
        case .linkingVices: "pairing vices with their heads of ticket"
        case .committing: "saving"
        case .finished: "done"
        }
    }
}

extension CandidateCard.CardError: ExitCodeProviding {}

enum ShowCommand {
    static let spec = CommandSpec(
        name: "show", abstract: "Show one candidacy in full: office, party, vice, coalition and declared goods.",
        usage: "urna show [--db PATH] candidate SQ_CANDIDATO [--election ID] [--unit SG_UE]",
        discussion: """
            Prints number, office and unit, party, vice (or, for a vice, the head of the ticket), personal data,
            coalition and its parties, spending limit, and the declared goods with their types and the total in reais.
            A candidacy is one election + SQ_CANDIDATO: when the number ran in several elections (both rounds of a
            run-off), name one with --election. In 2004 and earlier SQ_CANDIDATO restarts in every municipality, so
            one number is a candidacy per unit: name the unit's SG_UE with --unit.
            """,
        options: [
            .value("db", "PATH", "Database file (default: urna.sqlite)."),
            .value("election", "ID", "Election id (CD_ELEICAO) when the SQ_CANDIDATO is in more than one."),
            .value(
                "unit", "SG_UE",
                "Electoral unit code when the SQ_CANDIDATO is in more than one unit (2004 and earlier)."),
        ],
        positionals: [
            ("candidate", "What to show (only candidates for now)."), ("SQ_CANDIDATO", "The TSE candidacy number."),
        ],
        minPositionals: 2, maxPositionals: 2,
        examples: [
            "urna show --db urna.sqlite candidate 130000600702 --election 297",
            "urna show --db urna.sqlite candidate 280000614517 --election 296",
        ])

    static let command = Command(spec: spec) { p in
        guard p.positionals[0] == "candidate" else {
            throw UsageError("'show' knows 'candidate' only, not '\(p.positionals[0])'")
        }
        guard let sequence = Int64(p.positionals[1]) else {
            throw UsageError("SQ_CANDIDATO is a number of up to 12 digits, not '\(p.positionals[1])'")
        }
        let store = try openExistingStore(databasePath(p), readOnly: true)
        // Values from the files, shown on a terminal: no escape sequence in them reaches it.
        print(
            TerminalSafe.text(
                try CandidateCard.render(
                    store: store, sequence: sequence, election: p.value("election"), unit: p.value("unit"))),
            terminator: "")
        return ExitCode.ok
    }
}
