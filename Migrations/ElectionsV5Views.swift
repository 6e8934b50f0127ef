import UrnaStore

extension ElectionsV5 {
    public static let views: [SchemaView] = [candidacies, goods, coalitionMembers]

    typealias Column = SchemaView.Column

    /// The few expressions where SQLite's storage contract and PostgreSQL's differ (dates: ISO text against
    /// timestamptz; money: integer cents against the numeric amount); each view is one SELECT written once.
    struct Dialect: Sendable {
        /// A date column's UTC day as ISO text.
        let isoDay: @Sendable (String) -> String
        /// Whole years from `born` to `day`.
        let age: @Sendable (_ day: String, _ born: String) -> String
        /// A decimal(2) column in reais.
        let reais: @Sendable (String) -> String
        /// A decimal(2) column in exact centavos.
        let centavos: @Sendable (String) -> String
        /// A date-and-time column as ISO text with milliseconds.
        let isoTime: @Sendable (String) -> String

        static let sqlite = Dialect(
            isoDay: { "substr(\($0), 1, 10)" },
            age: { day, born in
                "(CAST(substr(\(day), 1, 4) AS INTEGER) - CAST(substr(\(born), 1, 4) AS INTEGER)"
                    + " - (substr(\(day), 6, 5) < substr(\(born), 6, 5)))"
            },
            reais: { "\($0) / 100.0" }, centavos: { $0 }, isoTime: { $0 })

        static let postgres = Dialect(
            isoDay: { "to_char(\($0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')" },
            age: { day, born in "CAST(extract(year FROM age(\(day) AT TIME ZONE 'UTC', \(born) AT TIME ZONE 'UTC')) AS bigint)" },
            reais: { $0 }, centavos: { "CAST(\($0) * 100 AS bigint)" },
            isoTime: { "to_char(\($0) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')" })
    }

    /// One row per candidacy, TSE column names, the party and coalition of that election.
    public static let candidacies = SchemaView(
        "candidacies",
        "One row per candidacy (an election + SG_UE + SQ_CANDIDATO), named as in TSE's consulta_cand, with the party and coalition of that election's year.",
        columns: [
            Column("CD_ELEICAO", "TSE's election code (null for files published without it, before the re-releases)"),
            Column("ANO_ELEICAO", "election year"),
            Column("DS_ELEICAO", "election description as published"),
            Column("DT_ELEICAO", "election day (ISO date)"),
            Column("NR_TURNO", "round (1 or 2)"),
            Column("SG_UF", "state (BR for national posts)"),
            Column("SG_UE", "electoral unit: the state, or the municipality's TSE code (text, leading zeros kept)"),
            Column("NM_UE", "electoral unit name"),
            Column("CD_CARGO", "post code"),
            Column("DS_CARGO", "post"),
            Column("SQ_CANDIDATO", "TSE's candidacy sequence number (text: 12 digits, compare as text)"),
            Column("NR_CANDIDATO", "ticket number"),
            Column("NM_CANDIDATO", "civil name"),
            Column("NM_URNA_CANDIDATO", "name on the ballot"),
            Column("NM_SOCIAL_CANDIDATO", "social name, if declared"),
            Column("NR_PARTIDO", "party number"),
            Column("SG_PARTIDO", "party acronym in that election's year"),
            Column("NM_PARTIDO", "party name in that election's year"),
            Column("SQ_COLIGACAO", "coalition sequence number"),
            Column("NM_COLIGACAO", "coalition name"),
            Column("DS_COMPOSICAO_COLIGACAO", "coalition composition as published"),
            Column("DS_SITUACAO_CANDIDATURA", "candidacy status"),
            Column("DS_SIT_TOT_TURNO", "result of the round"),
            Column("DT_NASCIMENTO", "birth date (ISO date)"),
            Column("IDADE_DATA_ELEICAO", "age on election day, from the birth date (TSE's NR_IDADE_DATA_ELEICAO when a date is missing)", unit: "years"),
            Column("DS_GENERO", "gender"),
            Column("DS_COR_RACA", "colour/race"),
            Column("DS_ESTADO_CIVIL", "marital status"),
            Column("DS_GRAU_INSTRUCAO", "education"),
            Column("DS_OCUPACAO", "occupation"),
            Column("SG_UF_NASCIMENTO", "birth state"),
            Column("NM_MUNICIPIO_NASCIMENTO", "birth municipality"),
            Column("VR_DESPESA_MAX_CAMPANHA", "spending limit, first round", unit: "R$"),
            Column("ST_REELEICAO", "running for re-election (S/N)"),
            Column("NR_CPF_CANDIDATO", "CPF, when published"),
            Column("NR_TITULO_ELEITORAL_CANDIDATO", "voter id, when published"),
            Column("DS_EMAIL", "e-mail, when published"),
            Column("candidate_id", "Urna's key of the candidacy (Candidate.id)"),
        ],
        sql: candidaciesSQL(.sqlite), postgresSQL: candidaciesSQL(.postgres))

