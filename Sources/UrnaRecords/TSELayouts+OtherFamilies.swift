/// TSE files that sit beside the candidate data in TSE's download tree but that urna does not import, told by
/// their columns, so that a refusal (or a skip in a folder or zip) names what the file is instead of calling it
/// a damaged consulta_cand. Column lists: shared/tse/LAYOUTS.md and the files TSE regenerated on 06/01/2026.
extension TSELayouts {
    /// A TSE file family urna recognises but does not import.
    public struct OtherFamily: Sendable, Equatable {
        /// TSE's name for the family, as in its file names (`consulta_cand_complementar`).
        public let family: String
        /// What the file holds and what to do, one sentence without the file name.
        public let reason: String
    }

    /// The family of a header (canonical column names) that is TSE data of a kind urna does not import, or nil.
    ///
    /// Only asked about headers no importable layout accepts: a header with a candidacy's name, an asset's type
    /// or a coalition's number is never matched here.
    ///
    /// ```swift
    /// TSELayouts.otherFamily(of: ["CD_ELEICAO", "SQ_CANDIDATO", "ST_QUILOMBOLA"])?.family
    /// // "consulta_cand_complementar"
    /// ```
    public static func otherFamily(of columns: Set<String>) -> OtherFamily? {
        // None of these families names a candidacy itself: a consulta_cand that lost one of these columns is a
        // damaged consulta_cand, said as such.
        let candidacy = ["NM_CANDIDATO", "NM_URNA_CANDIDATO", "NR_CANDIDATO", "CD_CARGO", "NR_PARTIDO"]
        guard !candidacy.contains(where: columns.contains) else { return nil }
        let complementary = [
            "ST_QUILOMBOLA", "CD_ETNIA_INDIGENA", "CD_SITUACAO_JULGAMENTO", "CD_SITUACAO_CASSACAO",
            "CD_SITUACAO_DIPLOMA", "CD_GENERO_FEFC", "CD_DETALHE_SITUACAO_CAND", "NR_IDADE_DATA_POSSE",
        ]
        if columns.contains("SQ_CANDIDATO"), !columns.contains("SG_UE"), complementary.contains(where: columns.contains)
        {
            return OtherFamily(
                family: "consulta_cand_complementar",
                reason: "the candidacy columns TSE moved out of consulta_cand when it regenerated its files in 2026, "
                    + "keyed by CD_ELEICAO and SQ_CANDIDATO (no unit, name or office); urna does not import them yet, "
                    + "so its \(columns.count) columns would not be stored: import the consulta_cand file of the same "
                    + "year for the candidacies and keep this file for these columns")
        }
        let others: [(family: String, marks: [String], holds: String)] = [
            ("motivo_cassacao", ["DS_MOTIVO_CASSACAO", "DS_MOTIVO", "DS_TP_MOTIVO"], "why candidacies were revoked"),
            ("rede_social_candidato", ["DS_URL", "NR_ORDEM_REDE_SOCIAL"], "candidates' social-network addresses"),
            ("consulta_vagas", ["QT_VAGAS", "QT_VAGA"], "the seats of each office"),
            (
                "perfil_eleitorado (or another electorate file)",
                ["QT_ELEITORES_PERFIL", "QT_ELEITORES", "QT_APTOS", "QT_ELEITOR_SECAO"], "voter statistics"
            ),
        ]
        for other in others where other.marks.contains(where: columns.contains) {
            return OtherFamily(
                family: other.family,
                reason: "it holds \(other.holds), not candidacies, goods or coalitions; urna does not import it "
                    + "(remove it from the files to import)")
        }
        return nil
    }
}
