/// Every TSE candidate-data layout this project knows, and the renames to one modern vocabulary.
///
/// The one place where TSE column names are spelled. Sources: header rows of real files and, for
/// the header-less originals, the TSE LEIAME of 2016 (see shared/tse/LAYOUTS.md).
///
/// ```swift
/// TSELayouts.canonicalName("SEQUENCIAL_CANDIDATO")  // "SQ_CANDIDATO"
/// TSELayouts.headerless(fieldCount: 44)?.name        // "consulta_cand original 44 columns (2012, no header)"
/// ```
public enum TSELayouts {
    // MARK: - consulta_cand with a header row

    private static let candidateCommonHead =
        "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_TIPO_ELEICAO;NM_TIPO_ELEICAO;NR_TURNO;CD_ELEICAO;DS_ELEICAO;DT_ELEICAO;"
        + "TP_ABRANGENCIA;SG_UF;SG_UE;NM_UE;CD_CARGO;DS_CARGO;SQ_CANDIDATO;NR_CANDIDATO;NM_CANDIDATO;NM_URNA_CANDIDATO;"
        + "NM_SOCIAL_CANDIDATO;NR_CPF_CANDIDATO"
    private static let candidateBirthToOccupation =
        "CD_NACIONALIDADE;DS_NACIONALIDADE;SG_UF_NASCIMENTO;CD_MUNICIPIO_NASCIMENTO;NM_MUNICIPIO_NASCIMENTO;"
        + "DT_NASCIMENTO;NR_IDADE_DATA_POSSE;NR_TITULO_ELEITORAL_CANDIDATO;CD_GENERO;DS_GENERO;CD_GRAU_INSTRUCAO;"
        + "DS_GRAU_INSTRUCAO;CD_ESTADO_CIVIL;DS_ESTADO_CIVIL;CD_COR_RACA;DS_COR_RACA;CD_OCUPACAO;DS_OCUPACAO"
    private static let candidateSituation =
        "NM_EMAIL;CD_SITUACAO_CANDIDATURA;DS_SITUACAO_CANDIDATURA;CD_DETALHE_SITUACAO_CAND;DS_DETALHE_SITUACAO_CAND;"
        + "TP_AGREMIACAO;NR_PARTIDO;SG_PARTIDO;NM_PARTIDO"
    private static let federation = "NR_FEDERACAO;NM_FEDERACAO;SG_FEDERACAO;DS_COMPOSICAO_FEDERACAO"
    private static let coalitionColumns = "SQ_COLIGACAO;NM_COLIGACAO;DS_COMPOSICAO_COLIGACAO"
    private static let candidateTail2018 =
        "CD_SIT_TOT_TURNO;DS_SIT_TOT_TURNO;ST_REELEICAO;ST_DECLARAR_BENS;NR_PROTOCOLO_CANDIDATURA;NR_PROCESSO"
    private static let candidateTail2020 =
        "CD_SITUACAO_CANDIDATO_PLEITO;DS_SITUACAO_CANDIDATO_PLEITO;CD_SITUACAO_CANDIDATO_URNA;"
        + "DS_SITUACAO_CANDIDATO_URNA;ST_CANDIDATO_INSERIDO_URNA"
    private static let candidateTail2022 =
        "NM_TIPO_DESTINACAO_VOTOS;CD_SITUACAO_CANDIDATO_TOT;DS_SITUACAO_CANDIDATO_TOT;ST_PREST_CONTAS"

    /// consulta_cand 2014 and 2018 as generated in 2018-2019.
    public static let candidate58 = TSELayout(
        name: "consulta_cand 58 columns (2014/2018)", kind: .candidate, hasHeader: true,
        columnList: [
            candidateCommonHead, candidateSituation, coalitionColumns, candidateBirthToOccupation,
            "NR_DESPESA_MAX_CAMPANHA", candidateTail2018,
        ].joined(separator: ";"))

    /// consulta_cand 2020 (generated 15/11/2020); also 2002-2012 as regenerated in 2022.
    public static let candidate63 = TSELayout(
        name: "consulta_cand 63 columns (2020)", kind: .candidate, hasHeader: true,
        columnList: [
            candidateCommonHead, candidateSituation, coalitionColumns, candidateBirthToOccupation,
            "VR_DESPESA_MAX_CAMPANHA", candidateTail2018, candidateTail2020,
        ].joined(separator: ";"))

