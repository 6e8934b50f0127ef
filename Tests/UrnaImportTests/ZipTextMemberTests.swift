import Foundation
import Testing
import UrnaRecords

@testable import UrnaImport

/// A zip's `.txt` member that is no table (notes, a read-me under another name) is skipped with a warning naming it,
/// as a PDF is; a member shaped like TSE data that urna cannot read still stops the zip, never skipped. Before (ninth
/// real-files trial) such a notes member refused the whole zip (exit 65, nothing imported).
@Suite struct ZipTextMemberTests {
    typealias S = ImportTestSupport

    static let notes = "Dados baixados do portal do TSE em 2024.\nVer o LEIAME para o significado das colunas.\n"

    @Test func notesMemberIsSkippedByName() throws {
        let folder = try S.scratchFolder()
        let cand = try S.candidateFile([["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]], in: folder)
        let notes = try S.write(Self.notes, named: "notes.txt", in: folder)
        for (name, members) in [
            ("notes-first.zip", [("instrucoes.txt", notes), ("consulta_cand_2018_MG.csv", cand)]),
            ("notes-last.zip", [("consulta_cand_2018_MG.csv", cand), ("dados/instrucoes.txt", notes)]),
        ] {
            let zip = folder + "/" + name
            try OtherTSEFamilyTests.zip(zip, members)
            let db = folder + "/\(name).sqlite"
            let s = try S.importFiles([zip], into: db)
            #expect(try S.counts(db)["Candidate"] == 2, "\(name)")
            let said = s.warnings.filter { $0.contains("instrucoes.txt skipped: it is text, not a TSE table") }
            #expect(said.count == 1, "\(name): \(s.warnings)")
            #expect(said.first?.contains("'Dados baixados do portal do TSE em 2024.'") == true)
        }
    }

    /// A zip of notes only has no data: said so, nothing imported.
    @Test func zipOfNotesOnlyIsRefused() throws {
        let folder = try S.scratchFolder()
        let notes = try S.write(Self.notes, named: "notes.txt", in: folder)
        let zip = folder + "/only-notes.zip"
        try OtherTSEFamilyTests.zip(zip, [("instrucoes.txt", notes)])
        #expect {
            try S.importFiles([zip], into: folder + "/t.sqlite")
        } throws: { "\($0)".contains("holds no TSE data: its members instrucoes.txt are text that is no table") }
    }

    /// Members that may be TSE data still stop the zip: a table urna does not recognise (';' on its first line), a
    /// line naming TSE columns, a comma-separated copy, a member named as a TSE file.
    @Test func tseShapedMembersStillStopTheZip() throws {
        let folder = try S.scratchFolder()
        let cand = try S.candidateFile([["SQ_CANDIDATO": "1"]], in: folder)
        let shapes = [
            ("tabela.txt", "A;B;C\n1;2;3\n"),
            ("colunas.txt", "SQ_CANDIDATO NR_CANDIDATO NM_CANDIDATO\n"),
            ("copia.csv", "DT_GERACAO,HH_GERACAO,ANO_ELEICAO,SQ_CANDIDATO\n1,2,3,4\n"),
            ("consulta_cand_2018_SP.txt", "texto qualquer\n"),
        ]
        for (member, text) in shapes {
            let path = try S.write(text, named: "m-\(member)", in: folder)
            let zip = folder + "/\(member).zip"
            try OtherTSEFamilyTests.zip(zip, [("consulta_cand_2018_MG.csv", cand), (member, path)])
            #expect(throws: (any Error).self, "\(member)") {
                try S.importFiles([zip], into: folder + "/\(member).sqlite")
            }
        }
    }
}
