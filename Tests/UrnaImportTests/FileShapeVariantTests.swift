import Foundation
import Testing

/// Shapes of the same rows the shared real files do not show, generated from the committed 2018 MG excerpts:
/// columns in another order, a lower-case header padded with spaces, UTF-8 with a byte-order mark, numbers
/// unquoted with CRLF (as 2024 files), no quotes at all, and the goods header of TSE's 2026 regeneration. Each
/// gives the database the original files give, row for row (sixth real-files trial: all held).
@Suite struct FileShapeVariantTests {
    typealias S = ImportTestSupport

    /// Fields of a `;`-separated, fully quoted Latin-1 file (the excerpts have no separator or quote inside a field).
    static func rows(_ fixture: String) throws -> [[String]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: S.fixture(fixture)))
        let text = try #require(String(data: data, encoding: .isoLatin1))
        return text.split(separator: "\n").map { line in
            line.split(separator: ";", omittingEmptySubsequences: false).map {
                String($0.dropFirst().dropLast())
            }
        }
    }

    static func join(_ rows: [[String]], quote: (String) -> Bool, eol: String = "\n") -> String {
        rows.map { $0.map { quote($0) ? "\"\($0)\"" : $0 }.joined(separator: ";") }.joined(separator: eol) + eol
    }

    static let candidates = "sample_consulta_cand_2018_MG.58col.csv"
    static let goods = "sample_bem_candidato_2018_MG.csv"

    @Test func everyShapeGivesTheOriginalsDatabase() throws {
        let folder = try S.scratchFolder()
        let reference = folder + "/reference.sqlite"
        _ = try S.importFiles(
            [S.fixture(Self.candidates), S.fixture(Self.goods)], into: reference, keepPersonalData: true)
        let expected = try S.dump(reference).filter { !$0.hasPrefix("_urna") }
        #expect(try S.counts(reference)["Candidate"] == 85)

        let cand = try Self.rows(Self.candidates)
        let bem = try Self.rows(Self.goods)
        var order = Array(cand[0].indices)
        order.reverse()
        order.swapAt(3, 40)
        let renamed = [
            "NR_ORDEM_CANDIDATO": "NR_ORDEM_BEM_CANDIDATO", "DT_ULTIMA_ATUALIZACAO": "DT_ULT_ATUAL_BEM_CANDIDATO",
            "HH_ULTIMA_ATUALIZACAO": "HH_ULT_ATUAL_BEM_CANDIDATO",
        ]
        let numeric = { (v: String) in !v.isEmpty && v.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") } }
        let variants: [(String, String, String)] = [
            ("reordered", Self.join(cand.map { r in order.map { r[$0] } }, quote: { _ in true }), "latin1"),
            (
                "lower-case padded header",
                Self.join([cand[0].map { " " + $0.lowercased() + " " }] + cand.dropFirst(), quote: { _ in true }),
                "latin1"
            ),
            ("utf8 with BOM", "\u{FEFF}" + Self.join(cand, quote: { _ in true }), "utf8"),
            ("numbers unquoted, CRLF", Self.join(cand, quote: { !numeric($0) }, eol: "\r\n"), "latin1"),
            ("no quotes", Self.join(cand, quote: { _ in false }), "latin1"),
        ]
        let goods2026 = try S.write(
            Self.join([bem[0].map { renamed[$0] ?? $0 }] + bem.dropFirst(), quote: { _ in true }),
            named: "bem_candidato_2018_MG.2026-names.csv", in: folder)
        for (name, text, encoding) in variants {
            let file = folder + "/\(name).csv"
            if encoding == "utf8" {
                try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            } else {
                try S.write(text, named: "\(name).csv", in: folder)
            }
            let db = folder + "/\(name).sqlite"
            let summary = try S.importFiles([file, goods2026], into: db, keepPersonalData: true)
            #expect(summary.rejected == 60, "\(name): the 60 goods of candidacies the excerpt lacks wait")
            #expect(
                summary.warnings.count == 1 && summary.warnings[0].hasPrefix("60 goods wait"),
                "\(name): \(summary.warnings)")
            #expect(try S.dump(db).filter { !$0.hasPrefix("_urna") } == expected, "\(name)")
        }
    }
}