    /// consulta_cand 2022 (generated 16/11/2022).
    public static let candidate71 = TSELayout(
        name: "consulta_cand 71 columns (2022)", kind: .candidate, hasHeader: true,
        columnList: [
            candidateCommonHead, candidateSituation, federation, coalitionColumns, candidateBirthToOccupation,
            "VR_DESPESA_MAX_CAMPANHA", candidateTail2018, candidateTail2020, candidateTail2022,
        ].joined(separator: ";"))

    /// consulta_cand 2022 as regenerated 13/12/2023 (and 2016 as regenerated 2023).
    public static let candidate75 = TSELayout(
        name: "consulta_cand 75 columns (2022 regenerated 2023)", kind: .candidate, hasHeader: true,
        columnList: [
            candidateCommonHead, candidateSituation, federation, coalitionColumns, candidateBirthToOccupation,
            "VR_DESPESA_MAX_CAMPANHA", candidateTail2018, candidateTail2020, candidateTail2022,
            "ST_SUBSTITUIDO;SQ_SUBSTITUIDO;SQ_ORDEM_SUPLENCIA;DT_ACEITE_CANDIDATURA",
        ].joined(separator: ";"))

    /// consulta_cand 2024 (generated 17/06/2025), and 2014-2026 as regenerated 06/01/2026; numbers unquoted, CRLF.
    public static let candidate50 = TSELayout(
        name: "consulta_cand 50 columns (2024)", kind: .candidate, hasHeader: true,
        columnList: [
            candidateCommonHead,
            "DS_EMAIL;CD_SITUACAO_CANDIDATURA;DS_SITUACAO_CANDIDATURA;TP_AGREMIACAO;NR_PARTIDO;SG_PARTIDO;NM_PARTIDO",
            federation, coalitionColumns,
            "SG_UF_NASCIMENTO;DT_NASCIMENTO;NR_TITULO_ELEITORAL_CANDIDATO;CD_GENERO;DS_GENERO;CD_GRAU_INSTRUCAO;"
                + "DS_GRAU_INSTRUCAO;CD_ESTADO_CIVIL;DS_ESTADO_CIVIL;CD_COR_RACA;DS_COR_RACA;CD_OCUPACAO;DS_OCUPACAO;"
                + "CD_SIT_TOT_TURNO;DS_SIT_TOT_TURNO",
        ].joined(separator: ";"))

    // MARK: - consulta_cand originals (no header)

    private static let originalCandidateHead =
        "DATA_GERACAO;HORA_GERACAO;ANO_ELEICAO;NUM_TURNO;DESCRICAO_ELEICAO;SIGLA_UF;SIGLA_UE;DESCRICAO_UE;CODIGO_CARGO;"
        + "DESCRICAO_CARGO;NOME_CANDIDATO;SEQUENCIAL_CANDIDATO;NUMERO_CANDIDATO;CPF_CANDIDATO;NOME_URNA_CANDIDATO;"
        + "COD_SITUACAO_CANDIDATURA;DES_SITUACAO_CANDIDATURA;NUMERO_PARTIDO;SIGLA_PARTIDO;NOME_PARTIDO;CODIGO_LEGENDA;"
        + "SIGLA_LEGENDA;COMPOSICAO_LEGENDA;NOME_LEGENDA;CODIGO_OCUPACAO;DESCRICAO_OCUPACAO;DATA_NASCIMENTO;"
        + "NUM_TITULO_ELEITORAL_CANDIDATO;IDADE_DATA_ELEICAO;CODIGO_SEXO;DESCRICAO_SEXO;COD_GRAU_INSTRUCAO;"
        + "DESCRICAO_GRAU_INSTRUCAO;CODIGO_ESTADO_CIVIL;DESCRICAO_ESTADO_CIVIL"
    private static let originalCandidateTail =
        "CODIGO_NACIONALIDADE;DESCRICAO_NACIONALIDADE;SIGLA_UF_NASCIMENTO;CODIGO_MUNICIPIO_NASCIMENTO;"
        + "NOME_MUNICIPIO_NASCIMENTO;DESPESA_MAX_CAMPANHA;COD_SIT_TOT_TURNO;DESC_SIT_TOT_TURNO"

    /// Original consulta_cand 2014/2016: no header, 46 fields (LEIAME "a partir de 2014").
    public static let candidateOriginal46 = TSELayout(
        name: "consulta_cand original 46 columns (2014/2016, no header)", kind: .candidate, hasHeader: false,
        columnList: [originalCandidateHead, "CODIGO_COR_RACA;DESCRICAO_COR_RACA", originalCandidateTail, "NM_EMAIL"]
            .joined(separator: ";"))

