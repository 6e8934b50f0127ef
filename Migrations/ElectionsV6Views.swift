import UrnaStore

extension ElectionsV6 {
    /// v5's `candidacies` and `coalition_members` unchanged; `goods` reads the type code from the per-year type.
    public static let views: [SchemaView] = [ElectionsV5.candidacies, goods, ElectionsV5.coalitionMembers]

    /// Each declared good once, with its candidacy's TSE keys and its year's type description; the same
    /// columns and rows as v5's `goods`.
    public static let goods = SchemaView(
        "goods",
        "Each declared good once (TSE's bem_candidato), with the keys of the candidacy that declared it and the type description of its election year. Sum VR_BEM_CANDIDATO_CENTAVOS for exact totals.",
        columns: ElectionsV5.goods.columns.map {
            $0.name == "DS_TIPO_BEM_CANDIDATO"
                ? SchemaView.Column("DS_TIPO_BEM_CANDIDATO", "type, as that election year's files describe the code")
                : $0
        },
        sql: goodsSQL(.sqlite), postgresSQL: goodsSQL(.postgres))

    static func goodsSQL(_ d: ElectionsV5.Dialect) -> String {
        """
        SELECT CAST(c."sequence" AS TEXT) AS SQ_CANDIDATO, e."code" AS CD_ELEICAO, e."year" AS ANO_ELEICAO,
          c."state" AS SG_UF, c."unit" AS SG_UE, g."order" AS NR_ORDEM_CANDIDATO,
          t."code" AS CD_TIPO_BEM_CANDIDATO, t."typedescription" AS DS_TIPO_BEM_CANDIDATO,
          g."goodDescription" AS DS_BEM_CANDIDATO, \(d.reais("g.\"value\"")) AS VR_BEM_CANDIDATO,
          \(d.centavos("g.\"value\"")) AS VR_BEM_CANDIDATO_CENTAVOS, \(d.isoTime("g.\"updatedAt\"")) AS DT_ULTIMA_ATUALIZACAO,
          c."id" AS candidate_id, g."id" AS good_id
        FROM "Good" g
        LEFT JOIN "Candidate" c ON c."id" = g."candidacy"
        LEFT JOIN "Election" e ON e."id" = c."election"
        LEFT JOIN "GoodType" t ON t."id" = g."type"
        """
    }
}
