import Foundation
import Testing

@testable import UrnaImport

/// A candidacy whose CD_CARGO was empty or unreadable is stored with office code 0, which no TSE office has; the
/// CSV export wrote that `0` as if the source had said so (tenth real-files trial: `12A` came back as `0`, `#NULO#`
/// too). It writes TSE's blank code, `-1`, as for every other unknown code; a real code is written as it was.
@Suite struct ExportUnknownOfficeTests {
    typealias S = ImportTestSupport

    @Test func anUnknownOfficeCodeIsExportedBlank() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "CD_CARGO": "#NULO#"],
                ["SQ_CANDIDATO": "2", "NR_CANDIDATO": "4321", "CD_CARGO": "6X"],
                ["SQ_CANDIDATO": "3", "NR_CANDIDATO": "5432"],
            ], in: folder)
        let db = folder + "/o.sqlite"
        _ = try S.importFiles([file], into: db)
        let out = folder + "/out.csv"
        try ExportTestFiles.export(db, ExportOptions(format: .csv), to: out)
        let lines = try String(contentsOfFile: out, encoding: .isoLatin1).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ";").map { $0.replacingOccurrences(of: "\"", with: "") }
        let office = try #require(header.firstIndex(of: "CD_CARGO"))
        let sequence = try #require(header.firstIndex(of: "SQ_CANDIDATO"))
        var codes: [String: String] = [:]
        for line in lines.dropFirst() {
            let f = line.split(separator: ";", omittingEmptySubsequences: false).map {
                $0.replacingOccurrences(of: "\"", with: "")
            }
            codes[f[sequence]] = f[office]
        }
        #expect(codes == ["1": "-1", "2": "-1", "3": "6"])
    }
}
