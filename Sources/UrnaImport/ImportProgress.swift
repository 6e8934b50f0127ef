/// Receives progress while an import runs; the library never prints, a command line draws this.
///
/// Calls come on the importing thread, about every 10,000 rows and at each phase change; keep them cheap.
///
/// ```swift
/// final class Bar: ImportProgress {
///     func importProgress(_ p: ImportProgressSnapshot) {
///         print("\(p.rowsRead) rows, \(Int(p.rowsPerSecond)) rows/s", terminator: "\r")
///     }
/// }
/// ```
public protocol ImportProgress: AnyObject {
    /// The import moved on: more rows read, another file, or another phase.
    func importProgress(_ snapshot: ImportProgressSnapshot)
}

/// Where an import stands.
public struct ImportProgressSnapshot: Sendable, Equatable {
    /// What the importer is doing.
    public enum Phase: String, Sendable {
        /// Reading files and writing their rows.
        case reading
        /// Writing assets whose candidacy came later in the run.
        case heldAssets
        /// Writing elections, parties, coalitions and good types.
        case catalogues
        /// Linking each head of ticket to their vice.
        case linkingVices
        /// Committing the transaction.
        case committing
        /// Done.
        case finished
    }

    /// What the importer is doing now.
    public var phase: Phase
    /// The file being read (as locations show it), or nil between files.
    public var file: String?
    /// 1-based index of that file among the run's files.
    public var fileIndex: Int
    /// How many files the run reads.
    public var fileCount: Int
    /// Bytes of input consumed so far, over all files.
    public var bytesRead: Int64
    /// Total bytes of all input files.
    public var bytesTotal: Int64
    /// Rows (records and rejects) read so far.
    public var rowsRead: Int
    /// Rows rejected so far.
    public var rejected: Int
    /// Seconds since the import started.
    public var elapsedSeconds: Double

    /// Rows per second since the start (0 before the first measurable interval).
    public var rowsPerSecond: Double { elapsedSeconds > 0 ? Double(rowsRead) / elapsedSeconds : 0 }

    /// Fraction of the input bytes read, 0...1.
    public var fractionRead: Double { bytesTotal > 0 ? min(1, Double(bytesRead) / Double(bytesTotal)) : 0 }
}

/// Keeps every snapshot it receives: the in-memory twin for tests.
public final class RecordingImportProgress: ImportProgress {
    /// Snapshots in the order received.
    public private(set) var snapshots: [ImportProgressSnapshot] = []

    public init() {}

    public func importProgress(_ snapshot: ImportProgressSnapshot) { snapshots.append(snapshot) }
}