    static func candidaciesSQL(_ d: Dialect) -> String {
        """
        SELECT e."code" AS CD_ELEICAO, e."year" AS ANO_ELEICAO, e."electionDescription" AS DS_ELEICAO,
          \(d.isoDay("e.\"date\"")) AS DT_ELEICAO, c."round" AS NR_TURNO, c."state" AS SG_UF, c."unit" AS SG_UE,
          c."unitName" AS NM_UE, c."postCode" AS CD_CARGO, c."post" AS DS_CARGO,
          CAST(c."sequence" AS TEXT) AS SQ_CANDIDATO, c."number" AS NR_CANDIDATO, c."name" AS NM_CANDIDATO,
          c."nickname" AS NM_URNA_CANDIDATO, c."socialName" AS NM_SOCIAL_CANDIDATO,
          p."number" AS NR_PARTIDO, p."acronym" AS SG_PARTIDO, p."name" AS NM_PARTIDO,
          co."sequence" AS SQ_COLIGACAO, co."name" AS NM_COLIGACAO, co."composition" AS DS_COMPOSICAO_COLIGACAO,
          c."status" AS DS_SITUACAO_CANDIDATURA, c."result" AS DS_SIT_TOT_TURNO,
          \(d.isoDay("c.\"birthdate\"")) AS DT_NASCIMENTO,
          COALESCE(\(d.age("e.\"date\"", "c.\"birthdate\"")), c."NR_IDADE_DATA_ELEICAO") AS IDADE_DATA_ELEICAO,
          c."sex" AS DS_GENERO, c."colorRace" AS DS_COR_RACA, c."maritalStatus" AS DS_ESTADO_CIVIL,
          c."literacy" AS DS_GRAU_INSTRUCAO, c."occupation" AS DS_OCUPACAO, c."birthState" AS SG_UF_NASCIMENTO,
          c."birthCity" AS NM_MUNICIPIO_NASCIMENTO, \(d.reais("c.\"spendingLimitFirstRound\"")) AS VR_DESPESA_MAX_CAMPANHA,
          c."ST_REELEICAO" AS ST_REELEICAO, c."cpf" AS NR_CPF_CANDIDATO, c."voterId" AS NR_TITULO_ELEITORAL_CANDIDATO,
          c."email" AS DS_EMAIL, c."id" AS candidate_id
        FROM "Candidate" c
        LEFT JOIN "Election" e ON e."id" = c."election"
        LEFT JOIN "Party" p ON p."id" = c."party"
        LEFT JOIN "Coalition" co ON co."id" = c."coalition"
        """
    }

