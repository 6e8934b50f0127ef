import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// A TSE file opened in a spreadsheet and saved again, as the seventh real-files trial made them from the 2022 AC
/// file: ISO dates, long numbers in scientific notation, thousands separators, a race code without its zero.
/// Such a copy, alone or beside the original in either order, must give the original's database or say what it
/// could not read; before, ISO dates were nulled (DT_GERACAO's made every row "the oldest generation"), and
/// `4,34801E+10` was stored as a CPF or process number and, beside the original, replaced it.
@Suite struct SpreadsheetResaveTests {
    typealias S = ImportTestSupport

    /// Two candidacies as TSE writes them, with `overrides` applied to both (by column name).
    static func rows(_ overrides: [String: String] = [:]) -> [[String: String]] {
        [
            ["SQ_CANDIDATO": "130000612345", "NR_CANDIDATO": "1234"].merging(overrides) { $1 },
            [
                "SQ_CANDIDATO": "130000612346", "NR_CANDIDATO": "4321", "NM_CANDIDATO": "BELTRANA DE TAL",
                "NR_CPF_CANDIDATO": "01234567890",
            ].merging(overrides) { $1 },
        ]
    }

    /// The tables of `db` without urna's bookkeeping (run history, generations).
    static func data(_ db: String) throws -> [String] { try S.dump(db).filter { !$0.hasPrefix("_urna") } }

    /// Imports the original alone, the copy alone and both in each order; returns their data and summaries.
    static func runs(copy: [String: String], keepPersonalData: Bool = false) throws -> (
        original: [String], copy: [String], both: [[String]], copySummary: ImportSummary, bothSummaries: [ImportSummary]
    ) {
        let folder = try S.scratchFolder()
        let original = try S.candidateFile(rows(), named: "consulta_cand_2018_MG.csv", in: folder)
        let saved = try S.candidateFile(rows(copy), named: "consulta_cand_2018_MG.resaved.csv", in: folder)
        _ = try S.importFiles([original], into: folder + "/o.sqlite", keepPersonalData: keepPersonalData)
        let copySummary = try S.importFiles([saved], into: folder + "/c.sqlite", keepPersonalData: keepPersonalData)
        var both: [[String]] = []
        var summaries: [ImportSummary] = []
        for (k, files) in [[original, saved], [saved, original]].enumerated() {
            let db = folder + "/both\(k).sqlite"
            summaries.append(try S.importFiles(files, into: db, keepPersonalData: keepPersonalData))
            both.append(try data(db))
        }
        return (try data(folder + "/o.sqlite"), try data(folder + "/c.sqlite"), both, copySummary, summaries)
    }

    /// The rejects file's text ("" when the run wrote none); read as Latin-1, since its `original` column holds
    /// the source's bytes.
    static func rejects(_ summary: ImportSummary) throws -> String {
        guard let path = summary.rejectsFile else { return "" }
        return try String(contentsOfFile: path, encoding: .isoLatin1)
    }

    @Test func isoDatesAreRead() {
        #expect(TSEDate.parse("1967-03-27") == .date("1967-03-27T00:00:00.000Z"))
        #expect(TSEDate.parse("2018-09-27 19:04:59") == .date("2018-09-27T19:04:59.000Z"))
        #expect(TSEDate.parse("2018-09-27T19:04") == .date("2018-09-27T19:04:00.000Z"))
        #expect(TSEDate.parse(date: "2018-09-27", time: "19:04:59") == .date("2018-09-27T19:04:59.000Z"))
        for bad in ["2018-02-30", "2018-13-01", "2018-9-27", "20180-09-27", "2018-09-27 25:00", "2018-09-27x"] {
            #expect(TSEDate.parse(bad) == .invalid, "\(bad)")
        }
    }

    @Test("a copy whose dates a spreadsheet wrote as yyyy-MM-dd gives the original's database")
    func isoDatesCopy() throws {
        let r = try Self.runs(copy: [
            "DT_GERACAO": "2018-09-27", "DT_NASCIMENTO": "1967-03-27", "DT_ELEICAO": "2018-10-07",
        ])
        let rejects = try Self.rejects(r.copySummary)
        #expect(r.copySummary.fieldsNulled == 0, "\(rejects)")
        #expect(r.copy == r.original)
        #expect(r.both[0] == r.original && r.both[1] == r.original)
        #expect(r.bothSummaries.allSatisfy { $0.rows.superseded == 0 && $0.rows.conflicts == 0 })
    }

