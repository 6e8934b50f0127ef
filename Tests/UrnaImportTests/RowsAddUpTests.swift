import Foundation
import Testing

@testable import UrnaImport

/// A run whose outcomes do not account for every row read commits nothing (eighth real-files trial: a change that
/// read asset rows and never handed them on reported "1679 rows from 2 files", 542 inserted, 0 rejected, exit 0).
@Suite struct RowsAddUpTests {
    static func summary(rows: Int, inserted: Int, rejected: Int, legend: Int = 0) -> ImportSummary {
        var s = ImportSummary()
        s.files = [ImportSummary.FileReport(path: "a.csv", layout: "x", rows: rows, rejected: rejected)]
        s.rows.inserted = inserted
        s.rows.legend = legend
        s.rejected = rejected
        return s
    }

    @Test func missingRowsStopTheRun() {
        let s = Self.summary(rows: 1679, inserted: 542, rejected: 0)
        #expect(s.rowsAccounted == 542)
        #expect {
            try s.checkRowsAddUp(path: "db.sqlite")
        } throws: { error in
            guard let e = error as? ImportError, case .database(_, let reason, let code) = e else { return false }
            return code == 70 && reason.contains("1679 rows were read but the outcomes account for 542")
        }
    }

    @Test func rowsThatAddUpPass() throws {
        try Self.summary(rows: 10, inserted: 6, rejected: 3, legend: 1).checkRowsAddUp(path: "db.sqlite")
        try ImportSummary().checkRowsAddUp(path: "db.sqlite")
    }

    /// Real runs add up: the shared 2022 AC candidates and goods, whose goods come in a second file.
    @Test func realRunAddsUp() throws {
        guard let more = GenerationsAndIdentityTests.more else {
            print("skipped: ../shared/tse/more is not beside this checkout")
            return
        }
        let files = [more + "/consulta_cand_2022_AC.csv", more + "/bem_candidato_2022_AC.csv"]
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles(files, into: db)
        #expect(summary.rowsRead == 542 + 1137)
        #expect(summary.rowsAccounted == summary.rowsRead)
    }
}