    /// Each declared good once, with its candidacy's TSE keys; value in reais and in exact cents.
    public static let goods = SchemaView(
        "goods",
        "Each declared good once (TSE's bem_candidato), with the keys of the candidacy that declared it. Sum VR_BEM_CANDIDATO_CENTAVOS for exact totals.",
        columns: [
            Column("SQ_CANDIDATO", "TSE's candidacy sequence number (text)"),
            Column("CD_ELEICAO", "TSE's election code"),
            Column("ANO_ELEICAO", "election year"),
            Column("SG_UF", "state"),
            Column("SG_UE", "electoral unit"),
            Column("NR_ORDEM_CANDIDATO", "order of the good in the candidacy's declaration"),
            Column("CD_TIPO_BEM_CANDIDATO", "type code"),
            Column("DS_TIPO_BEM_CANDIDATO", "type"),
            Column("DS_BEM_CANDIDATO", "description"),
            Column("VR_BEM_CANDIDATO", "declared value", unit: "R$"),
            Column("VR_BEM_CANDIDATO_CENTAVOS", "declared value, exact", unit: "centavos"),
            Column("DT_ULTIMA_ATUALIZACAO", "last update (ISO date and time)"),
            Column("candidate_id", "Urna's key of the candidacy (Candidate.id)"),
            Column("good_id", "Urna's key of the good (Good.id)"),
        ],
        sql: goodsSQL(.sqlite), postgresSQL: goodsSQL(.postgres))

    static func goodsSQL(_ d: Dialect) -> String {
        """
        SELECT CAST(c."sequence" AS TEXT) AS SQ_CANDIDATO, e."code" AS CD_ELEICAO, e."year" AS ANO_ELEICAO,
          c."state" AS SG_UF, c."unit" AS SG_UE, g."order" AS NR_ORDEM_CANDIDATO,
          g."type" AS CD_TIPO_BEM_CANDIDATO, t."typedescription" AS DS_TIPO_BEM_CANDIDATO,
          g."goodDescription" AS DS_BEM_CANDIDATO, \(d.reais("g.\"value\"")) AS VR_BEM_CANDIDATO,
          \(d.centavos("g.\"value\"")) AS VR_BEM_CANDIDATO_CENTAVOS, \(d.isoTime("g.\"updatedAt\"")) AS DT_ULTIMA_ATUALIZACAO,
          c."id" AS candidate_id, g."id" AS good_id
        FROM "Good" g
        LEFT JOIN "Candidate" c ON c."id" = g."candidacy"
        LEFT JOIN "Election" e ON e."id" = c."election"
        LEFT JOIN "GoodType" t ON t."id" = g."type"
        """
    }

    /// Which parties each coalition joins: one row per coalition and party.
    public static let coalitionMembers = SchemaView(
        "coalition_members",
        "Coalition composition: one row per coalition and member party, in the published order.",
        columns: [
            Column("ANO_ELEICAO", "election year"),
            Column("SG_UE", "electoral unit"),
            Column("SQ_COLIGACAO", "coalition sequence number"),
            Column("NM_COLIGACAO", "coalition name"),
            Column("TP_AGREMIACAO", "kind (coalition, isolated party, federation)"),
            Column("NR_ORDEM", "position of the party in the composition (0 first)"),
            Column("NR_PARTIDO", "party number"),
            Column("SG_PARTIDO", "party acronym in that year"),
            Column("NM_PARTIDO", "party name in that year"),
            Column("coalition_id", "Urna's key of the coalition (Coalition.id)"),
        ],
        sql: coalitionMembersSQL, postgresSQL: coalitionMembersSQL)

    /// The same SQL on both backends.
    static let coalitionMembersSQL = """
        SELECT co."year" AS ANO_ELEICAO, co."unit" AS SG_UE, co."sequence" AS SQ_COLIGACAO, co."name" AS NM_COLIGACAO,
          co."kind" AS TP_AGREMIACAO, m."position" AS NR_ORDEM, p."number" AS NR_PARTIDO, p."acronym" AS SG_PARTIDO,
          p."name" AS NM_PARTIDO, co."id" AS coalition_id
        FROM "Coalition_parties" m
        JOIN "Coalition" co ON co."id" = m."owner"
        LEFT JOIN "Party" p ON p."id" = m."target"
        """
}
