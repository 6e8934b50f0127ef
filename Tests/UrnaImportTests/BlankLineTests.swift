import Foundation
import Testing

@testable import UrnaImport

/// A line of spaces at the end of a file (an editor's) was a reject, "a one-field line, such as an export
/// trailer", while empty lines, and lines of spaces before the first row, are blank (seventh real-files trial).
@Suite struct BlankLineTests {
    typealias S = ImportTestSupport

    @Test("lines of spaces or tabs between and after the rows are blank, as empty lines are")
    func spacesOnlyLines() throws {
        let folder = try S.scratchFolder()
        let file = try S.write(
            [
                S.candidateHeader58, S.candidateRow(["SQ_CANDIDATO": "1"]), "   ",
                S.candidateRow(["SQ_CANDIDATO": "2"]),
                "\t ", "  ",
            ].joined(separator: "\r\n") + "\r\n",
            named: "consulta_cand_2018_MG.csv", in: folder)
        let summary = try S.importFiles([file], into: folder + "/u.sqlite")
        #expect(summary.rows.inserted == 2 && summary.rejected == 0)
    }
}
