import UrnaStore

extension ElectionStoreWriter {
    /// Warnings for pairs of elections of one year and round, at least one touched by this run, that hold the
    /// same candidacy (SG_UE, SQ_CANDIDATO and NM_CANDIDATO): an election is keyed by its DS_ELEICAO, so an
    /// original file and a re-released one that describe it differently keep two copies of every candidacy.
    /// Each pair stops at its first shared candidacy, so the check costs little whatever the files hold.
    func electionsSharingCandidacies(touched: [String]) throws -> [String] {
        guard !touched.isEmpty else { return [] }
        let touchedSet = Set(touched)
        let groups = try connection.rows(
            "SELECT group_concat(\"id\", char(10)) FROM (SELECT \"year\", \"round\", \"id\" FROM \"Election\" "
                + "ORDER BY \"id\") GROUP BY \"year\", \"round\" HAVING count(*) > 1")
        var warnings: [String] = []
        for g in groups {
            guard case .text(let joined) = g[0] else { continue }
            let ids = joined.split(separator: "\n").map(String.init)
            for (i, a) in ids.enumerated() {
                for b in ids[(i + 1)...] where touchedSet.contains(a) || touchedSet.contains(b) {
                    let shared = try connection.rows(
                        "SELECT a.\"unit\", a.\"sequence\" FROM \"Candidate\" a JOIN \"Candidate\" b "
                            + "ON b.\"sequence\" = a.\"sequence\" AND b.\"election\" = ?2 AND b.\"unit\" = a.\"unit\" "
                            + "AND b.\"name\" = a.\"name\" WHERE a.\"election\" = ?1 LIMIT 1", [.text(a), .text(b)])
                    guard let first = shared.first else { continue }
                    warnings.append(
                        "elections '\(a)' and '\(b)' (one year and round, another DS_ELEICAO) hold the same candidacy "
                            + "(SG_UE \(first[0]), SQ_CANDIDATO \(first[1]), same name): if they are one election "
                            + "described two ways (an original file and a re-released one), its candidacies count "
                            + "twice; check DS_ELEICAO in the files")
                }
            }
        }
        return warnings
    }
}
