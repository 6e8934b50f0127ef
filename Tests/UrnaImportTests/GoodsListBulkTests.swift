import Foundation
import Testing
import UrnaSchemas
import UrnaStore

@testable import UrnaImport

/// A run into a file without goods writes the goods lists at the end in one statement (`GoodsListBulk`); the
/// file it leaves must be the one the good-by-good path leaves, row for row, with the same summary.
@Suite struct GoodsListBulkTests {
    /// Imports each run's files in turn into a new file, with the bulk lists on or off; the dump of every
    /// table and what each run's summary counted.
    private func importRuns(_ runs: [[String]], bulk: Bool) throws -> (dump: [String], summaries: [String]) {
        let db = try ImportTestSupport.newDatabasePath()
        var summaries: [String] = []
        for files in runs {
            var options = ImportOptions(dbPath: db)
            options.listsGoodsInBulk = bulk
            let s = try Importer(options: options).run(files: files)
            summaries.append(
                "inserted \(s.inserted.sorted { $0.key < $1.key }) updated \(s.updated.sorted { $0.key < $1.key }) "
                    + "unchanged \(s.unchanged.sorted { $0.key < $1.key }) rejected \(s.rejected) held \(s.heldAssets) "
                    + "rows \(s.rows.inserted)/\(s.rows.updated)/\(s.rows.unchanged)/\(s.rows.superseded)/\(s.rows.conflicts) "
                    + "warnings \(s.warnings)")
        }
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
        // Every table but the descriptor's and the history's (which hold the time they were written).
        let dump = try ImportTestSupport.dump(db).filter {
            !$0.hasPrefix("_urna_schema: ") && !$0.hasPrefix("_urna_history: ")
        }
        return (dump, summaries)
    }

    /// Runs `runs` both ways and compares; returns how many goods the lists hold.
    @discardableResult
    private func expectSameBothWays(_ runs: [[String]]) throws -> Int {
        let bulk = try importRuns(runs, bulk: true)
        let oneByOne = try importRuns(runs, bulk: false)
        #expect(bulk.summaries == oneByOne.summaries)
        #expect(bulk.dump.count == oneByOne.dump.count)
        for (a, b) in zip(bulk.dump, oneByOne.dump) where a != b {
            Issue.record("tables differ: \(a.prefix(300)) ... against \(b.prefix(300)) ...")
        }
        let lists = bulk.dump.first { $0.hasPrefix("Candidate_goods: ") } ?? ""
        return lists.dropFirst("Candidate_goods: ".count).split(separator: "\n").count
    }

    @Test func listsOfAnUnsortedAssetFileAreTheGoodByGoodOnes() throws {
        // The MG sample lists a candidacy's assets out of NR_ORDEM_CANDIDATO order (11, 1, 5, ...).
        let cand = ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv")
        let bens = ImportTestSupport.fixture("sample_bem_candidato_2018_MG.csv")
        let listed = try expectSameBothWays([[cand, bens]])
        #expect(listed > 100)
        // Goods reach a file that already holds their candidacies (counted as updated by both paths).
        #expect(try expectSameBothWays([[cand], [bens]]) == listed)
        // Goods an earlier run kept aside (no candidacy yet) are attached, and listed, by the next run.
        #expect(try expectSameBothWays([[bens], [cand]]) == listed)
    }

    @Test func listsOfOriginalGoodsLookedUpByElectionAreTheGoodByGoodOnes() throws {
        // 2014 originals name a good's candidacy without SG_UE: the writer looks it up before writing.
        let cand = ImportTestSupport.fixture("consulta_cand_2014_AC.original-excerpt.txt")
        let bens = ImportTestSupport.fixture("bem_candidato_2014_AC.original-excerpt.txt")
        #expect(try expectSameBothWays([[cand, bens]]) > 0)
    }

    @Test func onlyAFileWithoutGoodsNorListRowsIsListedInBulk() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let store = try Store(path: db, schema: ElectionsV6.schema)
        #expect(try GoodsListBulk(connection: store.connection, allowed: true).isActive)
        #expect(try !GoodsListBulk(connection: store.connection, allowed: false).isActive)
        // Rows by hand, links aside: only whether the tables are empty counts.
        try store.connection.execute("PRAGMA foreign_keys = OFF")
        try store.connection.execute(
            "INSERT INTO \"Candidate\"(\"id\", \"election\", \"party\", \"coalition\") VALUES ('c', NULL, NULL, NULL)")
        #expect(try GoodsListBulk(connection: store.connection, allowed: true).isActive)
        try store.connection.execute("INSERT INTO \"Good\"(\"id\", \"candidacy\") VALUES ('c/1', 'c')")
        #expect(try !GoodsListBulk(connection: store.connection, allowed: true).isActive)
        try store.connection.execute("DELETE FROM \"Good\"")
        try store.connection.execute(
            "INSERT INTO \"Candidate_goods\"(\"owner\", \"position\", \"target\") VALUES ('c', 0, 'c/1')")
        #expect(try !GoodsListBulk(connection: store.connection, allowed: true).isActive)
        // Not active, it writes nothing.
        #expect(try GoodsListBulk(connection: store.connection, allowed: false).write(store.connection) == 0)
    }

    @Test func aSecondRunAppendsToTheListsTheFirstWroteInBulk() throws {
        let cand = ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv")
        let bens = ImportTestSupport.fixture("sample_bem_candidato_2018_MG.csv")
        let db = try ImportTestSupport.newDatabasePath()
        _ = try ImportTestSupport.importFiles([cand, bens], into: db)
        let before = try ImportTestSupport.dump(db)
        // Importing the same files again changes nothing (the lists are not written a second time).
        let again = try ImportTestSupport.importFiles([cand, bens], into: db)
        #expect(again.inserted["Good", default: 0] == 0)
        #expect(try ImportTestSupport.dump(db) == before)
    }
}
