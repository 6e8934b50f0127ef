import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// `ImportOptions.dateOrder` (`urna import --date-order`): the order a person asks for is used for every date of
/// every file. Without it a month-first file whose first rows show no order (`03/07/1980`) is read day first, and
/// the dates read before a later `03/27/1980` are not read again (known since the ninth real-files trial); with
/// it they are all read as asked. A date written the other way is left empty, saying the order was asked for.
@Suite struct DateOrderAskedTests {
    typealias S = ImportTestSupport

    /// A padded month-first file whose first `DateOrderSniffer.window` rows show no order.
    private func lateMonthFirstFile(in folder: String) throws -> String {
        let count = DateOrderSniffer.window + 50
        var rows: [[String: String]] = (0..<count).map { k in
            [
                "SQ_CANDIDATO": "\(130_000_600_000 + k)", "NR_CANDIDATO": "\(10_000 + k)", "DT_GERACAO": "09/09/2018",
                "DT_ELEICAO": "10/07/2018", "DT_NASCIMENTO": "03/07/1980",
            ]
        }
        rows[count - 1]["DT_NASCIMENTO"] = "03/27/1980"
        return try S.candidateFile(rows, in: folder)
    }

    private func importFile(_ file: String, into db: String, order: TSEDate.Order?) throws -> ImportSummary {
        var options = ImportOptions(dbPath: db)
        options.dateOrder = order
        return try Importer(options: options).run(files: [file])
    }

    @Test func anAskedOrderReadsEveryDateOfTheFile() throws {
        let folder = try S.scratchFolder()
        let file = try lateMonthFirstFile(in: folder)
        let db = folder + "/m.sqlite"
        let summary = try importFile(file, into: db, order: .monthFirst)
        #expect(summary.fieldsNulled == 0)
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate") == Int64(DateOrderSniffer.window + 50))
        #expect(
            try S.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate = '1980-03-07T00:00:00.000Z'")
                == Int64(DateOrderSniffer.window + 49))
        #expect(
            try S.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate = '1980-03-27T00:00:00.000Z'") == 1)
        #expect(try S.value(db, "SELECT date FROM Election") == .text("2018-10-07T00:00:00.000Z"))
        // Without the option the file's first rows decide: day first, as before.
        let plain = folder + "/d.sqlite"
        _ = try importFile(file, into: plain, order: nil)
        #expect(
            try S.integer(plain, "SELECT count(*) FROM Candidate WHERE birthdate = '1980-07-03T00:00:00.000Z'")
                == Int64(DateOrderSniffer.window + 49))
    }

    @Test func aDateWrittenTheOtherWayIsEmptiedNamingTheOption() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "DT_NASCIMENTO": "3/27/1967"],
                ["SQ_CANDIDATO": "2", "NR_CANDIDATO": "4321", "DT_NASCIMENTO": "27/03/1967"],
            ], in: folder)
        let db = folder + "/a.sqlite"
        let summary = try importFile(file, into: db, order: .dayFirst)
        let births = try Connection(path: db, readOnly: true, create: false)
            .rows("SELECT birthdate FROM Candidate ORDER BY sequence").map { $0[0] }
        #expect(births == [.null, .text("1967-03-27T00:00:00.000Z")])
        #expect(summary.fieldsNulled == 1)
        let text = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1)
        #expect(text.contains("DT_NASCIMENTO '3/27/1967' is written month first (M/d/yyyy), but the import was asked"))
        #expect(text.contains("--date-order day-first"))
    }
    /// The fix given for a date written against the asked order points at the option: before, `27/03/1967` under
    /// `--date-order month-first` was told "write it as dd/MM/yyyy or yyyy-MM-dd", which it already was and which
    /// would be refused again (seventh session's review, D3).
    @Test func aDateAgainstTheAskedOrderIsToldToDropTheOption() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                [
                    "SQ_CANDIDATO": "1", "DT_GERACAO": "09/09/2018", "DT_ELEICAO": "10/07/2018",
                    "DT_NASCIMENTO": "27/03/1967",
                ],
                [
                    "SQ_CANDIDATO": "2", "NR_CANDIDATO": "4321", "DT_GERACAO": "09/09/2018", "DT_ELEICAO": "10/07/2018",
                    "DT_NASCIMENTO": "3/27/1967",
                ],
            ], in: folder)
        for (order, asked, other, wrong) in [
            (TSEDate.Order.monthFirst, "month-first", "day-first", "27/03/1967"),
            (TSEDate.Order.dayFirst, "day-first", "month-first", "3/27/1967"),
        ] {
            let summary = try importFile(file, into: folder + "/\(asked).sqlite", order: order)
            #expect(summary.fieldsNulled == 1)
            let text = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1)
            let row = text.split(separator: "\n").first { $0.contains("'\(wrong)'") }.map(String.init) ?? ""
            #expect(
                row.contains(
                    "import it without --date-order \(asked) (or with --date-order \(other)), or write it as yyyy-MM-dd"
                ),
                "\(row)")
            #expect(!row.contains("dd/MM/yyyy or"), "\(row)")
        }
    }
}
