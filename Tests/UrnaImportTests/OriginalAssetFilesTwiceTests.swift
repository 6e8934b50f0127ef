import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// A fifth real-files trial (issue 11): 12-column asset originals carry no NR_ORDEM_CANDIDATO, so a good is
/// its position among its candidacy's rows in the file. The count restarted only when the file *name*
/// changed, so two files of one name read one after the other in a run (two generations of
/// `bem_candidato_2016_AC.txt` in `gen1/` and `gen2/`, or one path named twice) numbered the second file's
/// goods after the first's: every good stored twice (2,993 real 2016 AC goods became 5,986, exit 0, nothing
/// said), where split runs give 2,993 updated.
@Suite struct OriginalAssetFilesTwiceTests {
    typealias S = ImportTestSupport

    /// The committed 2014 AC excerpt (83 goods of 40 candidacies) as two generations of one file name, in
    /// two folders; the second generation is a day later.
    static func twoGenerations(in folder: String) throws -> (candidates: String, first: String, second: String) {
        let excerpt = try Data(
            contentsOf: URL(fileURLWithPath: S.fixture("bem_candidato_2014_AC.original-excerpt.txt")))
        let older = Array("\"22/04/2018\";\"03:00:35\"".utf8)
        let newer = Array("\"23/04/2018\";\"03:00:35\"".utf8)
        var later = [UInt8](excerpt)
        var i = 0
        var replaced = 0
        while i + older.count <= later.count {
            if Array(later[i..<(i + older.count)]) == older {
                later.replaceSubrange(i..<(i + older.count), with: newer)
                replaced += 1
                i += newer.count
            } else {
                i += 1
            }
        }
        #expect(replaced == 83)
        for (name, bytes) in [("gen1", [UInt8](excerpt)), ("gen2", later)] {
            try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/\(name)/bem_candidato_2014_AC.txt"))
        }
        return (
            S.fixture("consulta_cand_2014_AC.original-excerpt.txt"), folder + "/gen1/bem_candidato_2014_AC.txt",
            folder + "/gen2/bem_candidato_2014_AC.txt"
        )
    }

    @Test func twoGenerationsOfOneFileNameInOneRunGiveTheSplitRunsGoods() throws {
        let folder = try S.scratchFolder()
        let files = try Self.twoGenerations(in: folder)
        let split = folder + "/split.sqlite"
        _ = try S.importFiles([files.candidates, files.first], into: split)
        let second = try S.importFiles([files.second], into: split)
        #expect(second.rejected == 0)
        #expect(try S.counts(split)["Good"] == 83)

        let one = folder + "/one.sqlite"
        let s = try S.importFiles([files.candidates, files.first, files.second], into: one)
        #expect(try S.counts(one)["Good"] == 83)
        #expect(s.rows.conflicts == 0)
        let data = { (db: String) in
            try S.dump(db).filter { !$0.hasPrefix("_urna_schema") && !$0.hasPrefix("_urna_history") }
        }
        #expect(try data(one) == data(split))
    }

    @Test func oneOriginalAssetFileNamedTwiceIsReadAsTheSameGoods() throws {
        let folder = try S.scratchFolder()
        let files = try Self.twoGenerations(in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([files.candidates, files.first, files.first], into: db)
        #expect(try S.counts(db)["Good"] == 83)
        #expect(s.rows.conflicts == 0)
    }
}
