import Foundation
import Testing

@testable import UrnaImport

/// A TSE file whose download stopped ends in the middle of a row. Its last row was rejected as "look for a separator
/// inside an unquoted field or a missing field" (2024 RN cut at a third) or "add the closing quote" (2016 AC cut in
/// half, inside a quoted field), which sent people editing a file they should download again (seventh real-files
/// trial). The rows before it load; the reject says the line is the file's last and what to do.
@Suite struct CutDownloadTests {
    typealias S = ImportTestSupport

    /// A two-row candidate file cut `keep` bytes into its last row, and the rejects file of importing it.
    static func importCut(keep: Int) throws -> (summary: ImportSummary, rejects: String) {
        let folder = try S.scratchFolder()
        let whole = try S.candidateFile(
            [["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]], named: "whole.csv", in: folder)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let lastRowStart = bytes.dropLast().lastIndex(of: 0x0A)! + 1
        let cut = folder + "/consulta_cand_2018_MG.csv"
        try bytes.prefix(lastRowStart + keep).write(to: URL(fileURLWithPath: cut))
        let summary = try S.importFiles([cut], into: folder + "/u.sqlite")
        return (summary, try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1))
    }

    @Test("a file cut between two fields: its last row says the file may be cut short")
    func cutBetweenFields() throws {
        let (summary, rejects) = try Self.importCut(keep: 59)
        #expect(summary.rows.inserted == 1 && summary.rejected == 1)
        #expect(rejects.contains("consulta_cand_2018_MG.csv,3,"), "\(rejects)")
        #expect(rejects.contains("this is the file's last line: if the file was cut short (a download that stopped)"))
    }

    @Test("a file cut inside a quoted field: the unclosed quote's reject says a cut file ends so")
    func cutInsideAQuote() throws {
        let (summary, rejects) = try Self.importCut(keep: 70)
        #expect(summary.rows.inserted == 1 && summary.rejected == 1)
        #expect(rejects.contains("a file cut short (a download that stopped) ends so too: then download it again"))
    }

    @Test("a short row that is not the last keeps the usual advice only")
    func shortRowInTheMiddle() throws {
        let folder = try S.scratchFolder()
        let file = try S.write(
            [
                S.candidateHeader58, S.candidateRow(["SQ_CANDIDATO": "1"]), "\"27/09/2018\";\"19:04:59\";\"2018\"",
                S.candidateRow(["SQ_CANDIDATO": "2"]),
            ].joined(separator: "\n") + "\n",
            named: "consulta_cand_2018_MG.csv", in: folder)
        let summary = try S.importFiles([file], into: folder + "/u.sqlite")
        let rejects = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1)
        #expect(summary.rows.inserted == 2 && summary.rejected == 1)
        #expect(rejects.contains("look for a separator inside an unquoted field or a missing field"))
        #expect(!rejects.contains("last line"))
    }
}
