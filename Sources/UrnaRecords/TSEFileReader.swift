/// Reads a TSE candidate-data file, or every data member of a .zip of them, as records.
///
/// The file type is told by content: a zip by its signature, a layout by its header names or, for
/// header-less originals, its field count (see `TSELayouts.recognize`). Members of a zip are read in
/// turn, each recognised on its own; their locations read `archive.zip:member.csv`. Non-data
/// members (LEIAME PDFs, folders) are skipped. Everything streams: memory stays flat.
///
/// ```swift
/// let reader = try TSEFileReader(path: "consulta_cand_2018.zip", encoding: .auto)
/// print(reader.layoutName, reader.encoding)
/// while let item = try reader.next() {
///     switch item {
///     case .record(let record): use(record["SQ_CANDIDATO"])
///     case .reject(let row): report(row)          // "file:line: expected 58 fields, found 57"
///     }
/// }
/// ```
///
/// It is also a `Sequence` of `RecordOrReject`. A sequence cannot throw, so if reading fails midway
/// (I/O error, damaged zip member, unrecognisable next member), iteration yields one last
/// `.reject` whose reason starts with "reading stopped:", stores the error in `failure`, and ends.
/// Callers that prefer an exception use `next()` or `forEach(_:)`.
public final class TSEFileReader: Sequence {
    /// The path as given.
    public let path: String
    /// The name used in locations: the file name, without its directory.
    public let displayName: String
    /// The encoding asked for.
    public let requestedEncoding: TextEncodingChoice
    /// The CSV options in force.
    public let options: CSVOptions
    /// True when the file is a zip archive.
    public let isZip: Bool
    /// Size of the file on disk in bytes (for a progress bar, with `bytesRead`).
    public let fileSize: Int64
    /// Names of the zip members that will be read, in order (empty for a plain file).
    public let dataMembers: [String]
    /// Names of the zip members skipped as not data (PDFs, read-mes, folders).
    public let skippedMembers: [String]
    /// Names of the data members skipped because they hold no bytes (TSE ships some empty).
    public let emptyMembers: [String]
    /// Names of the data members skipped so far because they hold bytes but no row (only line breaks or
    /// spaces): found when each member is opened, so complete once the reader has reached its end.
    public private(set) var blankMembers: [String] = []
    /// The data members skipped so far because they are TSE data urna does not import (a
    /// consulta_cand_complementar member beside consulta_cand ones), with what they are (`RecordFileError`'s
    /// `.otherTSEFile` text without the name); complete once the reader has reached its end.
    public private(set) var otherFamilyMembers: [(name: String, why: String)] = []
    /// The `.csv`/`.txt` members skipped so far because they are no table at all (a read-me or notes under another
    /// name: a first line without a separator, naming no TSE column), with that first line, cut short; complete once
    /// the reader has reached its end. A member shaped like TSE data that urna cannot read still stops the zip.
    public private(set) var textMembers: [(name: String, firstLine: String)] = []
    /// The layout of the file, or of each zip member opened so far (named `archive.zip:member.csv`), in order.
    public private(set) var layouts: [(file: String, layout: TSELayout)] = []
    /// The file, or the zip members opened so far, read as Latin-1 although bytes 0x80-0x9F suggest Windows-1252
    /// (see `CSVReader.mayBeWindows1252`): those in the first 64 KiB at open, the others once read to the end.
    public private(set) var mayBeWindows1252: [String] = []
    /// Files (or members) read to their end whose rows ended in a separator after the last column, with how many
    /// rows did: the empty field after it is ignored (`TSERecordStream`).
    public private(set) var trailingSeparators: [(file: String, rows: Int)] = []
    /// The error that ended a `for`-loop iteration early, if one did.
    public private(set) var failure: Error?

    private let file: FileByteSource
    private let archive: ZipArchive?
    private var remainingEntries: [ZipArchive.Entry]
    private var entrySource: ZipEntryByteSource?
    private var stream: TSERecordStream?
    private var done = false
    /// The first member of a family urna does not import, as the error a zip holding only such members gives.
    private var firstOtherFamily: RecordFileError?