    @Test("a number in scientific notation is never stored: CPF, voter-ID, process and protocol numbers")
    func scientificNotationIsNulled() throws {
        let r = try Self.runs(
            copy: [
                "NR_CPF_CANDIDATO": "1,23457E+10", "NR_TITULO_ELEITORAL_CANDIDATO": "9,22649E+10",
                "NR_PROCESSO": "6,02423E+18", "NR_PROTOCOLO_CANDIDATURA": "1.5e+9",
            ], keepPersonalData: true)
        #expect(r.copySummary.fieldsNulled == 8)
        let rejects = try Self.rejects(r.copySummary)
        #expect(
            rejects.contains(
                ",2,21,\"warning: NR_CPF_CANDIDATO '1,23457E+10' is in a spreadsheet's scientific notation"))
        #expect(rejects.contains("format the column as text in the spreadsheet before saving"))
        #expect(!r.copy.joined().contains("E+"), "the copy's rounded numbers were stored")
        // Beside the original, in either order, the original's numbers stay.
        #expect(r.both[0] == r.original, "original, then copy")
        #expect(r.both[1] == r.original, "copy, then original")
    }

    @Test("an identifying number in scientific notation rejects its row, naming the spreadsheet's doing")
    func scientificIdentity() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [["SQ_CANDIDATO": "1,30001E+11"], ["SQ_CANDIDATO": "130000612346"]], in: folder)
        let summary = try S.importFiles([file], into: folder + "/u.sqlite")
        #expect(summary.rejected == 1 && summary.rows.inserted == 1)
        let rejects = try Self.rejects(summary)
        #expect(rejects.contains(",2,16,\"SQ_CANDIDATO '1,30001E+11' is in a spreadsheet's scientific notation"))
        #expect(rejects.contains("which identifies the row; import TSE's file itself, or format the column as text"))
    }

    @Test("whole numbers a spreadsheet wrote with thousands separators are read back, with a warning")
    func thousandsSeparators() throws {
        let grouped = try Self.runs(copy: ["NR_CANDIDATO": "1.234", "CD_OCUPACAO": "2.330"])
        #expect(grouped.copySummary.fieldsNulled == 0)
        #expect(grouped.copySummary.fieldsCorrected == 4)
        let rejects = try Self.rejects(grouped.copySummary)
        #expect(rejects.contains("warning: NR_CANDIDATO '1.234' is written with thousands separators"))
        #expect(rejects.contains("read as 2330"))
        let folder = try S.scratchFolder()
        let sequence = try S.candidateFile([["SQ_CANDIDATO": "130.000.612.345"]], in: folder)
        let summary = try S.importFiles([sequence], into: folder + "/s.sqlite")
        #expect(summary.rows.inserted == 1 && summary.rejected == 0 && summary.fieldsCorrected == 1)
        #expect(try S.integer(folder + "/s.sqlite", "SELECT sequence FROM Candidate") == 130_000_612_345)
        // Not a grouping: refused as before.
        for text in ["1.5", "12.34", "1.2345", "1.234,5", "1,234.567", ".123", "1234.567"] {
            #expect(TSEField.groupedInteger(text) == nil, "\(text)")
        }
        // A decimal is no grouping: a first group starting with 0 (0.123, 0,500), and one comma group (1,022 is
        // 1.022 in pt-BR, whose grouping is the dot). Two or more comma groups are an English locale's grouping.
        for text in ["0.123", "0,500", "00.123", "0.123.456", "1,022", "12,500", "0,123,456"] {
            #expect(TSEField.groupedInteger(text) == nil, "\(text)")
        }
        #expect(TSEField.groupedInteger("1.022") == 1022)
        #expect(TSEField.groupedInteger("1,234,567") == 1_234_567)
        #expect(TSEField.groupedInteger("10.001.619.992") == 10_001_619_992)
        let decimal = try Self.runs(copy: ["CD_OCUPACAO": "0,500"])
        #expect(decimal.copySummary.fieldsCorrected == 0 && decimal.copySummary.fieldsNulled == 2)
        #expect(try Self.rejects(decimal.copySummary).contains("CD_OCUPACAO is not a whole number"))
    }

    @Test("a race code whose zero a spreadsheet dropped is read back, so the copy meets the original")
    func raceCodeZero() throws {
        let r = try Self.runs(copy: ["CD_COR_RACA": "3"])
        #expect(r.copySummary.fieldsCorrected == 2)
        #expect(try Self.rejects(r.copySummary).contains("warning: CD_COR_RACA '3' has lost its leading zero"))
        #expect(r.copy == r.original)
        #expect(r.both[0] == r.original && r.both[1] == r.original)
    }

    @Test("a process number whose leading zero a spreadsheet dropped is read back, so the copy meets the original")
    func processNumberZero() throws {
        // The default row's NR_PROCESSO is 06024229720186130000 (CNJ: year 2018, court 6).
        let r = try Self.runs(copy: ["NR_PROCESSO": "6024229720186130000"])
        #expect(r.copySummary.fieldsCorrected == 2)
        #expect(try Self.rejects(r.copySummary).contains("warning: NR_PROCESSO has lost its leading zero"))
        #expect(r.copy == r.original)
        #expect(r.both[0] == r.original && r.both[1] == r.original)
        // Not a CNJ number of its election's year: left as written.
        let other = try Self.runs(copy: ["NR_PROCESSO": "6024229720146130000"])
        #expect(other.copySummary.fieldsCorrected == 0)
    }

    @Test("a process number whose check digits fail (digits a spreadsheet rounded away) is never stored")
    func processNumberRounded() throws {
        // 06024229720186130000 kept to 15 significant digits and its zero dropped: year and court look right.
        let rounded = try Self.runs(copy: ["NR_PROCESSO": "6024229720186100000"])
        #expect(rounded.copySummary.fieldsCorrected == 0 && rounded.copySummary.fieldsNulled == 2)
        let text = try Self.rejects(rounded.copySummary)
        #expect(text.contains("NR_PROCESSO '6024229720186100000' fails the CNJ check digits"), "\(text)")
        #expect(!text.contains("has lost its leading zero (TSE writes the process"))
        // Twenty digits, as written, whose check digits fail: nulled too.
        let twenty = try Self.runs(copy: ["NR_PROCESSO": "06024229720186130001"])
        #expect(twenty.copySummary.fieldsNulled == 2)
        // Both beside the original: the original's number is kept.
        #expect(rounded.both[0] == rounded.original && rounded.both[1] == rounded.original)
        for genuine in ["06024229720186130000", "06003723920206010008", "06003641820226010000"] {
            #expect(ElectionMapper.cnjCheckDigitsHold(Array(genuine.utf8)), "\(genuine)")
        }
        for wrong in ["06003723920206010000", "06024229720186130001", "16024229720186130000"] {
            #expect(!ElectionMapper.cnjCheckDigitsHold(Array(wrong.utf8)), "\(wrong)")
        }
    }
}
