import UrnaRecords
import UrnaSchemas

/// One column of an exported TSE row.
enum ExportColumn: Equatable {
    /// A column the mapper reads: its value comes from `TSEColumnWriter`.
    case mapper(MapperColumn)
    /// DT_GERACAO / HH_GERACAO: when the file was generated.
    case generationDate, generationTime
    /// One of `ElectionsV4.sourceColumns` (index into it): kept typed on the candidacy and written back.
    case source(Int)
    /// A TSE column the model does not keep (in asset and coalition files): written as its null marker.
    case unread(String)

    /// The column's canonical TSE name.
    var name: String {
        switch self {
        case .mapper(let c): c.name
        case .generationDate: "DT_GERACAO"
        case .generationTime: "HH_GERACAO"
        case .source(let k): ElectionsV4.sourceColumns[k].name
        case .unread(let name): name
        }
    }
}

/// Which columns each exported record carries, taken from the TSE layouts (`TSELayouts`, modern names) and
/// from what the mapper reads (`MapperColumn`, `TSEColumnWriter.source`), never listed a second time here.
enum ExportLayouts {
    /// consulta_cand rows: the newest full layout (2022 as regenerated in 2023, 75 columns), modern names,
    /// then the columns only originals have (NR_IDADE_DATA_ELEICAO, SG_COLIGACAO), so every source column
    /// of every layout comes back.
    static let candidateCSV: [ExportColumn] = {
        var out = columns(TSELayouts.candidate75)
        for (k, c) in ElectionsV4.sourceColumns.enumerated() where !out.contains(.source(k)) {
            _ = c
            out.append(.source(k))
        }
        return out
    }()
    /// bem_candidato rows: the 19-column layout.
    static let assetCSV = columns(TSELayouts.asset19)
    /// consulta_coligacao rows: the 2018-2026 layout (28 columns).
    static let coalitionCSV = columns(TSELayouts.coalition28)

    /// `<candidato>` children: the consulta_cand columns the mapper reads from the election, the candidacy,
    /// its party and its coalition, in layout order.
    static let candidateXML =
        [MapperColumn.DT_GERACAO, .HH_GERACAO]
        + mapperColumns(candidateCSV, from: [.election, .candidate, .party, .coalition])
    /// `<bem>` children: the asset's own columns; its keys come from the enclosing `<candidato>`.
    static let assetXML = [MapperColumn.DT_GERACAO, .HH_GERACAO] + mapperColumns(assetCSV, from: [.good, .goodType])
    /// `<coligacao>` children: the coalition's year and unit (they key it), the coalition and one of its parties.
    static let coalitionXML =
        [MapperColumn.DT_GERACAO, .HH_GERACAO, .ANO_ELEICAO, .SG_UE]
        + mapperColumns(coalitionCSV, from: [.coalition, .party])

    static func columns(_ layout: TSELayout) -> [ExportColumn] {
        layout.canonicalColumns.map { name in
            if name != "DT_GERACAO", name != "HH_GERACAO", let c = TSEColumnWriter.mapperColumn(named: name) {
                return .mapper(c)
            }
            switch name {
            case "DT_GERACAO": return .generationDate
            case "HH_GERACAO": return .generationTime
            default:
                if layout.kind == .candidate, let k = ElectionsV4.sourceColumns.firstIndex(where: { $0.name == name }) {
                    return .source(k)
                }
                return .unread(name)
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