    /// Opens a file or zip archive and recognises its (first member's) layout.
    ///
    /// Throws `RecordFileError`: `.io` when the file cannot be read, `.unrecognized` when the
    /// content is no known TSE layout (the message lists the missing required columns), `.empty`,
    /// `.zip` for an archive it cannot read or one without a data member.
    public init(path: String, encoding: TextEncodingChoice = .auto, options: CSVOptions = CSVOptions()) throws {
        self.path = path
        self.displayName = CSVReader.fileName(of: path)
        self.requestedEncoding = encoding
        self.options = options
        let file = try FileByteSource(path: path)
        self.file = file
        self.fileSize = file.size
        if try ZipArchive.looksLikeZip(file) {
            let archive = try ZipArchive(file: file, name: displayName)
            let data = archive.entries.filter { $0.isDataFile && $0.uncompressedSize > 0 }
            let empty = archive.entries.filter { $0.isDataFile && $0.uncompressedSize == 0 }
            if data.isEmpty && !empty.isEmpty { throw RecordFileError.empty(file: displayName) }
            guard !data.isEmpty else {
                // An XML dump zipped to be shared: named, with the way to read it (XML is read as a file only).
                let xml = archive.entries.filter { !$0.isDirectory && $0.name.lowercased().hasSuffix(".xml") }
                let hint =
                    xml.first.map {
                        " but XML (\($0.name)): urna reads an XML dump as a file, not inside a zip; extract it and "
                            + "import the .xml"
                    } ?? "; nothing to import"
                throw RecordFileError.zip(
                    file: displayName, reason: "the archive has no data member (.csv or .txt)\(hint)")
            }
            self.archive = archive
            self.isZip = true
            self.dataMembers = data.map(\.name)
            self.skippedMembers = archive.entries.filter { !$0.isDataFile }.map(\.name)
            self.emptyMembers = empty.map(\.name)
            self.remainingEntries = data
            // The first member with a row gives the layout; blank members before it are skipped, and a zip
            // of blank members only is empty as a whole.
            guard try openNextMember() else {
                // Only members of a family urna does not import: the whole zip is that family's.
                if let first = firstOtherFamily { throw first }
                if !textMembers.isEmpty {
                    throw RecordFileError.zip(
                        file: displayName,
                        reason: "the archive holds no TSE data: its members "
                            + textMembers.map(\.name).joined(separator: ", ") + " are text that is no table")
                }
                throw RecordFileError.empty(file: displayName)
            }
        } else {
            self.archive = nil
            self.isZip = false
            self.dataMembers = []
            self.skippedMembers = []
            self.emptyMembers = []
            self.remainingEntries = []
            let csv = try CSVReader(source: file, name: displayName, encoding: encoding, options: options)
            let opened = try TSERecordStream(csv: csv)
            stream = opened
            layouts = [(displayName, opened.layout)]
            if csv.mayBeWindows1252 { mayBeWindows1252 = [displayName] }
        }
    }

    /// The layout of the file, or of the zip member being read.
    public var layout: TSELayout { currentStream.layout }

    /// The layout's name, e.g. "consulta_cand 58 columns (2014/2018)".
    public var layoutName: String { layout.name }

    /// What the records are (candidates, assets, coalitions).
    public var kind: RecordKind { layout.kind }

    /// The encoding in use (detected or forced) for the file or current member.
    public var encoding: TextEncoding { currentStream.csv.encoding }

    /// The name locations use now: the file name, or `archive.zip:member.csv`.
    public var currentFile: String { currentStream.csv.name }

    /// Bytes of the file on disk consumed so far (compressed bytes for a zip), for progress.
    public var bytesRead: Int64 {
        if done { return fileSize }
        if let entrySource { return Swift.min(fileSize, entrySource.dataStart + entrySource.compressedBytesRead) }
        return file.bytesRead
    }

    private var currentStream: TSERecordStream {
        guard let stream else { preconditionFailure("TSEFileReader always has a stream once initialised") }
        return stream
    }

