import Foundation
import Testing
import UrnaStore

/// Two TSE files joined one after the other (`cat a.csv b.csv > all.csv`) carry the header twice: the second
/// one was rejected as "ANO_ELEICAO is not a whole number", which sent people looking for a bad year.
@Suite struct RepeatedHeaderTests {
    typealias S = ImportTestSupport

    @Test func aRepeatedHeaderRowIsNamedAsOneAndTheRowsAfterItAreRead() throws {
        let folder = try S.scratchFolder()
        let a = try S.candidateFile([["SQ_CANDIDATO": "1"]], named: "a.csv", in: folder)
        let b = try S.candidateFile([["SQ_CANDIDATO": "2"]], named: "b.csv", in: folder)
        let joined = try Data(contentsOf: URL(fileURLWithPath: a)) + Data(contentsOf: URL(fileURLWithPath: b))
        let path = folder + "/consulta_cand_joined.csv"
        try joined.write(to: URL(fileURLWithPath: path))
        let db = folder + "/urna.sqlite"
        let summary = try S.importFiles([path], into: db)
        #expect(summary.rejected == 1)
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate") == 2)
        let rejects = try RejectTests.readRejects(db + ".rejects.csv").dropFirst()
        let reasons = rejects.map { $0[3] }
        #expect(reasons.count == 1 && reasons[0].hasPrefix("this line repeats the file's header row"), "\(reasons)")
        // The line named is the second header's: after a's header and its one row.
        #expect(rejects.first.map { $0[1] } == "3", "\(Array(rejects))")
    }
}
