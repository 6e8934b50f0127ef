/// Recognising a TSE file by its content: a header row by its column names, a header-less
/// original by its field count. File names are never consulted.
extension TSELayouts {
    /// The columns a file of each kind must have (canonical names) for the importer to key its rows.
    public static func requirements(for kind: RecordKind) -> [ColumnRequirement] {
        switch kind {
        case .candidate:
            return [
                ColumnRequirement(["CD_ELEICAO"], ["ANO_ELEICAO", "NR_TURNO", "DS_ELEICAO"]),
                ColumnRequirement(["SQ_CANDIDATO"]), ColumnRequirement(["NR_CANDIDATO"]),
                ColumnRequirement(["NM_CANDIDATO"]), ColumnRequirement(["CD_CARGO"]), ColumnRequirement(["SG_UE"]),
                ColumnRequirement(["NR_PARTIDO"]),
            ]
        case .asset:
            // Assets belong to an election, not a round: the 12-column original has no NR_TURNO.
            return [
                ColumnRequirement(["CD_ELEICAO"], ["ANO_ELEICAO", "DS_ELEICAO"]), ColumnRequirement(["SQ_CANDIDATO"]),
                ColumnRequirement(["CD_TIPO_BEM_CANDIDATO"]), ColumnRequirement(["VR_BEM_CANDIDATO"]),
            ]
        case .coalition:
            return [
                ColumnRequirement(["CD_ELEICAO"], ["ANO_ELEICAO", "NR_TURNO", "DS_ELEICAO"]),
                ColumnRequirement(["SQ_COLIGACAO"]), ColumnRequirement(["NR_PARTIDO"]),
            ]
        }
    }

    /// The TSE file family of a kind, for names and messages.
    static func family(of kind: RecordKind) -> String {
        switch kind {
        case .candidate: return "consulta_cand"
        case .asset: return "bem_candidato"
        case .coalition: return "consulta_coligacao"
        }
    }

    /// The layout of a file whose first row is `firstRow` (decoded fields).
    ///
    /// A row whose fields are mostly known TSE column names (or all look like column names) is a
    /// header: its layout is the catalogued one with exactly those names, or else a layout built from
    /// the header itself once the kind's required columns are found. Any other first row is data, and
    /// its field count picks a header-less original (or, when its last field is empty, its count without that
    /// one). A header whose last name is empty (a separator ending the line) is read without it. Throws
    /// `RecordFileError.unrecognized` naming `file` and the required columns that are missing.
    public static func recognize(firstRow: [String], file: String) throws -> TSELayout {
        var names = firstRow.map(normalize)
        if names.count > 2, names[names.count - 1].isEmpty, !names[names.count - 2].isEmpty,
            looksLikeHeader(names.dropLast())
        {
            // A header ending with a separator (a tool that writes one after each field): its layout is that of
            // the names before it, and `TSERecordStream` reads the rows that end so too.
            names.removeLast()
        }
        if looksLikeHeader(names) {
            if let twice = duplicateColumn(names) {
                throw RecordFileError.unrecognized(
                    file: file,
                    reason:
                        "its header names \(twice.description) (columns \(twice.first) and \(twice.second)): each row "
                        + "could keep only one of the two values; rename or remove one of them",
                    missingColumns: [])
            }
            if let known = headerLayouts.first(where: { $0.fileColumns == names }) { return known }
            let canonical = Set(names.map { renames[$0] ?? $0 })
            // TSE data of another kind (consulta_cand_complementar names SQ_CANDIDATO): said as such, not as a
            // damaged candidate file. Asked only of headers no importable layout would accept.
            let importable = kind(of: canonical).map { missing(for: $0, in: canonical).isEmpty } ?? false
            if !importable, let other = otherFamily(of: canonical) {
                throw RecordFileError.otherTSEFile(file: file, family: other.family, reason: other.reason)
            }
            guard let kind = kind(of: canonical) else {
                let shown = names.prefix(8).joined(separator: ", ") + (names.count > 8 ? ", ..." : "")
                throw RecordFileError.unrecognized(
                    file: file,
                    reason: "its first row looks like a header (\(names.count) columns: \(shown)) but has none of the "
                        + "key columns of a candidate, asset or coalition file. \(allRequirementsText)",
                    missingColumns: missing(for: .candidate, in: canonical))
            }
            let lacking = missing(for: kind, in: canonical)
            guard lacking.isEmpty else {
                throw RecordFileError.unrecognized(
                    file: file,
                    reason: "its header looks like a \(family(of: kind)) (\(kind.rawValue)) file but lacks required "
                        + "columns. \(requirementsText(kind))",
                    missingColumns: lacking)
            }
            return TSELayout(
                name: "\(family(of: kind)) \(names.count) columns (header not in the catalogue)", kind: kind,
                hasHeader: true, fileColumns: names)
        }
        if let original = headerless(fieldCount: firstRow.count) { return original }
        if firstRow.count > 1, firstRow[firstRow.count - 1].isEmpty,
            let original = headerless(fieldCount: firstRow.count - 1)
        {
            return original  // a separator after the last field: `TSERecordStream` reads the rows that end so too
        }
        if firstRow.count == 1, let hint = otherSeparator(firstLine: firstRow[0]) {
            throw RecordFileError.unrecognized(file: file, reason: hint, missingColumns: [])
        }
        let counts =
            "header-less TSE originals have 46, 44 or 43 fields (consulta_cand), 12 (bem_candidato) or 18 "
            + "(consulta_legendas)"
        throw RecordFileError.unrecognized(
            file: file,
            reason: "its first row has \(firstRow.count) field\(firstRow.count == 1 ? "" : "s") and is not a header; "
                + "\(counts), and a file with a header row must name the required columns. \(allRequirementsText)",
            missingColumns: missing(for: .candidate, in: []))
    }

