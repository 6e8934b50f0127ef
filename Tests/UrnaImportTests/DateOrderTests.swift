import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// Slash dates are read in the order their file shows (eighth real-files trial). A TSE file saved by a spreadsheet
/// in a US locale writes `M/d/yyyy` (`10/7/2018` for 07/10/2018); every date whose day is 12 or less was read as
/// day/month without a word (the 2022 AC file so saved: 542 election dates, 542 generations and 215 birth dates
/// wrong, exit 0), and beside the original its wrong generation date made one of the copies "the newer".
@Suite struct DateOrderTests {
    typealias S = ImportTestSupport

    /// Three candidacies; `dates` gives each its (DT_GERACAO, DT_ELEICAO, DT_NASCIMENTO).
    static func rows(_ dates: [(String, String, String)]) -> [[String: String]] {
        dates.enumerated().map { k, d in
            [
                "SQ_CANDIDATO": "13000061234\(k)", "NR_CANDIDATO": "12\(k)", "NM_CANDIDATO": "CANDIDATA \(k)",
                "DT_GERACAO": d.0, "DT_ELEICAO": d.1, "DT_NASCIMENTO": d.2,
            ]
        }
    }

    /// TSE's own dates for the three candidacies.
    static let original = rows([
        ("27/09/2018", "07/10/2018", "27/03/1967"), ("27/09/2018", "07/10/2018", "07/03/1980"),
        ("27/09/2018", "07/10/2018", "11/12/1975"),
    ])

    /// The tables of `db` without urna's bookkeeping (run history, generations).
    static func data(_ db: String) throws -> [String] { try S.dump(db).filter { !$0.hasPrefix("_urna") } }

    static func rejects(_ summary: ImportSummary) throws -> String {
        guard let path = summary.rejectsFile else { return "" }
        return try String(contentsOfFile: path, encoding: .isoLatin1)
    }

