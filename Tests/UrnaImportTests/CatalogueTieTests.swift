import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// Two rows of one generation that give a party, coalition or election other values (a state file and the national
/// file of the same generation that disagree): the merge keeps one by its fixed rule, and the run says so, as it does
/// for candidacies. Before (eighth real-files trial) a party's name or a coalition's composition was decided without a
/// word, and the coalition's parties followed the composition kept.
@Suite struct CatalogueTieTests {
    typealias S = ImportTestSupport

    /// Two candidacies of party 27 and coalition 900, the second row giving `second` instead.
    static func rows(second: [String: String]) -> [[String: String]] {
        [
            ["SQ_CANDIDATO": "130000612345", "NR_CANDIDATO": "2701"],
            ["SQ_CANDIDATO": "130000612346", "NR_CANDIDATO": "2702", "NM_CANDIDATO": "BELTRANA"].merging(second) { $1 },
        ]
    }

    static func rejects(_ summary: ImportSummary) throws -> String {
        guard let path = summary.rejectsFile else { return "" }
        return try String(contentsOfFile: path, encoding: .isoLatin1)
    }

    @Test func tiesInOneRunAreSaid() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            Self.rows(second: ["NM_PARTIDO": "DEMOCRACIA CRISTA DO BRASIL", "DS_COMPOSICAO_COLIGACAO": "DC / PT"]),
            in: folder)
        let summary = try S.importFiles([file], into: folder + "/t.sqlite")
        let text = try Self.rejects(summary)
        #expect(text.contains("gives Party.name another value"))
        #expect(text.contains("gives Coalition.composition another value"))
        #expect(summary.warnings.contains { $0.hasPrefix("2 values disagreed between rows of one generation") })
    }

    @Test func tiesWithAStoredRowAreSaid() throws {
        let folder = try S.scratchFolder()
        let first = try S.candidateFile(Self.rows(second: [:]), named: "consulta_cand_2018_MG.csv", in: folder)
        let second = try S.candidateFile(
            Self.rows(second: [:]).map { $0.merging(["NM_PARTIDO": "DEMOCRACIA CRISTA DO BRASIL"]) { $1 } },
            named: "consulta_cand_2018_MG.other.csv", in: folder)
        let db = folder + "/t.sqlite"
        _ = try S.importFiles([first], into: db)
        let summary = try S.importFiles([second], into: db)
        let text = try Self.rejects(summary)
        #expect(text.contains("consulta_cand_2018_MG.other.csv,2,0,"))
        #expect(text.contains("gives Party.name another value"))
        #expect(summary.warnings.contains { $0.contains("values disagreed between rows of one generation") })
    }

    /// Rows that agree say nothing.
    @Test func agreeingRowsSayNothing() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(Self.rows(second: [:]), in: folder)
        let summary = try S.importFiles([file, file], into: folder + "/t.sqlite")
        #expect(!summary.warnings.contains { $0.contains("disagreed") })
    }
}
