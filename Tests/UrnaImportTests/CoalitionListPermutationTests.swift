import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// A coalition's party list is the same whatever order its files come in and however they are split into runs
/// (issue 11: "importing any permutation of the same files gives the same database, row for row"). Before (ninth
/// real-files trial) a coalition whose composition two rows of one generation give differently, or that a newer
/// generation gives otherwise, listed its parties in another order, or kept a party the others dropped, when its
/// files came in separate runs.
@Suite struct CoalitionListPermutationTests {
    typealias S = ImportTestSupport

    /// Three candidacies (parties 27 DC, 13 PT, 43 PV) of coalition 900, all giving `composition`.
    static func rows(_ composition: String, generated: String) -> [[String: String]] {
        let parties = [
            ("27", "DC", "DEMOCRACIA CRISTÃ"), ("13", "PT", "PARTIDO DOS TRABALHADORES"), ("43", "PV", "PARTIDO VERDE"),
        ]
        return parties.enumerated().map { k, p in
            [
                "SQ_CANDIDATO": "13000061234\(k)", "NR_CANDIDATO": "\(p.0)0\(k)", "NR_PARTIDO": p.0, "SG_PARTIDO": p.1,
                "NM_PARTIDO": p.2, "NM_COLIGACAO": "FRENTE", "TP_AGREMIACAO": "COLIGAÇÃO",
                "DS_COMPOSICAO_COLIGACAO": composition, "DT_GERACAO": generated,
            ]
        }
    }

    /// Two files of one generation that give the composition in other orders and with other parties, and a
    /// newer generation's file.
    static func files(in folder: String) throws -> [String] {
        [
            try S.candidateFile(
                Self.rows("PV / DC / PT", generated: "27/09/2018"), named: "consulta_cand_2018_MG.csv", in: folder),
            try S.candidateFile(
                Self.rows("DC / PT", generated: "27/09/2018"), named: "consulta_cand_2018_BR.csv", in: folder),
            try S.candidateFile(
                Self.rows("PT / DC", generated: "27/11/2019"), named: "consulta_cand_2018_BRASIL.csv", in: folder),
        ]
    }

    static func permutations(_ a: [String]) -> [[String]] {
        guard a.count > 1 else { return [a] }
        return a.indices.flatMap { i in
            permutations(Array(a[..<i] + a[(i + 1)...])).map { [a[i]] + $0 }
        }
    }

    @Test func everyPermutationAndSplitGivesOneDatabase() throws {
        let folder = try S.scratchFolder()
        let files = try Self.files(in: folder)
        var dumps: [String: [String]] = [:]
        var lists: [String: String] = [:]
        for (n, order) in Self.permutations(files).enumerated() {
            for split in [false, true] {
                let db = folder + "/p\(n)-\(split).sqlite"
                if split {
                    for f in order { _ = try S.importFiles([f], into: db) }
                } else {
                    _ = try S.importFiles(order, into: db)
                }
                let name =
                    order.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ",")
                    + (split ? " (one run each)" : " (one run)")
                dumps[name] = try S.dump(db).filter {
                    !$0.hasPrefix("_urna") || $0.hasPrefix(FieldGenerations.table)
                }
                lists[name] = try S.value(
                    db,
                    "SELECT group_concat(target, ',') FROM (SELECT target FROM Coalition_parties ORDER BY owner, position)"
                )?.description
            }
        }
        let distinct = Set(lists.values)
        #expect(distinct.count == 1, "party lists: \(lists)")
        let first = dumps.values.first!
        for (name, d) in dumps where d != first {
            Issue.record("\(name) differs: \(Set(d).symmetricDifference(Set(first)).sorted())")
        }
    }
}
