import UrnaRecords

/// One column of an exported TSE row.
enum ExportColumn: Equatable {
    /// A column the mapper reads: its value comes from `TSEColumnWriter`.
    case mapper(MapperColumn)
    /// DT_GERACAO / HH_GERACAO: when the file was generated.
    case generationDate, generationTime
    /// A TSE column the mapper does not read (codes beside descriptions, ages...): written as its null marker.
    case unread(String)

    /// The column's canonical TSE name.
    var name: String {
        switch self {
        case .mapper(let c): c.name
        case .generationDate: "DT_GERACAO"
        case .generationTime: "HH_GERACAO"
        case .unread(let name): name
        }
    }
}

/// Which columns each exported record carries, taken from the TSE layouts (`TSELayouts`, modern names) and
/// from what the mapper reads (`MapperColumn`, `TSEColumnWriter.source`), never listed a second time here.
enum ExportLayouts {
    /// consulta_cand rows: the newest full layout (2022 as regenerated in 2023, 75 columns), modern names.
    static let candidateCSV = columns(TSELayouts.candidate75)
    /// bem_candidato rows: the 19-column layout.
    static let assetCSV = columns(TSELayouts.asset19)
    /// consulta_coligacao rows: the 2018-2026 layout (28 columns).
    static let coalitionCSV = columns(TSELayouts.coalition28)

    /// `<candidato>` children: the consulta_cand columns the mapper reads from the election, the candidacy,
    /// its party and its coalition, in layout order.
    static let candidateXML = mapperColumns(candidateCSV, from: [.election, .candidate, .party, .coalition])
    /// `<bem>` children: the asset's own columns; its keys come from the enclosing `<candidato>`.
    static let assetXML = mapperColumns(assetCSV, from: [.good, .goodType])
    /// `<coligacao>` children: the coalition and one of its parties.
    static let coalitionXML = mapperColumns(coalitionCSV, from: [.coalition, .party])

    /// `columns` without CD_ELEICAO: the layout of rows of header-less elections, which the mapper keys by
    /// ANO_ELEICAO + NR_TURNO + DS_ELEICAO only when CD_ELEICAO is absent.
    static func withoutElectionCode(_ columns: [ExportColumn]) -> [ExportColumn] {
        columns.filter { $0 != .mapper(.CD_ELEICAO) }
    }

    static func columns(_ layout: TSELayout) -> [ExportColumn] {
        layout.canonicalColumns.map { name in
            if let c = TSEColumnWriter.mapperColumn(named: name) { return .mapper(c) }
            switch name {
            case "DT_GERACAO": return .generationDate
            case "HH_GERACAO": return .generationTime
            default: return .unread(name)
            }
        }
    }

    private static func mapperColumns(_ columns: [ExportColumn], from sources: [TSEColumnWriter.Source])
        -> [MapperColumn]
    {
        columns.compactMap { column in
            guard case .mapper(let c) = column, sources.contains(TSEColumnWriter.source(of: c)) else { return nil }
            return c
        }
    }
}
