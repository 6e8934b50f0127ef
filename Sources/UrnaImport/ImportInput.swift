import UrnaRecords
import UrnaSchemas

/// One input file, opened and recognised: a TSE CSV/TXT (or a zip of them) or an XML dump.
final class ImportInput {
    enum Reader {
        case tse(TSEFileReader)
        case xml(XMLRecordReader)
        /// An empty file (or a zip whose data members are all empty or blank), by the name that held no data:
        /// skipped with a warning.
        case empty(String)
    }

    let path: String
    let reader: Reader
    let size: Int64
    /// The recognised layout's name (of the first member, for a zip), for the summary. Fixed at open:
    /// the reader itself then belongs to the pipeline's reading thread.
    let layoutName: String
    /// Why parts of the input are skipped (an empty file, empty or blank zip members), for the summary: complete
    /// once the input has been read to its end (blank members are found as they are reached).
    var warnings: [String] {
        switch reader {
        case .tse(let r):
            r.mayBeWindows1252.map {
                "\($0): read as Latin-1, but it holds bytes 0x80-0x9F, which Latin-1 reads as control characters: if "
                    + "the file is Windows-1252 (curly quotes, dashes, €), import it again with --encoding cp1252"
            }
                + r.trailingSeparators.map { file, rows in
                    "\(file): \(rows) \(rows == 1 ? "row ends" : "rows end") with a separator after the last column; "
                        + "the empty field after it was ignored, the rest of \(rows == 1 ? "the" : "each") row read"
                }
                + r.emptyMembers.map { "\(path): member \($0) is empty (0 bytes); skipped" }
                + r.skippedMembers.compactMap(Self.skippedMemberWarning).map { "\(path): \($0)" }
                + r.blankMembers.map { "\(path): member \($0) holds no row (only line breaks or spaces); skipped" }
                + r.otherFamilyMembers.map { "\(path): member \($0.name) is \($0.why); skipped" }
                + r.textMembers.map {
                    "\(path): member \($0.name) skipped: it is text, not a TSE table (its first line, '\($0.firstLine)', "
                        + "has no ';' and names no TSE column); if it is TSE data, import it on its own to see why"
                }
                + r.layouts.compactMap { file, layout in
                    if layout.kind == .coalition {
                        let dropped = Self.unstoredCoalitionColumns(of: layout)
                        guard !dropped.isEmpty else { return nil }
                        return
                            "\(file): the coalition layout's columns \(dropped.joined(separator: ", ")) are not stored: "
                            + "urna keeps each coalition (SQ_COLIGACAO) with its unit, name, kind, composition and parties, "
                            + "not the election, round and office of each row; keep the file for those"
                    }
                    // An empty name is a header ending in a separator (or holding two in a row): named so.
                    let unknown = Self.unstoredColumns(of: layout).map { $0.isEmpty ? "(unnamed)" : $0 }
                    guard !unknown.isEmpty else { return nil }
                    let s = unknown.count == 1 ? "" : "s"
                    return
                        "\(file): column\(s) \(unknown.joined(separator: ", ")) \(unknown.count == 1 ? "is" : "are") in no "
                        + "TSE layout urna knows; \(unknown.count == 1 ? "its" : "their") values were not stored (the rest "
                        + "of each row was)"
                }
        case .xml(let r): Self.unreadXML(r.unknownElementCounts, path: path)
        case .empty(let file): ["\(path): \(file) holds no data (empty file or only empty members); skipped"]
        }
    }

    /// Why a zip member that is no .csv/.txt was left unread, for members that might be data: nothing for the
    /// documents TSE ships beside the data (PDFs, read-mes), folders and macOS metadata.
    static func skippedMemberWarning(_ name: String) -> String? {
        let lower = name.lowercased()
        let base = lower.split(separator: "/").last.map(String.init) ?? lower
        if lower.hasSuffix("/") || lower.hasPrefix("__macosx/") || lower.contains("/__macosx/") || base.hasPrefix(".")
            || lower.hasSuffix(".pdf") || base.hasPrefix("leiame") || base.hasPrefix("readme")
        {
            return nil
        }
        if lower.hasSuffix(".zip") {
            return "member \(name) skipped: a zip inside a zip is not opened (unzip it and import its files)"
        }
        return "member \(name) skipped: urna reads a zip's .csv and .txt members (rename it if it is TSE data)"
    }

    /// The warning for an XML input's elements and attributes that no record took (unknown names, markup or stray
    /// text inside records), with how often each came; none when every one was read.
    static func unreadXML(_ counts: [String: Int], path: String) -> [String] {
        let unread = counts.sorted { $0.key < $1.key }
        guard !unread.isEmpty else { return [] }
        let listed = unread.prefix(12).map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
        return [
            "\(path): elements and attributes not stored: \(listed)\(unread.count > 12 ? ", ..." : ""): they are in no "
                + "TSE layout urna knows, or are markup or stray text inside the records (the rest of each record was read)"
        ]
    }