    /// Original consulta_cand 2012: no header, 44 fields (no race columns).
    public static let candidateOriginal44 = TSELayout(
        name: "consulta_cand original 44 columns (2012, no header)", kind: .candidate, hasHeader: false,
        columnList: [originalCandidateHead, originalCandidateTail, "NM_EMAIL"].joined(separator: ";"))

    /// Original consulta_cand 2010 and earlier as generated in 2016: no header, 43 fields (no e-mail).
    public static let candidateOriginal43 = TSELayout(
        name: "consulta_cand original 43 columns (2010 and earlier, no header)", kind: .candidate, hasHeader: false,
        columnList: [originalCandidateHead, originalCandidateTail].joined(separator: ";"))

    // MARK: - bem_candidato

    /// bem_candidato 2016 and 2018 as generated 2018-2021.
    public static let asset19 = TSELayout(
        name: "bem_candidato 19 columns (2016/2018)", kind: .asset, hasHeader: true,
        columnList:
            "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_TIPO_ELEICAO;NM_TIPO_ELEICAO;CD_ELEICAO;DS_ELEICAO;DT_ELEICAO;"
            + "SG_UF;SG_UE;NM_UE;SQ_CANDIDATO;NR_ORDEM_CANDIDATO;CD_TIPO_BEM_CANDIDATO;DS_TIPO_BEM_CANDIDATO;"
            + "DS_BEM_CANDIDATO;VR_BEM_CANDIDATO;DT_ULTIMA_ATUALIZACAO;HH_ULTIMA_ATUALIZACAO")

    /// bem_candidato 2018-2026 as regenerated 06/01/2026: same columns, three renamed.
    public static let asset19Names2026 = TSELayout(
        name: "bem_candidato 19 columns (2026 names)", kind: .asset, hasHeader: true,
        columnList:
            "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_TIPO_ELEICAO;NM_TIPO_ELEICAO;CD_ELEICAO;DS_ELEICAO;DT_ELEICAO;"
            + "SG_UF;SG_UE;NM_UE;SQ_CANDIDATO;NR_ORDEM_BEM_CANDIDATO;CD_TIPO_BEM_CANDIDATO;DS_TIPO_BEM_CANDIDATO;"
            + "DS_BEM_CANDIDATO;VR_BEM_CANDIDATO;DT_ULT_ATUAL_BEM_CANDIDATO;HH_ULT_ATUAL_BEM_CANDIDATO")

    /// Original bem_candidato: no header, 12 fields (LEIAME 2016). It has no asset order number.
    public static let assetOriginal12 = TSELayout(
        name: "bem_candidato original 12 columns (no header)", kind: .asset, hasHeader: false,
        columnList: "DATA_GERACAO;HORA_GERACAO;ANO_ELEICAO;DESCRICAO_ELEICAO;SIGLA_UF;SQ_CANDIDATO;"
            + "CD_TIPO_BEM_CANDIDATO;DS_TIPO_BEM_CANDIDATO;DETALHE_BEM;VALOR_BEM;DATA_ULTIMA_ATUALIZACAO;"
            + "HORA_ULTIMA_ATUALIZACAO")

    // MARK: - coalitions

    /// Original consulta_legendas 2016: no header, 18 fields; one row per party in a legend.
    public static let coalitionLegendOriginal18 = TSELayout(
        name: "consulta_legendas original 18 columns (2016, no header)", kind: .coalition, hasHeader: false,
        columnList: "DATA_GERACAO;HORA_GERACAO;ANO_ELEICAO;NUM_TURNO;DESCRICAO_ELEICAO;SIGLA_UF;SIGLA_UE;NOME_UE;"
            + "CODIGO_CARGO;DESCRICAO_CARGO;TIPO_LEGENDA;NUM_PARTIDO;SIGLA_PARTIDO;NOME_PARTIDO;SIGLA_COLIGACAO;"
            + "NOME_COLIGACAO;COMPOSICAO_COLIGACAO;SEQUENCIAL_COLIGACAO")

    private static let coalitionHead =
        "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_TIPO_ELEICAO;NM_TIPO_ELEICAO;NR_TURNO;CD_ELEICAO;DS_ELEICAO;DT_ELEICAO;"
        + "SG_UF;SG_UE;NM_UE;CD_CARGO;DS_CARGO;TP_AGREMIACAO;NR_PARTIDO;SG_PARTIDO;NM_PARTIDO"
    private static let coalitionTail =
        "SQ_COLIGACAO;NM_COLIGACAO;DS_COMPOSICAO_COLIGACAO;CD_SITUACAO_LEGENDA;DS_SITUACAO"

