import Foundation
import Testing
import UrnaRecords
import UrnaStore

@testable import UrnaImport

/// The insert of a candidacy or a good binds its fields straight from the value (`BindableUpsertRow`): every
/// parameter must get what the `[SQLValue]` row the merge path builds holds, column for column.
@Suite struct BindableRowTests {
    /// What `bind` leaves in parameters 1...n, read back through `SELECT ?1, ?2, ...`.
    private func bound(_ n: Int, on connection: Connection, _ bind: (Statement) -> Void) throws -> [SQLValue] {
        let select = try connection.prepare("SELECT " + (1...n).map { "?\($0)" }.joined(separator: ", "))
        bind(select)
        #expect(try select.step())
        let values = (0..<n).map { select.value(at: $0) }
        select.reset()
        return values
    }

    @Test func candidaciesAndGoodsBindTheirRows() throws {
        let connection = try Connection(path: try ImportTestSupport.newDatabasePath())
        var candidacies = 0
        var goods = 0
        for name in [
            "sample_consulta_cand_2018_MG.58col.csv", "sample_consulta_cand_2020_AC.63col.csv",
            "sample_consulta_cand_2022_AC.71col.csv", "sample_consulta_cand_2012_AC.original-noheader.txt",
            "consulta_cand_2014_AC.original-excerpt.txt", "sample_bem_candidato_2018_MG.csv",
            "bem_candidato_2014_AC.original-excerpt.txt",
        ] {
            let reader = try TSEFileReader(path: ImportTestSupport.fixture(name))
            let mapper = ElectionMapper()
            while let item = try reader.next() {
                guard case .record(let record) = item else { continue }
                switch mapper.map(record) {
                case .success(.candidacy(let objects)):
                    let row = objects.candidate.row
                    #expect(row.count == ElectionColumns.candidate.count)
                    let got = try bound(row.count, on: connection) { objects.candidate.bindRow(to: $0) }
                    #expect(got == row, "\(name) line \(record.location.line)")
                    candidacies += 1
                case .success(.asset(let objects)):
                    let row = objects.good.row
                    #expect(row.count == ElectionColumns.good.count)
                    let got = try bound(row.count, on: connection) { objects.good.bindRow(to: $0) }
                    #expect(got == row, "\(name) line \(record.location.line)")
                    goods += 1
                default: continue
                }
            }
        }
        #expect(candidacies > 100)
        #expect(goods > 100)
    }
}