    /// The columns urna stores: those the mapper reads and the source columns kept as they are.
    static let storedColumns: Set<String> = Set(
        MapperColumn.allCases.map(\.name) + ElectionsV4.sourceColumns.map(\.name))

    /// What a coalition legend row (consulta_legendas, consulta_coligacao) stores: its coalition and party
    /// (`ElectionMapper.mapCoalitionMember`); the rest of the row is not kept.
    static let storedCoalitionColumns: Set<String> = [
        "DT_GERACAO", "HH_GERACAO", "ANO_ELEICAO", "SG_UE", "SQ_COLIGACAO", "NM_COLIGACAO", "DS_COMPOSICAO_COLIGACAO",
        "TP_AGREMIACAO", "NR_PARTIDO", "SG_PARTIDO", "NM_PARTIDO",
    ]

    /// A coalition layout's columns that are not stored, by their names in the file, with or without a header.
    static func unstoredCoalitionColumns(of layout: TSELayout) -> [String] {
        columns(of: layout, outside: storedCoalitionColumns)
    }

    /// A header's columns that urna does not store (a column a new TSE release added, a user's own).
    static func unstoredColumns(of layout: TSELayout) -> [String] {
        guard layout.hasHeader else { return [] }
        return columns(of: layout, outside: storedColumns)
    }

    /// The layout's columns whose canonical name is not in `stored`, each once, by their names in the file.
    private static func columns(of layout: TSELayout, outside stored: Set<String>) -> [String] {
        var seen = Set<String>()
        return zip(layout.fileColumns, layout.canonicalColumns).compactMap { file, canonical in
            stored.contains(canonical) || !seen.insert(file).inserted ? nil : file
        }
    }

    /// Opens and recognises `path`; throws `ImportError` naming the file (66 missing, 65 unrecognised).
    init(path: String, encoding: TextEncodingChoice) throws {
        self.path = path
        do {
            let head = try ImportInput.firstBytes(of: path, count: 512)
            if XMLRecordReader.looksLikeXML(firstBytes: head) {
                let xml = try XMLRecordReader(path: path, canonicalName: TSELayouts.canonicalName)
                reader = .xml(xml)
                size = xml.fileSize
                layoutName = "XML records"
            } else {
                let tse = try TSEFileReader(path: path, encoding: encoding)
                reader = .tse(tse)
                size = tse.fileSize
                layoutName = tse.layoutName
            }
        } catch let error as RecordFileError {
            switch error {
            case .empty(let file):
                reader = .empty(file)
                size = (try? FileByteSource(path: path).size) ?? 0
                layoutName = "empty (skipped)"
                return
            case .io(_, let operation, _, let message):
                throw ImportError.missingFile(path: path, reason: "cannot \(operation): \(message)")
            case .unrecognized(let file, let reason, let missing):
                throw ImportError.unrecognizedFile(
                    file: file, reason: "not a recognised TSE file: \(reason)", missingColumns: missing)
            case .otherTSEFile(let file, let family, let reason):
                throw ImportError.unrecognizedFile(
                    file: file, reason: "TSE's \(family) file, which urna does not import: \(reason)",
                    missingColumns: [])
            case .unreadableFirstRow, .zip:
                throw ImportError.unrecognizedFile(
                    file: error.file, reason: error.reasonWithoutFile, missingColumns: [])
            }
        } catch {
            // XML refused at its start (a DOCTYPE, another encoding, not well-formed).
            throw ImportError.unrecognizedFile(file: path, reason: "\(error)", missingColumns: [])
        }
    }

    /// Asset files go after every other file (in the order given otherwise), so an asset usually finds
    /// its candidacy already written and is not held in memory. Candidate and legend files keep the
    /// given order: party and coalition names take the latest values seen.
    var orderRank: Int {
        if case .tse(let r) = reader, r.kind == .asset { return 1 }
        return 0
    }

    /// Whether the input can hold candidacy records (every input but a CSV asset file).
    var mayHoldCandidacies: Bool {
        switch reader {
        case .tse(let r): r.kind != .asset
        case .xml: true
        case .empty: false
        }
    }

    var bytesRead: Int64 {
        switch reader {
        case .tse(let r): r.bytesRead
        case .xml(let r): min(r.bytesRead, size)
        case .empty: size
        }
    }

    func next() throws -> RecordOrReject? {
        switch reader {
        case .tse(let r): try r.next()
        case .xml(let r): try r.next()
        case .empty: nil
        }
    }

    private static func firstBytes(of path: String, count: Int) throws -> [UInt8] {
        let source = try FileByteSource(path: path)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = try bytes.withUnsafeMutableBytes { try source.read(into: $0) }
        return Array(bytes.prefix(n))
    }
}
