import Foundation
import Testing

@testable import UrnaImport

/// A file whose every line ends with a separator after its last field (some tools write one after each field).
/// The field past the layout's last column is empty, yet every row of a header file so written was rejected
/// ("expected 71 fields, found 72": 542 of 542 rows of 2022 AC) and a header-less original so written was refused
/// whole ("its first row has 47 fields", exit 65: 2016 AC). Seventh real-files trial. Such rows are read, with
/// one warning per file; a row whose extra field holds something is still a reject.
@Suite struct TrailingSeparatorTests {
    typealias S = ImportTestSupport

    /// `text` with a `;` added at the end of every non-empty line (all of them, or the data rows only).
    static func withTrailingSeparators(_ text: String, skipFirstLine: Bool) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { k, line in
            line.isEmpty || (skipFirstLine && k == 0) ? String(line) : line + ";"
        }.joined(separator: "\n")
    }

    /// Imports `clean` alone and `variant` alone; returns both databases' data and the variant's summary.
    static func compare(clean: String, variant: String) throws -> ([String], [String], ImportSummary) {
        let folder = try S.scratchFolder()
        _ = try S.importFiles([clean], into: folder + "/a.sqlite")
        let summary = try S.importFiles([variant], into: folder + "/b.sqlite")
        let data = { (db: String) in try S.dump(db).filter { !$0.hasPrefix("_urna") } }
        return (try data(folder + "/a.sqlite"), try data(folder + "/b.sqlite"), summary)
    }

    @Test("a header file whose data rows end with a separator loads every row")
    func headerFile() throws {
        let folder = try S.scratchFolder()
        let clean = try S.candidateFile(
            [["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"], ["SQ_CANDIDATO": "3"]], named: "clean.csv", in: folder)
        let text = try String(contentsOfFile: clean, encoding: .isoLatin1)
        let variant = try S.write(
            Self.withTrailingSeparators(text, skipFirstLine: true), named: "consulta_cand_2018_MG.csv", in: folder)
        let (a, b, summary) = try Self.compare(clean: clean, variant: variant)
        #expect(summary.rejected == 0 && summary.rows.inserted == 3)
        #expect(a == b)
        #expect(
            summary.warnings.contains {
                $0.contains("consulta_cand_2018_MG.csv: 3 rows end with a separator after the last column")
            }, "\(summary.warnings)")
    }

    @Test("a header-less original whose lines end with a separator is recognised and loads every row")
    func headerlessOriginal() throws {
        let folder = try S.scratchFolder()
        let clean = S.fixture("sample_consulta_cand_2012_AC.original-noheader.txt")
        let text = try String(contentsOfFile: clean, encoding: .isoLatin1)
        let variant = try S.write(
            Self.withTrailingSeparators(text, skipFirstLine: false), named: "consulta_cand_2012_AC.txt", in: folder)
        let (a, b, summary) = try Self.compare(clean: clean, variant: variant)
        #expect(summary.rejected == 0 && summary.rows.inserted == 37)
        #expect(a == b)
    }

    @Test("a row whose extra last field holds something is still a reject")
    func extraValue() throws {
        let folder = try S.scratchFolder()
        let file = try S.write(
            [
                S.candidateHeader58, S.candidateRow(["SQ_CANDIDATO": "1"]) + ";\"X\"",
                S.candidateRow(["SQ_CANDIDATO": "2"]),
            ].joined(separator: "\n") + "\n",
            named: "consulta_cand_2018_MG.csv", in: folder)
        let summary = try S.importFiles([file], into: folder + "/u.sqlite")
        #expect(summary.rejected == 1 && summary.rows.inserted == 1)
        #expect(!summary.warnings.contains { $0.contains("end with a separator") })
    }
}
