/// Why a file could not be read at all (as opposed to a bad row, which is a `MalformedRow`).
///
/// Every case names the file (for a zip member, `archive.zip:member.csv`) and its description says
/// what to do about it.
public enum RecordFileError: Error, Sendable, CustomStringConvertible {
    /// The operating system refused an operation (`open`, `read`, ...); `code` is `errno`.
    case io(file: String, operation: String, code: Int32, message: String)
    /// The file has no bytes (or no rows), so there is nothing to recognise.
    case empty(file: String)
    /// The content is not a TSE layout this reader knows; `missingColumns` lists what a candidate,
    /// asset or coalition file needs and this one lacks (empty when the row count alone decided).
    case unrecognized(file: String, reason: String, missingColumns: [String])
    /// TSE data of a family urna does not import (`consulta_cand_complementar`, `motivo_cassacao`, ...), told by
    /// its header; `reason` says what it holds and what to do.
    case otherTSEFile(file: String, family: String, reason: String)
    /// The first row (the header, or the first record of a header-less file) is itself malformed.
    case unreadableFirstRow(MalformedRow)
    /// The zip archive is damaged or uses a feature this reader does not support.
    case zip(file: String, reason: String)

    /// The file the error is about.
    public var file: String {
        switch self {
        case .io(let file, _, _, _), .empty(let file), .unrecognized(let file, _, _), .zip(let file, _),
            .otherTSEFile(let file, _, _):
            return file
        case .unreadableFirstRow(let row): return row.location.file
        }
    }

    /// One line: file, what went wrong, what would fix it.
    public var description: String {
        switch self {
        case .io(let file, let operation, let code, let message):
            return "\(file): cannot \(operation): \(message) (errno \(code))"
        case .empty(let file):
            return "\(file): the file is empty; there is nothing to import"
        case .unrecognized(let file, let reason, let missing):
            let tail = missing.isEmpty ? "" : "; missing columns: \(missing.joined(separator: ", "))"
            return "\(file): not a recognised TSE file: \(reason)\(tail)"
        case .otherTSEFile(let file, let family, let reason):
            return "\(file): TSE's \(family) file, which urna does not import: \(reason)"
        case .unreadableFirstRow(let row):
            return "\(row.location): the first row cannot be read, so the layout cannot be recognised: \(row.reason)"
        case .zip(let file, let reason):
            return "\(file): \(reason)"
        }
    }
}
