import Foundation
import Testing

@testable import UrnaRecords

/// A TSE file saved again with another separator (a spreadsheet in an English locale, pandas' `to_csv`) is said
/// to be so. It was "its first row has 1 field and is not a header; header-less TSE originals have 46, ..."
/// (unquoted) or "field 1: ',' after the closing quote" (quoted), neither naming the separator (sixth real-files
/// trial).
@Suite struct OtherSeparatorTests {
    typealias R = RecordsTestSupport

    /// The sample's rows rejoined with `separator`, every field quoted or none.
    static func resaved(_ fixture: String, separator: String, quoted: Bool) throws -> String {
        let text = try #require(
            String(data: try Data(contentsOf: URL(fileURLWithPath: R.fixture(fixture))), encoding: .isoLatin1))
        let lines = text.split(separator: "\n").prefix(5).map { line in
            line.split(separator: ";", omittingEmptySubsequences: false).map { field -> String in
                let bare = field.trimmingCharacters(in: CharacterSet(charactersIn: "\"\r"))
                return quoted ? "\"\(bare)\"" : bare
            }.joined(separator: separator)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(arguments: [(",", false, "commas"), (",", true, "commas"), ("\t", false, "tabs"), ("\t", true, "tabs")])
    func aHeaderFileSavedWithAnotherSeparatorIsSaidToBeSo(separator: String, quoted: Bool, name: String) throws {
        let path = try R.temporaryFile(
            "consulta_cand_2018_MG.csv",
            latin1: try Self.resaved("consulta_cand_2018_MG.58col.csv", separator: separator, quoted: quoted))
        #expect {
            try TSEFileReader(path: path)
        } throws: { error in
            guard case .unrecognized(let file, let reason, let missing)? = error as? RecordFileError else {
                return false
            }
            return file == "consulta_cand_2018_MG.csv" && missing.isEmpty
                && reason.hasPrefix("its rows are separated by \(name), not by semicolons as TSE writes them")
                && reason.contains("58 fields between \(name), 58 of them TSE column names")
        }
    }

    @Test func aHeaderlessOriginalSavedWithTabsIsSaidToBeSo() throws {
        let path = try R.temporaryFile(
            "consulta_cand_2016_AC.txt",
            latin1: try Self.resaved("consulta_cand_2016_AC.original-noheader.txt", separator: "\t", quoted: false))
        #expect {
            try TSEFileReader(path: path)
        } throws: { error in
            "\(error)".contains(
                "its rows are separated by tabs, not by semicolons as TSE writes them (the first line "
                    + "holds 46 fields between tabs)")
        }
    }

    @Test func otherFilesKeepTheirMessage() throws {
        #expect(TSELayouts.otherSeparator(firstLine: "name,age,city") == nil)
        #expect(TSELayouts.otherSeparator(firstLine: "DT_GERACAO;HH_GERACAO,ANO_ELEICAO") == nil)
        let path = try R.temporaryFile("notes.csv", latin1: "name,age\nAna,30\n")
        #expect {
            try TSEFileReader(path: path)
        } throws: { error in
            "\(error)".contains("its first row has 1 field and is not a header")
        }
    }
}
