/// What an import did, per object type, and where its rejected rows went.
///
/// An object is counted once per run, by what happened to it compared with the database before the
/// run: inserted, updated (some property or list changed) or unchanged. Reading the same candidacy
/// in a state file and in the _BRASIL file therefore counts it once.
///
/// ```swift
/// let summary = try Importer(options: ImportOptions(dbPath: "urna.sqlite")).run(files: paths)
/// print(summary.renderText())
/// print(summary.inserted["Candidate", default: 0])
/// ```
public struct ImportSummary: Sendable, Equatable {
    /// One input file and what came out of it.
    public struct FileReport: Sendable, Equatable {
        /// The path as given.
        public var path: String
        /// The layout recognised (e.g. "consulta_cand 58 columns (2014/2018)", or "XML").
        public var layout: String
        /// Records read (rejects included).
        public var rows: Int
        /// Rows of this file that were rejected.
        public var rejected: Int
    }

    /// Object types in the order the summary shows them.
    public static let types = ["Election", "Party", "Coalition", "Candidate", "GoodType", "Good"]

    /// Objects created, per type.
    public var inserted: [String: Int]
    /// Existing objects whose stored values or lists changed, per type.
    public var updated: [String: Int]
    /// Existing objects read again with nothing to change, per type.
    public var unchanged: [String: Int]
    /// Rows rejected (written to the rejects file).
    public var rejected: Int
    /// The rejects file, or nil when no row was rejected (then no file was written).
    public var rejectsFile: String?
    /// Each input file, in the order read.
    public var files: [FileReport]
    /// Heads of ticket that have a vice after the import (in the elections the run touched).
    public var headsWithVice: Int
    /// Assets read before their candidacy and written once it arrived.
    public var heldAssets: Int
    /// Wall-clock seconds the import took.
    public var elapsedSeconds: Double
    /// What happened to each row read: the counts add up to `rowsRead`.
    public var rows = RowOutcomes()
    /// Optional fields left empty because they could not be read (each is a warning in the rejects file).
    public var fieldsNulled = 0
    /// Fields read in their TSE form rather than as written (an SG_UE whose leading zeros a spreadsheet dropped:
    /// `1074` read as `01074`); each is a warning in the rejects file.
    public var fieldsCorrected = 0
    /// Inputs and zip members skipped (empty files), with why.
    public var warnings: [String] = []

    /// What happened to the rows read, one count per row: candidacy and asset rows were inserted, updated
    /// (they brought a newer or a missing value), unchanged, superseded (an older generation that added
    /// nothing) or conflicts (their key names another object); legend rows fed coalitions and parties;
    /// the rest were rejected.
    public struct RowOutcomes: Sendable, Equatable {
        public var inserted = 0
        public var updated = 0
        public var unchanged = 0
        public var superseded = 0
        public var conflicts = 0
        /// consulta_legendas / consulta_coligacao rows (merged into coalitions and parties).
        public var legend = 0

        mutating func count(_ outcome: UpsertStatements.Outcome) {
            switch outcome {
            case .inserted: inserted += 1
            case .updated: updated += 1
            case .unchanged: unchanged += 1
            case .superseded: superseded += 1
            case .conflict: conflicts += 1
            }
        }
    }

    /// An empty summary (every type at zero).
    public init() {
        inserted = Dictionary(uniqueKeysWithValues: Self.types.map { ($0, 0) })
        updated = inserted
        unchanged = inserted
        rejected = 0
        rejectsFile = nil
        files = []
        headsWithVice = 0
        heldAssets = 0
        elapsedSeconds = 0
    }

    /// Rows read over all files.
    public var rowsRead: Int { files.reduce(0) { $0 + $1.rows } }

    /// The rows the outcomes account for: each row read is inserted, updated, unchanged, superseded, a conflict, a
    /// legend row or rejected.
    public var rowsAccounted: Int {
        rows.inserted + rows.updated + rows.unchanged + rows.superseded + rows.conflicts + rows.legend + rejected
    }

    /// Throws (so the run commits nothing) when the outcomes do not account for every row read: a row the
    /// importer read and then lost on its way to the file (eighth real-files trial: rows read but never written
    /// reported exit 0 and a summary that did not add up).
    func checkRowsAddUp(path: String) throws {
        guard rowsAccounted != rowsRead else { return }
        throw ImportError.database(
            path: path,
            reason: "internal error: \(rowsRead) rows were read but the outcomes account for \(rowsAccounted); the "
                + "import was rolled back and the database is as it was; please report this with the files imported",
            exitCode: 70)
    }
}