    @Test func evidenceAndOrders() {
        #expect(TSEDate.orderEvidence("27/3/1967") == .dayFirst)
        #expect(TSEDate.orderEvidence("3/27/1967") == .monthFirst)
        #expect(TSEDate.orderEvidence("3/7/1967") == .ambiguous(padded: false))
        #expect(TSEDate.orderEvidence("03/07/1967") == .ambiguous(padded: true))
        #expect(TSEDate.orderEvidence("07/07/1967") == nil)
        #expect(TSEDate.orderEvidence("1967-03-07") == nil)
        #expect(TSEDate.orderEvidence("9/27/2018 19:04:59") == .monthFirst)
        #expect(TSEDate.parse("3/7/1967", order: .monthFirst) == .date("1967-03-07T00:00:00.000Z"))
        #expect(TSEDate.parse("3/7/1967") == .date("1967-07-03T00:00:00.000Z"))
        #expect(TSEDate.parse("3/7/1967", order: .undecided) == .invalid)
        #expect(TSEDate.parse("3/27/1967", order: .undecided) == .date("1967-03-27T00:00:00.000Z"))
        #expect(TSEDate.parse("27/3/1967", order: .undecided) == .date("1967-03-27T00:00:00.000Z"))
        #expect(TSEDate.parse("27/3/1967", order: .monthFirst) == .invalid)
        #expect(
            TSEDate.parse(date: "9/27/2018", time: "19:04:59", order: .monthFirst) == .date("2018-09-27T19:04:59.000Z"))
        #expect(
            TSEDate.parse("22-MAR-52", referenceYear: 2010, order: .monthFirst) == .date("1952-03-22T00:00:00.000Z"))
    }

    /// A file saved month first (every date, unpadded) gives the original's database, alone and beside it in
    /// either order, and the summary says how its dates were read.
    @Test func monthFirstFileGivesTheOriginal() throws {
        let folder = try S.scratchFolder()
        let tse = try S.candidateFile(Self.original, named: "consulta_cand_2018_MG.csv", in: folder)
        let us = try S.candidateFile(
            Self.rows([
                ("9/27/2018", "10/7/2018", "3/27/1967"), ("9/27/2018", "10/7/2018", "3/7/1980"),
                ("9/27/2018", "10/7/2018", "12/11/1975"),
            ]), named: "consulta_cand_2018_MG.us.csv", in: folder)
        _ = try S.importFiles([tse], into: folder + "/o.sqlite")
        let expected = try Self.data(folder + "/o.sqlite")
        let alone = try S.importFiles([us], into: folder + "/us.sqlite")
        #expect(try Self.data(folder + "/us.sqlite") == expected)
        #expect(alone.fieldsNulled == 0)
        #expect(alone.warnings.contains { $0.contains("consulta_cand_2018_MG.us.csv") && $0.contains("month first") })
        for (k, files) in [[tse, us], [us, tse]].enumerated() {
            let db = folder + "/both\(k).sqlite"
            _ = try S.importFiles(files, into: db)
            #expect(try Self.data(db) == expected, "order \(k)")
        }
    }

    /// A spreadsheet that kept day-first dates it could not read as its own (`27/03/1967`) and dropped the zeros of
    /// the others (`7/3/1980`) wrote day first: read so, without a warning.
    @Test func dayFirstWithoutZerosIsDayFirst() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            Self.rows([
                ("27/09/2018", "7/10/2018", "27/03/1967"), ("27/09/2018", "7/10/2018", "7/3/1980"),
                ("27/09/2018", "7/10/2018", "11/12/1975"),
            ]), in: folder)
        let summary = try S.importFiles([file], into: folder + "/d.sqlite")
        #expect(summary.fieldsNulled == 0)
        #expect(!summary.warnings.contains { $0.contains("month first") || $0.contains("day/month") })
        #expect(
            try S.value(folder + "/d.sqlite", "SELECT birthdate FROM Candidate WHERE sequence = 130000612341")
                == .text("1980-03-07T00:00:00.000Z"))
    }

    /// Dates without zeros that no value orders (`7/10/2018`, `3/7/1980`) are left empty with a warning each, and
    /// the summary says why: they were read day first without a word.
    @Test func ambiguousFileIsNotGuessed() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            Self.rows([
                ("9/9/2018", "7/10/2018", "3/7/1980"), ("9/9/2018", "7/10/2018", "1/2/1970"),
                ("9/9/2018", "7/10/2018", "5/5/1975"),
            ]), in: folder)
        let db = folder + "/a.sqlite"
        let summary = try S.importFiles([file], into: db)
        #expect(summary.rows.inserted == 3)
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate IS NOT NULL") == 1)
        #expect(try S.integer(db, "SELECT count(*) FROM Election WHERE date IS NOT NULL") == 0)
        #expect(summary.fieldsNulled >= 3)
        #expect(summary.warnings.contains { $0.contains("no date tells whether the file writes day/month") })
        let text = try Self.rejects(summary)
        #expect(text.contains("DT_NASCIMENTO '3/7/1980' could be day/month or month/day"))
    }

    /// A file holding both orders reads each date that shows its order, and leaves the others empty.
    @Test func mixedOrdersKeepWhatShowsItsOrder() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            Self.rows([
                ("27/09/2018", "07/10/2018", "27/3/1967"), ("27/09/2018", "07/10/2018", "3/27/1980"),
                ("27/09/2018", "07/10/2018", "3/7/1975"),
            ]), in: folder)
        let db = folder + "/m.sqlite"
        let summary = try S.importFiles([file], into: db)
        let births = try Connection(path: db, readOnly: true, create: false)
            .rows("SELECT birthdate FROM Candidate ORDER BY sequence").map { $0[0] }
        #expect(births == [.text("1967-03-27T00:00:00.000Z"), .text("1980-03-27T00:00:00.000Z"), .null])
        #expect(summary.warnings.contains { $0.contains("both day first") && $0.contains("month first") })
        #expect(try Self.rejects(summary).contains("DT_NASCIMENTO '3/7/1975' could be day/month"))
    }

    /// The real 2022 AC candidates and goods with every date as a US spreadsheet writes it (`10/2/2022`,
    /// `5/1/1989`) give the original's database, alone and beside it in either order (before: 542 election dates
    /// and generations read as 12/09 -> 09/12, 333 birth dates nulled and 207 read day first).
    @Test func realFilesSavedMonthFirstGiveTheOriginal() throws {
        guard let more = GenerationsAndIdentityTests.more else {
            print("skipped: ../shared/tse/more is not beside this checkout")
            return
        }
        let folder = try S.scratchFolder()
        var copies: [String] = []
        for name in ["consulta_cand_2022_AC.csv", "bem_candidato_2022_AC.csv"] {
            let text = try String(contentsOfFile: more + "/" + name, encoding: .isoLatin1)
            let us = text.replacing(/"(\d\d)\/(\d\d)\/(\d{4})/) { m in "\"\(Int(m.2)!)/\(Int(m.1)!)/\(m.3)" }
            #expect(us != text)
            copies.append(try S.write(us, named: "us_" + name, in: folder))
        }
        let originals = [more + "/consulta_cand_2022_AC.csv", more + "/bem_candidato_2022_AC.csv"]
        _ = try S.importFiles(originals, into: folder + "/o.sqlite")
        let expected = try Self.data(folder + "/o.sqlite")
        let alone = try S.importFiles(copies, into: folder + "/us.sqlite")
        #expect(alone.fieldsNulled == 0)
        #expect(try Self.data(folder + "/us.sqlite") == expected)
        for (k, files) in [originals + copies, copies + originals].enumerated() {
            let db = folder + "/both\(k).sqlite"
            _ = try S.importFiles(files, into: db)
            #expect(try Self.data(db) == expected, "order \(k)")
        }
    }

    /// A US spreadsheet writes times on a 12-hour clock (`6:37:33 PM`): read as 18:37:33. Before, HH_GERACAO so
    /// written made each row's generation midnight (with a warning per row) and HH_ULTIMA_ATUALIZACAO was dropped
    /// without a word.
    @Test func twelveHourTimesAreRead() {
        #expect(TSEDate.parse(date: "27/09/2018", time: "6:37:33 PM") == .date("2018-09-27T18:37:33.000Z"))
        #expect(TSEDate.parse(date: "27/09/2018", time: "12:05:00 AM") == .date("2018-09-27T00:05:00.000Z"))
        #expect(TSEDate.parse(date: "27/09/2018", time: "12:05:00 pm") == .date("2018-09-27T12:05:00.000Z"))
        #expect(TSEDate.parse(date: "27/09/2018", time: "9:04AM") == .date("2018-09-27T09:04:00.000Z"))
        for bad in ["13:00:00 PM", "0:10:00 AM", "PM", "10:00 XM"] {
            var text = bad
            #expect(text.withUTF8(TSEDate.timeOfDay) == nil, "\(bad)")
        }
    }

    /// An asset's update time that is no time of day is said, not dropped.
    @Test func unreadableUpdateTimeIsSaid() throws {
        let folder = try S.scratchFolder()
        let candidates = try S.candidateFile(Self.original, in: folder)
        let assets = try S.assetFile(
            [["SQ_CANDIDATO": "130000612340", "HH_ULTIMA_ATUALIZACAO": "10h12"]], in: folder)
        let db = folder + "/t.sqlite"
        let summary = try S.importFiles([candidates, assets], into: db)
        #expect(try Self.rejects(summary).contains("HH_ULTIMA_ATUALIZACAO is not a time of day"))
        #expect(summary.fieldsNulled == 1)
        #expect(try S.value(db, "SELECT updatedAt FROM Good") == .text("2018-09-19T00:00:00.000Z"))
    }

    /// A file whose first rows show no order is held on until one does (here after the look-ahead's 2,000 rows).
    @Test func evidenceAfterTheWindowDecides() throws {
        let folder = try S.scratchFolder()
        let count = DateOrderSniffer.window + 100
        var rows: [[String: String]] = (0..<count).map { k in
            [
                "SQ_CANDIDATO": "\(130_000_600_000 + k)", "NR_CANDIDATO": "\(10_000 + k)", "DT_GERACAO": "9/9/2018",
                "DT_ELEICAO": "10/7/2018", "DT_NASCIMENTO": "3/7/1980",
            ]
        }
        rows[count - 1]["DT_NASCIMENTO"] = "3/27/1980"
        let file = try S.candidateFile(rows, in: folder)
        let db = folder + "/w.sqlite"
        let summary = try S.importFiles([file], into: db)
        #expect(summary.fieldsNulled == 0)
        #expect(
            try S.integer(db, "SELECT count(*) FROM Candidate WHERE birthdate = '1980-03-07T00:00:00.000Z'") == count
                - 1)
        #expect(try S.value(db, "SELECT date FROM Election") == .text("2018-10-07T00:00:00.000Z"))
    }
}
