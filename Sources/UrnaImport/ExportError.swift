import Foundation

/// Why an export stopped; each case says what would fix it. `exitCode`: 64 bad usage, 65 data the
/// format cannot carry, 66 missing database, 74 output error.
public enum ExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The type does not exist in the file, or the format cannot export it.
    case unsupportedType(type: String, format: ExportFormat, supported: [String])
    /// The encoding cannot be used with the format (JSON is UTF-8 only).
    case unsupportedEncoding(format: ExportFormat, encoding: ExportEncoding)
    /// The file is not an elections file this exporter can read as TSE rows.
    case notAnElectionsFile(reason: String)
    /// A value has a character the output encoding or format cannot carry.
    case unencodable(type: String, key: String, column: String, scalar: UInt32, hint: String)
    /// A stored value has no TSE rendering (a hand-edited row, a candidacy without election...).
    case unrepresentable(type: String, key: String, column: String, reason: String)
    /// One CSV file cannot hold rows of elections with and without CD_ELEICAO (see `ElectionExporter`).
    case mixedElectionKeys
    /// Writing the output failed.
    case output(path: String, message: String)

    /// The process exit status a command line should use.
    public var exitCode: Int32 {
        switch self {
        case .unsupportedType, .unsupportedEncoding: 64
        case .notAnElectionsFile, .unencodable, .unrepresentable, .mixedElectionKeys: 65
        case .output: 74
        }
    }

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .unsupportedType(let type, let format, let supported):
            return "\(format.rawValue) export cannot write '\(type)': choose --type "
                + supported.joined(separator: ", ")
        case .unsupportedEncoding(let format, let encoding):
            return "\(format.rawValue) is always UTF-8: drop --encoding \(encoding.rawValue)"
        case .notAnElectionsFile(let reason):
            return "\(reason): XML and CSV write TSE rows, from an elections file at its latest version "
                + "(`urna migrate` upgrades an older one); --format json exports any file"
        case .unencodable(let type, let key, let column, let scalar, let hint):
            let code = "U+" + String(scalar, radix: 16, uppercase: true).leftPadded(to: 4)
            return "\(type) \(key): \(column) holds the character \(code), which \(hint)"
        case .unrepresentable(let type, let key, let column, let reason):
            return "\(type) \(key): \(column) \(reason)"
        case .mixedElectionKeys:
            return "the selected candidacies mix elections with a CD_ELEICAO and header-less originals without one, "
                + "and one TSE CSV file cannot key both: export them apart (\"election.code != nil\" and "
                + "\"election.code == nil\") or use --format xml"
        case .output(let path, let message):
            return "cannot write \(path): \(message)"
        }
    }
}

extension ExportError {
    /// Why a file export stopped on a full disk (or quota, or file size limit), with the export's true size,
    /// measured by running it to its end without writing, and the room the disk had.
    static func diskFullMessage(errno code: Int32, needed: Int64, free: Int64) -> String {
        func megabytes(_ b: Int64) -> String { String(format: "%.1f MB", Double(b) / 1_048_576) }
        let what =
            code == EDQUOT
            ? "the disk quota is used up" : code == EFBIG ? "the file is over the size limit" : "the disk is full"
        let room = free >= 0 ? ", \(megabytes(free)) are free there" : ""
        return "\(what) (\(String(cString: strerror(code)))): the export takes \(megabytes(needed))\(room); "
            + "nothing was written: free some space or choose --out on another disk"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