    /// The first column a header names twice (itself, or under an older name of the same column), with both
    /// 1-based positions; nil when every column is named once.
    static func duplicateColumn(_ names: [String]) -> (description: String, first: Int, second: Int)? {
        var seen: [String: Int] = [:]
        for (i, name) in names.enumerated() where !name.isEmpty {
            let canonical = renames[name] ?? name
            if let j = seen[canonical] {
                let description =
                    names[j] == name ? "column \(name) twice" : "one column twice, as \(names[j]) and as \(name)"
                return (description, j + 1, i + 1)
            }
            seen[canonical] = i
        }
        return nil
    }

    /// Which kind a header's columns describe, decided by key columns (assets first: their files
    /// also name the candidate, and candidate files also name the coalition).
    static func kind(of columns: Set<String>) -> RecordKind? {
        let asset = ["CD_TIPO_BEM_CANDIDATO", "VR_BEM_CANDIDATO", "DS_BEM_CANDIDATO", "NR_ORDEM_CANDIDATO"]
        let candidate = ["SQ_CANDIDATO", "NR_CANDIDATO", "NM_CANDIDATO", "NM_URNA_CANDIDATO", "NR_CPF_CANDIDATO"]
        let coalition = ["SQ_COLIGACAO", "NM_COLIGACAO", "DS_COMPOSICAO_COLIGACAO", "TP_AGREMIACAO"]
        if asset.contains(where: columns.contains) { return .asset }
        if candidate.contains(where: columns.contains) { return .candidate }
        if coalition.contains(where: columns.contains) { return .coalition }
        return nil
    }

    /// Descriptions of the requirements of `kind` that `columns` do not meet.
    static func missing(for kind: RecordKind, in columns: Set<String>) -> [String] {
        requirements(for: kind).filter { !$0.isSatisfied(by: columns) }.map(\.description)
    }

    private static func requirementsText(_ kind: RecordKind) -> String {
        "\(kind == .asset ? "An" : "A") \(kind.rawValue) file needs \(requirements(for: kind).map(\.description).joined(separator: ", "))"
    }

    private static var allRequirementsText: String {
        [RecordKind.candidate, .asset, .coalition].map(requirementsText).joined(separator: "; ")
    }

    /// True for a row that names columns rather than holding data.
    static func looksLikeHeader(_ names: some Collection<String>) -> Bool {
        guard !names.isEmpty else { return false }
        let known = names.filter { knownColumnNames.contains($0) }.count
        if known >= 2 && known * 2 >= names.count { return true }
        return names.allSatisfy(isIdentifier)
    }

    /// Letters, digits and underscores, starting with a letter: how every TSE column name is spelled.
    private static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, (0x41...0x5A).contains(first) else { return false }
        return name.utf8.allSatisfy { (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }
}
