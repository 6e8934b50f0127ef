import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// A TSE file opened in a spreadsheet and saved again loses the leading zeros of SG_UE (`01392` -> `1392`).
/// Imported beside the original (or a later generation of it), each of its candidacies and coalitions became a
/// second object under the other unit, without a word: 19 of a 20-row excerpt of 2016 AC doubled (sixth
/// real-files trial). SG_UE is read back with its zeros, with a warning per field and a count in the summary.
@Suite struct SpreadsheetSavedUnitTests {
    typealias S = ImportTestSupport

    /// The 2012 AC excerpt with SG_UE's leading zeros dropped, as a spreadsheet saves it; and how many lost some.
    static func spreadsheetCopy(in folder: String) throws -> (path: String, changed: Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: S.fixture(Self.excerpt)))
        let text = try #require(String(data: data, encoding: .isoLatin1))
        var changed = 0
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 6 else { return String(line) }
            let unit = fields[6].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            let trimmed = String(unit.drop { $0 == "0" })
            if trimmed != unit {
                changed += 1
                fields[6] = trimmed  // unquoted, as a spreadsheet writes a number
            }
            return fields.joined(separator: ";")
        }
        let path = try S.write(
            lines.joined(separator: "\n"), named: "consulta_cand_2012_AC.saved-by-a-spreadsheet.csv", in: folder)
        return (path, changed)
    }

    static let excerpt = "sample_consulta_cand_2012_AC.original-noheader.txt"

    @Test("a spreadsheet's copy beside the original gives the original's candidacies and coalitions, in either order")
    func spreadsheetCopyMeetsTheOriginal() throws {
        let folder = try S.scratchFolder()
        let (copy, changed) = try Self.spreadsheetCopy(in: folder)
        #expect(changed == 37, "every row of the excerpt has a municipal SG_UE with a leading zero")
        let alone = folder + "/alone.sqlite"
        _ = try S.importFiles([S.fixture(Self.excerpt)], into: alone)
        var dumps: [[String]] = []
        for (name, files) in [("a", [S.fixture(Self.excerpt), copy]), ("b", [copy, S.fixture(Self.excerpt)])] {
            let db = folder + "/\(name).sqlite"
            let summary = try S.importFiles(files, into: db)
            #expect(summary.fieldsCorrected == changed, "\(name)")
            #expect(summary.fieldsNulled == 0)
            #expect(try S.counts(db) == S.counts(alone), "\(name)")
            #expect(try S.integer(db, "SELECT count(*) FROM Candidate WHERE length(unit) <> 5") == 0)
            let rejects = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .utf8)
            #expect(rejects.contains("warning: SG_UE '1015' has lost its leading zeros"), "\(rejects.prefix(400))")
            #expect(summary.renderText().contains("fields corrected: \(changed)"))
            dumps.append(try S.dump(db).filter { !$0.hasPrefix("_urna") })
        }
        #expect(dumps[0] == dumps[1])
    }

    @Test(
        "with personal data kept, a spreadsheet's copy whose CPF and voter-ID numbers lost their zeros too leaves the original's numbers as they were"
    )
    func personalNumbersKeepTheirZeros() throws {
        let folder = try S.scratchFolder()
        let data = try Data(contentsOf: URL(fileURLWithPath: S.fixture(Self.excerpt)))
        let text = try #require(String(data: data, encoding: .isoLatin1))
        // SG_UE (field 7), NR_CPF_CANDIDATO (14) and NR_TITULO_ELEITORAL_CANDIDATO (28) as a spreadsheet saves them.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 28 else { return String(line) }
            for i in [6, 13, 27] {
                fields[i] = String(
                    fields[i].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).drop { $0 == "0" })
            }
            return fields.joined(separator: ";")
        }
        let copy = try S.write(
            lines.joined(separator: "\n"), named: "consulta_cand_2012_AC.saved-by-a-spreadsheet.csv", in: folder)
        let alone = folder + "/alone.sqlite"
        _ = try S.importFiles([S.fixture(Self.excerpt)], into: alone, keepPersonalData: true)
        let numbers = "SELECT id, cpf, voterId FROM Candidate ORDER BY id"
        func rows(_ db: String) throws -> [String] {
            try Connection(path: db, readOnly: true, create: false).rows(numbers).map { "\($0)" }
        }
        let original = try rows(alone)
        #expect(try S.integer(alone, "SELECT count(*) FROM Candidate WHERE cpf LIKE '0%' OR voterId LIKE '0%'") > 0)
        for (name, files) in [("a", [S.fixture(Self.excerpt), copy]), ("b", [copy, S.fixture(Self.excerpt)])] {
            let db = folder + "/\(name).sqlite"
            let summary = try S.importFiles(files, into: db, keepPersonalData: true)
            #expect(summary.rows.conflicts == 0, "\(name)")
            #expect(try rows(db) == original, "\(name)")
        }
    }

    @Test("an asset row whose SG_UE lost its zeros finds its candidacy; state and national units are left alone")
    func assetsAndLetterUnits() throws {
        let folder = try S.scratchFolder()
        let cand = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "SG_UE": "01392", "NM_UE": "RIO BRANCO", "CD_CARGO": "11"],
                ["SQ_CANDIDATO": "2", "SG_UE": "MG"], ["SQ_CANDIDATO": "3", "SG_UE": "12345"],
            ], in: folder)
        let assets = try S.assetFile([["SQ_CANDIDATO": "1", "SG_UE": "1392"]], in: folder)
        let db = folder + "/urna.sqlite"
        let summary = try S.importFiles([cand, assets], into: db)
        #expect(summary.fieldsCorrected == 1)
        #expect(summary.rejected == 0)
        #expect(try S.counts(db)["Good"] == 1)
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate WHERE unit IN ('01392', 'MG', '12345')") == 3)
        #expect(summary.renderJSON().contains("\"fieldsNulled\": 0, \"fieldsCorrected\": 1,"))
    }
}