    /// consulta_coligacao 2018 as generated 08/10/2018: the 2016 columns without the legend's situation.
    public static let coalition21 = TSELayout(
        name: "consulta_coligacao 21 columns (2018)", kind: .coalition, hasHeader: true,
        columnList: [coalitionHead, coalitionColumns].joined(separator: ";"))

    /// consulta_coligacao 2016 (generated 18/02/2021).
    public static let coalition23 = TSELayout(
        name: "consulta_coligacao 23 columns (2016)", kind: .coalition, hasHeader: true,
        columnList: [coalitionHead, coalitionTail].joined(separator: ";"))

    /// consulta_coligacao 2018-2026: federation columns and the vote destination added.
    public static let coalition28 = TSELayout(
        name: "consulta_coligacao 28 columns (2018-2026)", kind: .coalition, hasHeader: true,
        columnList: [coalitionHead, federation, coalitionTail, "NM_TIPO_DESTINACAO_VOTOS"].joined(separator: ";"))

    // MARK: - Catalogue

    /// Every known layout.
    public static let all: [TSELayout] = headerLayouts + headerless

    /// Layouts with a header row, matched by the header's column names.
    public static let headerLayouts: [TSELayout] = [
        candidate58, candidate63, candidate71, candidate75, candidate50, asset19, asset19Names2026, coalition21,
        coalition23, coalition28,
    ]

    /// Header-less originals, recognised by their field count (all counts differ).
    public static let headerless: [TSELayout] = [
        candidateOriginal46, candidateOriginal44, candidateOriginal43, assetOriginal12, coalitionLegendOriginal18,
    ]

    /// The header-less original with this many fields, if any.
    public static func headerless(fieldCount: Int) -> TSELayout? {
        headerless.first { $0.fieldCount == fieldCount }
    }

    // MARK: - Canonical names

    /// The modern name of a TSE column, as the latest headers spell it.
    ///
    /// Trims spaces (and a byte-order mark), upper-cases ASCII letters, then applies the renames
    /// TSE made over the years; a name with no rename comes back normalised but otherwise unchanged.
    ///
    /// ```swift
    /// TSELayouts.canonicalName("CODIGO_LEGENDA")           // "SQ_COLIGACAO"
    /// TSELayouts.canonicalName(" nr_despesa_max_campanha") // "VR_DESPESA_MAX_CAMPANHA"
    /// ```
    public static func canonicalName(_ name: String) -> String {
        let normalized = normalize(name)
        return renames[normalized] ?? normalized
    }

    /// Trimmed, upper-case ASCII, without a byte-order mark.
    static func normalize(_ name: String) -> String {
        let blank: (Unicode.Scalar) -> Bool = {
            $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\u{FEFF}"
        }
        var scalars = name.unicodeScalars[...]
        while let first = scalars.first, blank(first) { scalars.removeFirst() }
        while let last = scalars.last, blank(last) { scalars.removeLast() }
        var result = String.UnicodeScalarView()
        for scalar in scalars {
            let v = scalar.value
            result.append(v >= 0x61 && v <= 0x7A ? Unicode.Scalar(v - 0x20)! : scalar)
        }
        return String(result)
    }