    /// The next record or reject; nil after the last one. Throws `RecordFileError` on I/O failure,
    /// a damaged zip member, or a zip member that is not a recognisable TSE file.
    public func next() throws -> RecordOrReject? {
        while !done {
            if let item = try currentStream.next() { return item }
            // Read to its end: a Windows-1252 byte past the first 64 KiB is known only now.
            let csv = currentStream.csv
            if csv.mayBeWindows1252 && !mayBeWindows1252.contains(csv.name) { mayBeWindows1252.append(csv.name) }
            if currentStream.rowsWithTrailingSeparator > 0 {
                trailingSeparators.append((csv.name, currentStream.rowsWithTrailingSeparator))
            }
            if try remainingEntries.isEmpty || !openNextMember() { done = true }
        }
        return nil
    }

    /// Calls `body` for every remaining record or reject, in file order.
    public func forEach(_ body: (RecordOrReject) throws -> Void) throws {
        while let item = try next() { try body(item) }
    }

    /// Opens the next member that holds a row, skipping (and noting) blank ones; false when none is left.
    private func openNextMember() throws -> Bool {
        guard let archive else { return false }
        while !remainingEntries.isEmpty {
            let entry = remainingEntries.removeFirst()
            let source = try archive.open(entry)
            let csv = try CSVReader(
                source: source, name: "\(displayName):\(CSVReader.shownName(entry.name))", encoding: requestedEncoding,
                options: options)
            do {
                let next = try TSERecordStream(csv: csv)
                entrySource = source
                stream = next
                layouts.append((csv.name, next.layout))
                if csv.mayBeWindows1252 { mayBeWindows1252.append(csv.name) }
                return true
            } catch RecordFileError.empty {
                blankMembers.append(entry.name)
            } catch RecordFileError.otherTSEFile(_, let family, let reason) {
                if firstOtherFamily == nil {
                    firstOtherFamily = RecordFileError.otherTSEFile(file: displayName, family: family, reason: reason)
                }
                otherFamilyMembers.append((entry.name, "TSE's \(family) file, which urna does not import: \(reason)"))
            } catch RecordFileError.unrecognized(let file, let reason, let missing) {
                guard let line = try Self.textFirstLine(archive.open(entry), name: csv.name, entry: entry.name) else {
                    throw RecordFileError.unrecognized(file: file, reason: reason, missingColumns: missing)
                }
                textMembers.append((entry.name, line))
            }
        }
        return false
    }

    /// The first line of a zip member that is no table (see `textMembers`), or nil when it may be TSE data: its
    /// name is a TSE family's, its first line holds a `;`, another separator between TSE fields
    /// (`TSELayouts.otherSeparator`), or a TSE column name.
    static func textFirstLine(_ source: ZipEntryByteSource, name: String, entry: String) throws -> String? {
        let base = (entry.split(separator: "/").last.map(String.init) ?? entry).lowercased()
        let families = ["consulta_", "bem_candidato", "motivo_cassacao", "rede_social", "votacao_", "perfil_"]
        if families.contains(where: base.hasPrefix) { return nil }
        let probe = try CSVReader(source: source, name: name)
        while let result = try probe.next() {
            guard case .row(let row) = result else { return nil }
            let fields = row.strings
            if fields.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) { continue }
            guard fields.count == 1, TSELayouts.otherSeparator(firstLine: fields[0]) == nil else { return nil }
            let words = fields[0].split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
            if words.contains(where: { TSELayouts.knownColumnNames.contains(TSELayouts.normalize(String($0))) }) {
                return nil
            }
            return String(fields[0].prefix(60))
        }
        return nil
    }

    /// Iterates records and rejects; see the type's notes on how a mid-file failure is reported.
    public struct Iterator: IteratorProtocol {
        let reader: TSEFileReader

        /// The next item, a final "reading stopped" reject after a failure, or nil at the end.
        public mutating func next() -> RecordOrReject? {
            guard reader.failure == nil else { return nil }
            do {
                return try reader.next()
            } catch {
                reader.failure = error
                reader.done = true
                let location = SourceLocation(
                    file: reader.stream?.csv.name ?? reader.displayName, line: reader.stream?.csv.currentLine ?? 0)
                return .reject(MalformedRow(location: location, reason: "reading stopped: \(error)", rawBytes: []))
            }
        }
    }

    /// An iterator over the remaining items (the reader is single-pass).
    public func makeIterator() -> Iterator { Iterator(reader: self) }
}
