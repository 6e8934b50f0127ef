import UrnaRecords
import UrnaSchemas

/// The canonical TSE columns the mapper reads, spelled as TSE spells them (`TSELayouts` canonical names).
// swift-format-ignore: AlwaysUseLowerCamelCase
enum MapperColumn: Int, CaseIterable {
    case DT_GERACAO, HH_GERACAO
    case ANO_ELEICAO, NR_TURNO, CD_ELEICAO, DS_ELEICAO, DT_ELEICAO, NM_TIPO_ELEICAO, CD_TIPO_ELEICAO, TP_ABRANGENCIA
    case SG_UF, SG_UE, NM_UE, CD_CARGO, DS_CARGO
    case SQ_CANDIDATO, NR_CANDIDATO, NM_CANDIDATO, NM_URNA_CANDIDATO, NM_SOCIAL_CANDIDATO
    case NR_CPF_CANDIDATO, DS_EMAIL, NR_TITULO_ELEITORAL_CANDIDATO
    case DS_SITUACAO_CANDIDATURA, DS_SIT_TOT_TURNO
    case TP_AGREMIACAO, NR_PARTIDO, SG_PARTIDO, NM_PARTIDO
    case SQ_COLIGACAO, NM_COLIGACAO, DS_COMPOSICAO_COLIGACAO
    case DS_NACIONALIDADE, SG_UF_NASCIMENTO, NM_MUNICIPIO_NASCIMENTO, DT_NASCIMENTO
    case DS_GENERO, DS_GRAU_INSTRUCAO, DS_ESTADO_CIVIL, DS_COR_RACA, DS_OCUPACAO
    case VR_DESPESA_MAX_CAMPANHA, NR_PROTOCOLO_CANDIDATURA, NR_PROCESSO
    case NR_ORDEM_CANDIDATO, CD_TIPO_BEM_CANDIDATO, DS_TIPO_BEM_CANDIDATO, DS_BEM_CANDIDATO, VR_BEM_CANDIDATO
    case DT_ULTIMA_ATUALIZACAO, HH_ULTIMA_ATUALIZACAO

    var name: String { String(describing: self) }
}

/// Where each `MapperColumn` sits in one file's layout (-1 when the layout lacks it), so a record's
/// fields are read by position instead of hashing a column name for every field of every row.
struct MapperColumnPositions {
    private var positions: [Int]
    /// Positions of `ElectionsV4.sourceColumns` (-1 when the layout lacks one).
    let sourcePositions: [Int]
    /// Whether the layout has any of `ElectionsV4.sourceColumns`.
    let hasSourceColumns: Bool
    /// Per `ElectionsV4.sourceColumns` entry: whether it is a text column read as a code (`CD_*`).
    let sourceIsCode: [Bool]
    /// Positions of the raw fields a candidate row's election is remembered by (`ElectionMapper.mapElection`).
    let electionKey: [Int]
    /// Positions of the raw fields an asset row's election is remembered by (`ElectionMapper.assetElection`).
    let assetElectionKey: [Int]

    init(_ columns: ColumnIndex) {
        let positions = MapperColumn.allCases.map { columns.position(of: $0.name) ?? -1 }
        self.positions = positions
        sourcePositions = ElectionsV4.sourceColumns.map { columns.position(of: $0.name) ?? -1 }
        hasSourceColumns = sourcePositions.contains { $0 >= 0 }
        sourceIsCode = ElectionsV4.sourceColumns.map { $0.name.hasPrefix("CD_") }
        electionKey = MapperColumnPositions.electionKeyColumns.map { positions[$0.rawValue] }
        assetElectionKey = MapperColumnPositions.assetElectionKeyColumns.map { positions[$0.rawValue] }
    }

    /// The raw fields that decide a candidate row's election (and its generation stamp).
    static let electionKeyColumns: [MapperColumn] = [
        .ANO_ELEICAO, .NR_TURNO, .DS_ELEICAO, .CD_ELEICAO, .DT_ELEICAO, .NM_TIPO_ELEICAO, .CD_TIPO_ELEICAO,
        .TP_ABRANGENCIA, .DT_GERACAO, .HH_GERACAO,
    ]
    /// The raw fields (besides the election id) that decide what an asset row says of its election.
    static let assetElectionKeyColumns: [MapperColumn] = [
        .DS_ELEICAO, .CD_ELEICAO, .DT_ELEICAO, .NM_TIPO_ELEICAO, .CD_TIPO_ELEICAO,
    ]

    @inline(__always) func has(_ c: MapperColumn) -> Bool { positions[c.rawValue] >= 0 }

    /// The 0-based field position of a column, or nil when the layout lacks it.
    @inline(__always) func position(_ c: MapperColumn) -> Int? {
        let p = positions[c.rawValue]
        return p >= 0 ? p : nil
    }

    /// The 1-based field number of a column, for locations (0 when absent).
    func fieldNumber(_ c: MapperColumn) -> Int { positions[c.rawValue] + 1 }
}
