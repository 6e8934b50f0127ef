import UrnaRecords
import UrnaStore

/// Why an import stopped; nothing it did was kept. Each case says what would fix it, and `exitCode`
/// follows sysexits (65 bad data, 66 missing input, 73 cannot create, 74 I/O, 75 busy).
public enum ImportError: Error, Sendable, CustomStringConvertible {
    /// An input file does not exist or cannot be opened.
    case missingFile(path: String, reason: String)
    /// An input file is not a TSE file this importer knows; `missingColumns` lists what it lacks.
    case unrecognizedFile(file: String, reason: String, missingColumns: [String])
    /// An input file turned out unreadable midway (I/O error, damaged zip member, broken XML).
    case unreadableFile(file: String, reason: String)
    /// More rows were rejected than `maxErrors` allows; the import was rolled back.
    case tooManyRejects(rejected: Int, maxErrors: Int, rejectsFile: String?)
    /// The database cannot be used (another family or version, not an Urna file, cannot be created).
    case database(path: String, reason: String, exitCode: Int32)
    /// No input files were given.
    case noFiles

    /// The process exit status a command line should use.
    public var exitCode: Int32 {
        switch self {
        case .missingFile: 66
        case .unrecognizedFile, .unreadableFile, .tooManyRejects: 65
        case .database(_, _, let code): code
        case .noFiles: 64
        }
    }

    /// One paragraph: what happened and what to do.
    public var description: String {
        switch self {
        case .missingFile(let path, let reason):
            return "\(path): \(reason); check the path (nothing was imported)"
        case .unrecognizedFile(let file, let reason, let missing):
            let tail = missing.isEmpty ? "" : " (missing required columns: \(missing.joined(separator: ", ")))"
            return "\(named(file, reason))\(tail); nothing was imported"
        case .unreadableFile(let file, let reason):
            return "\(named(file, reason)); the import was rolled back"
        case .tooManyRejects(let rejected, let maxErrors, let rejectsFile):
            let whereTo = rejectsFile.map { "; the rejected rows are in \($0)" } ?? ""
            return
                "\(rejected) row\(rejected == 1 ? "" : "s") rejected, more than --max-errors \(maxErrors) allows: the import was rolled back and "
                + "the database is as it was\(whereTo); fix the rows or raise --max-errors"
        case .database(let path, let reason, _):
            // A store's own message already names the file ("h.sqlite is at elections version 9, newer ..."):
            // it read "h.sqlite: h.sqlite is at ...".
            return reason.hasPrefix(path + " ") ? reason : "\(path): \(reason)"
        case .noFiles:
            return "no input files: name at least one consulta_cand, bem_candidato or consulta_legendas file"
        }
    }

    /// "file: reason", unless the reason already starts with the file (a reader's error names it, with a line
    /// and column): never "x.zip: x.zip: ...".
    private func named(_ file: String, _ reason: String) -> String {
        reason.hasPrefix(file + ":") ? reason : "\(file): \(reason)"
    }

    /// Maps store/SQLite failures to an import error with the right exit code.
    static func from(_ error: Error, dbPath: String) -> ImportError {
        if let e = error as? ImportError { return e }
        if error is StoreError, let reason = DamagedDescriptor.reason(of: error) {
            // A descriptor edited by hand or damaged: the file and the way back (it named neither the table
            // nor the fix).
            return .database(
                path: dbPath,
                reason: DamagedDescriptor.detail(path: dbPath, reason: reason, outcome: "nothing was imported"),
                exitCode: 65)
        }
        if let e = error as? StoreError { return .database(path: dbPath, reason: e.description, exitCode: 65) }
        if let e = error as? SQLiteError {
            let cannotOpen: Int32 = 14  // SQLITE_CANTOPEN: no such folder, no permission
            let corrupt: Int32 = 11
            let notADatabase: Int32 = 26  // SQLITE_CORRUPT, SQLITE_NOTADB
            var code: Int32 = e.isBusy ? 75 : (e.primaryCode == cannotOpen ? 73 : 74)
            if e.primaryCode == corrupt || e.primaryCode == notADatabase { code = 65 }
            let unchanged = "nothing was imported and the database is as it was"
            let reason: String
            if e.isDiskFull {
                reason = "the disk is full (\(e.message)); \(unchanged): free some space and run the import again"
            } else if e.isBusy {
                reason =
                    "the database is locked by another process that is writing to it (\(e.message)); \(unchanged): "
                    + "try again when that process finishes"
            } else if e.isReadOnly {
                reason =
                    "the database is read-only (\(e.message)); \(unchanged): make the file and its folder writable, "
                    + "or import into a copy"
            } else if e.primaryCode == notADatabase {
                reason =
                    "this is not an SQLite database (\(e.message)); \(unchanged): give --db the path of an Urna file, "
                    + "or a new path to create one"
            } else if e.primaryCode == corrupt {
                reason =
                    "the database is damaged (\(e.message)); \(unchanged): see `sqlite3 FILE 'PRAGMA integrity_check'` "
                    + "and restore the file from a backup"
            } else if e.primaryCode == cannotOpen {
                reason = "cannot open the database (\(e.message)): its folder must exist and be writable; \(unchanged)"
            } else {
                reason = "\(e.description); \(unchanged)"
            }
            return .database(path: dbPath, reason: reason, exitCode: code)
        }
        if let e = error as? OutputPathError {
            return .database(path: e.path, reason: e.reason + "; nothing was imported", exitCode: e.exitCode)
        }
        if let e = error as? RecordFileError { return .unreadableFile(file: e.file, reason: e.reasonWithoutFile) }
        return .database(path: dbPath, reason: "\(error)", exitCode: 70)
    }
}

extension RecordFileError {
    /// The description without its leading "file: ", for messages that name the file themselves (else it
    /// would read "x.zip: x.zip: ...").
    var reasonWithoutFile: String {
        let d = description
        return d.hasPrefix(file + ": ") ? String(d.dropFirst(file.count + 2)) : d
    }
}
