import Foundation
import Testing
import UrnaRecords

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

    @Test("a header file whose lines end with a separator loads every row, and a row without one")
    func headerFile() throws {
        let folder = try S.scratchFolder()
        let clean = try S.candidateFile(
            [["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"], ["SQ_CANDIDATO": "3"]], named: "clean.csv", in: folder)
        let text = try String(contentsOfFile: clean, encoding: .isoLatin1)
        // The header ends with the separator too (as every line of such a tool's file does); a data row without it
        // (the second, here) is read as well.
        var lines = Self.withTrailingSeparators(text, skipFirstLine: false).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
        lines[2].removeLast()
        let variant = try S.write(lines.joined(separator: "\n"), named: "consulta_cand_2018_MG.csv", in: folder)
        let (a, b, summary) = try Self.compare(clean: clean, variant: variant)
        #expect(summary.rejected == 0 && summary.rows.inserted == 3)
        #expect(a == b)
        #expect(
            summary.warnings.contains {
                $0.contains("consulta_cand_2018_MG.csv: 2 rows end with a separator after the last column")
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
        #expect(!summary.warnings.contains { $0.contains("with a separator after the last column") })
    }

    /// A candidacy row whose unquoted NM_CANDIDATO held a separator (`JOÃO;APARECIDO RIBEIRO LEAL`) and whose last
    /// column is empty: one field too many, the last one empty. Read, every later column took its left neighbour's
    /// value (name JOÃO, ballot name APARECIDO ..., exit 0). Only a file whose header (or, header-less, whose first
    /// row) ends with a separator may have rows that do.
    static let shiftedRow = S.candidateRow([
        "SQ_CANDIDATO": "2", "NM_CANDIDATO": "JOÃO\";\"APARECIDO RIBEIRO LEAL", "NR_PROCESSO": "",
    ])

    @Test("a row shifted by a separator inside a field, its last column empty, is a reject in a header file")
    func shiftedRowWithHeader() throws {
        let folder = try S.scratchFolder()
        let file = try S.write(
            [S.candidateHeader58, S.candidateRow(["SQ_CANDIDATO": "1"]), Self.shiftedRow].joined(separator: "\n")
                + "\n",
            named: "consulta_cand_2018_MG.csv", in: folder)
        let summary = try S.importFiles([file], into: folder + "/u.sqlite")
        #expect(summary.rejected == 1 && summary.rows.inserted == 1)
        let rejects = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1)
        #expect(rejects.contains("expected 58 fields, found 59"), "\(rejects)")
        #expect(!summary.warnings.contains { $0.contains("with a separator after the last column") })
    }

    @Test("a header-less original: a row with a separator after its last field is a reject unless the first has one")
    func shiftedRowHeaderless() throws {
        let folder = try S.scratchFolder()
        let text = try String(
            contentsOfFile: S.fixture("sample_consulta_cand_2012_AC.original-noheader.txt"), encoding: .isoLatin1)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[3] += ";"
        let file = try S.write(lines.joined(separator: "\n"), named: "consulta_cand_2012_AC.txt", in: folder)
        let summary = try S.importFiles([file], into: folder + "/u.sqlite")
        #expect(summary.rejected == 1 && summary.rows.inserted == 36)
        #expect(!summary.warnings.contains { $0.contains("with a separator after the last column") })
    }

    @Test("a header row ending with a separator is recognised as its catalogued layout")
    func headerWithSeparator() throws {
        let names = TSELayouts.candidate58.fileColumns + [""]
        #expect(try TSELayouts.recognize(firstRow: names, file: "x.csv").name == TSELayouts.candidate58.name)
    }
}
