import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// Slash dates are read per column when a file's columns show different orders (a spreadsheet re-saved one column
/// month first beside TSE's day-first ones), and a date that contradicts an order taken for want of any sign says
/// so honestly. Before (ninth real-files trial) such a file was undecided as a whole: every date of every column
/// that reads either way was emptied; and a month-first date after the look-ahead was said to contradict "this
/// file's other dates", which had shown nothing.
@Suite struct DateOrderByColumnTests {
    typealias S = ImportTestSupport

    @Test func eachColumnIsReadInItsOwnOrder() throws {
        let folder = try S.scratchFolder()
        // DT_GERACAO shows day first (27/09), DT_NASCIMENTO month first (3/27); DT_ELEICAO shows nothing.
        let rows: [[String: String]] = [
            ("27/09/2018", "3/27/1967"), ("27/09/2018", "3/7/1980"), ("05/09/2018", "12/11/1975"),
        ].enumerated().map { k, d in
            [
                "SQ_CANDIDATO": "13000061234\(k)", "NR_CANDIDATO": "12\(k)", "DT_GERACAO": d.0,
                "DT_ELEICAO": "07/10/2018", "DT_NASCIMENTO": d.1,
            ]
        }
        let file = try S.candidateFile(rows, in: folder)
        let db = folder + "/c.sqlite"
        let summary = try S.importFiles([file], into: db)
        let births = try Connection(path: db, readOnly: true, create: false)
            .rows("SELECT birthdate FROM Candidate ORDER BY sequence").map { $0[0] }
        #expect(
            births == [
                .text("1967-03-27T00:00:00.000Z"), .text("1980-03-07T00:00:00.000Z"), .text("1975-12-11T00:00:00.000Z"),
            ])
        // The third row's generation 05/09 reads day first, as its column shows: 5 September, the older one.
        #expect(
            try S.integer(db, "SELECT count(*) FROM Candidate WHERE generatedAt LIKE '2018-09-27%'") == 2)
        // DT_ELEICAO shows no order of its own in a file of both: left empty, with a warning.
        #expect(try S.value(db, "SELECT date FROM Election") == .null)
        let said = summary.warnings.first { $0.contains("day first in DT_GERACAO") }
        #expect(said?.contains("month first in DT_NASCIMENTO (DT_NASCIMENTO '3/27/1967' at line 2)") == true)
        #expect(said?.contains("in DT_ELEICAO, which show no order of their own") == true)
        #expect(summary.fieldsNulled == 3)  // each row's DT_ELEICAO
    }

    /// A padded file that shows nothing in its first rows is read day first (TSE's order); a month-first date
    /// after them says that the order was taken for want of a sign, and that the earlier dates may be wrong.
    @Test func lateMonthFirstDateSaysTheOrderWasAssumed() throws {
        let folder = try S.scratchFolder()
        let count = DateOrderSniffer.window + 50
        var rows: [[String: String]] = (0..<count).map { k in
            [
                "SQ_CANDIDATO": "\(130_000_600_000 + k)", "NR_CANDIDATO": "\(10_000 + k)", "DT_GERACAO": "09/09/2018",
                "DT_ELEICAO": "10/07/2018", "DT_NASCIMENTO": "03/07/1980",
            ]
        }
        rows[count - 1]["DT_NASCIMENTO"] = "03/27/1980"
        let file = try S.candidateFile(rows, in: folder)
        let summary = try S.importFiles([file], into: folder + "/l.sqlite")
        let text = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1)
        #expect(text.contains("DT_NASCIMENTO '03/27/1980' is written month first (M/d/yyyy), but no date in the rows"))
        #expect(text.contains("its earlier dates that read either way are wrong"))
        #expect(!text.contains("this file's other dates are day first"))
    }
}