    /// Old or variant name -> canonical name. Every name of every layout above that is not itself
    /// canonical appears here.
    public static let renames: [String: String] = [
        // Original (header-less) consulta_cand, consulta_legendas and bem_candidato names.
        "DATA_GERACAO": "DT_GERACAO",
        "HORA_GERACAO": "HH_GERACAO",
        "NUM_TURNO": "NR_TURNO",
        "DESCRICAO_ELEICAO": "DS_ELEICAO",
        "SIGLA_UF": "SG_UF",
        "SIGLA_UE": "SG_UE",
        "DESCRICAO_UE": "NM_UE",
        "NOME_UE": "NM_UE",
        "CODIGO_CARGO": "CD_CARGO",
        "DESCRICAO_CARGO": "DS_CARGO",
        "NOME_CANDIDATO": "NM_CANDIDATO",
        "SEQUENCIAL_CANDIDATO": "SQ_CANDIDATO",
        "NUMERO_CANDIDATO": "NR_CANDIDATO",
        "CPF_CANDIDATO": "NR_CPF_CANDIDATO",
        "NOME_URNA_CANDIDATO": "NM_URNA_CANDIDATO",
        "COD_SITUACAO_CANDIDATURA": "CD_SITUACAO_CANDIDATURA",
        "DES_SITUACAO_CANDIDATURA": "DS_SITUACAO_CANDIDATURA",
        "NUMERO_PARTIDO": "NR_PARTIDO",
        "NUM_PARTIDO": "NR_PARTIDO",
        "SIGLA_PARTIDO": "SG_PARTIDO",
        "NOME_PARTIDO": "NM_PARTIDO",
        "CODIGO_LEGENDA": "SQ_COLIGACAO",
        "SEQUENCIAL_COLIGACAO": "SQ_COLIGACAO",
        // Modern files have no coalition acronym; both spellings of the old one meet here.
        "SIGLA_LEGENDA": "SG_COLIGACAO",
        "SIGLA_COLIGACAO": "SG_COLIGACAO",
        "COMPOSICAO_LEGENDA": "DS_COMPOSICAO_COLIGACAO",
        "COMPOSICAO_COLIGACAO": "DS_COMPOSICAO_COLIGACAO",
        "NOME_LEGENDA": "NM_COLIGACAO",
        "NOME_COLIGACAO": "NM_COLIGACAO",
        "TIPO_LEGENDA": "TP_AGREMIACAO",
        "CODIGO_OCUPACAO": "CD_OCUPACAO",
        "DESCRICAO_OCUPACAO": "DS_OCUPACAO",
        "DATA_NASCIMENTO": "DT_NASCIMENTO",
        "NUM_TITULO_ELEITORAL_CANDIDATO": "NR_TITULO_ELEITORAL_CANDIDATO",
        // Age on election day, not on inauguration day (NR_IDADE_DATA_POSSE): kept apart on purpose.
        "IDADE_DATA_ELEICAO": "NR_IDADE_DATA_ELEICAO",
        "CODIGO_SEXO": "CD_GENERO",
        "DESCRICAO_SEXO": "DS_GENERO",
        "COD_GRAU_INSTRUCAO": "CD_GRAU_INSTRUCAO",
        "DESCRICAO_GRAU_INSTRUCAO": "DS_GRAU_INSTRUCAO",
        "CODIGO_ESTADO_CIVIL": "CD_ESTADO_CIVIL",
        "DESCRICAO_ESTADO_CIVIL": "DS_ESTADO_CIVIL",
        "CODIGO_COR_RACA": "CD_COR_RACA",
        "DESCRICAO_COR_RACA": "DS_COR_RACA",
        "CODIGO_NACIONALIDADE": "CD_NACIONALIDADE",
        "DESCRICAO_NACIONALIDADE": "DS_NACIONALIDADE",
        "SIGLA_UF_NASCIMENTO": "SG_UF_NASCIMENTO",
        "CODIGO_MUNICIPIO_NASCIMENTO": "CD_MUNICIPIO_NASCIMENTO",
        "NOME_MUNICIPIO_NASCIMENTO": "NM_MUNICIPIO_NASCIMENTO",
        "DESPESA_MAX_CAMPANHA": "VR_DESPESA_MAX_CAMPANHA",
        "COD_SIT_TOT_TURNO": "CD_SIT_TOT_TURNO",
        "DESC_SIT_TOT_TURNO": "DS_SIT_TOT_TURNO",
        "DETALHE_BEM": "DS_BEM_CANDIDATO",
        "VALOR_BEM": "VR_BEM_CANDIDATO",
        "DATA_ULTIMA_ATUALIZACAO": "DT_ULTIMA_ATUALIZACAO",
        "HORA_ULTIMA_ATUALIZACAO": "HH_ULTIMA_ATUALIZACAO",
        // Renames between header generations.
        "NR_DESPESA_MAX_CAMPANHA": "VR_DESPESA_MAX_CAMPANHA",
        "NM_EMAIL": "DS_EMAIL",
        "NR_ORDEM_BEM_CANDIDATO": "NR_ORDEM_CANDIDATO",
        "DT_ULT_ATUAL_BEM_CANDIDATO": "DT_ULTIMA_ATUALIZACAO",
        "HH_ULT_ATUAL_BEM_CANDIDATO": "HH_ULTIMA_ATUALIZACAO",
    ]

    /// Every column name any layout uses, as spelled in files and canonical (for header detection).
    public static let knownColumnNames: Set<String> = Set(all.flatMap { $0.fileColumns + $0.canonicalColumns })
}
