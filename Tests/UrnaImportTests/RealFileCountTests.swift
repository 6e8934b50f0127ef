import Foundation
import Testing
import UrnaImport

/// The counts of the independent table in shared/tse/README.md, on the real files (zipped fixtures).
@Suite struct RealFileCountTests {
    let fixture = ImportTestSupport.fixture

    @Test func minasGeraisCandidatesAndAssetsMatchTheIndependentCounts() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles(
            [fixture("consulta_cand_2018_MG.csv.zip"), fixture("bem_candidato_2018_MG.csv.zip")], into: db)
        let counts = try ImportTestSupport.counts(db)
        #expect(counts["Candidate"] == 2388)
        #expect(counts["Good"] == 8583)
        #expect(counts["Party"] == 35)
        #expect(counts["Coalition"] == 32)
        #expect(counts["GoodType"] == 47)
        #expect(try ImportTestSupport.headsWithVice(db) == 9)
        #expect(summary.headsWithVice == 9)
        #expect(summary.inserted["Candidate"] == 2388)
        #expect(summary.inserted["Good"] == 8583)
        #expect(summary.rejected == 0)
        #expect(summary.rejectsFile == nil)
        // Every good is in exactly one candidacy's list.
        #expect(try ImportTestSupport.integer(db, "SELECT count(*) FROM Candidate_goods") == 8583)
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
    }

    @Test func reimportingChangesNothing() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let files = [fixture("consulta_cand_2018_MG.csv.zip"), fixture("bem_candidato_2018_MG.csv.zip")]
        _ = try ImportTestSupport.importFiles(files, into: db)
        let before = try ImportTestSupport.dump(db)
        let again = try ImportTestSupport.importFiles(files, into: db)
        for type in ImportSummary.types {
            #expect(again.inserted[type] == 0, "\(type) inserted")
            #expect(again.updated[type] == 0, "\(type) updated")
        }
        #expect(again.unchanged["Candidate"] == 2388)
        #expect(again.unchanged["Good"] == 8583)
        #expect(again.unchanged["Party"] == 35)
        #expect(again.unchanged["Coalition"] == 32)
        #expect(again.unchanged["GoodType"] == 47)
        #expect(again.unchanged["Election"] == 1)
        #expect(try ImportTestSupport.dump(db) == before)
    }

    @Test func acre2016OriginalMatchesTheIndependentCounts() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles(
            [fixture("consulta_cand_2016_AC.original-noheader.txt.zip")], into: db)
        let counts = try ImportTestSupport.counts(db)
        #expect(counts["Candidate"] == 2310)
        #expect(counts["Party"] == 29)
        #expect(counts["Coalition"] == 162)
        #expect(counts["Good"] == 0)
        #expect(counts["Election"] == 1)
        #expect(try ImportTestSupport.headsWithVice(db) == 79)
        #expect(summary.rejected == 0)
        // Every generation names an election by year, round and description (upper case, accents folded).
        #expect(try ImportTestSupport.value(db, "SELECT id FROM Election") == .text("2016/1/ELEICOES MUNICIPAIS 2016"))
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
    }

    @Test func acreLegendFileFillsCoalitionsWithTheirParties() throws {
        let db = try ImportTestSupport.newDatabasePath()
        _ = try ImportTestSupport.importFiles(
            [
                fixture("consulta_cand_2016_AC.original-noheader.txt.zip"),
                fixture("consulta_legendas_2016_AC.original-noheader.txt.zip"),
            ],
            into: db)
        // Independent count over the legend file: 162 coalition codes, every one with at least one party;
        // its parties are the 29 of the candidate file plus one that ran no candidate.
        #expect(try ImportTestSupport.integer(db, "SELECT count(*) FROM Coalition") == 162)
        #expect(try ImportTestSupport.integer(db, "SELECT count(*) FROM Party") == 30)
        #expect(
            try ImportTestSupport.integer(
                db,
                "SELECT count(*) FROM Coalition c WHERE NOT EXISTS (SELECT 1 FROM Coalition_parties p WHERE p.owner = c.id)"
            ) == 0)
        // "COLIGAÇÃO PMB/PSL" (10000000129) is PSL + PMB, in published order.
        let members = try ImportTestSupport.value(
            db,
            "SELECT group_concat(acronym, ' / ') FROM (SELECT p.acronym FROM Coalition_parties l JOIN Party p ON p.id = l.target "
                + "JOIN Coalition c ON c.id = l.owner WHERE c.sequence = 10000000129 ORDER BY l.position)")
        #expect(members == .text("PSL / PMB"))
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
    }

    @Test func brasil2018MatchesTheIndependentCounts() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles([fixture("consulta_cand_2018_BRASIL.csv.zip")], into: db)
        let counts = try ImportTestSupport.counts(db)
        #expect(counts["Candidate"] == 29145)
        #expect(counts["Party"] == 35)
        #expect(counts["Coalition"] == 712)
        #expect(try ImportTestSupport.headsWithVice(db) == 246)
        #expect(summary.inserted["Candidate"] == 29145)
        // Both rounds of a run-off are kept: 28 + 4 federal, 29057 + 56 state candidacies.
        #expect(
            try ImportTestSupport.integer(
                db, "SELECT count(*) FROM Candidate c JOIN Election e ON e.id = c.election WHERE e.code = 298") == 56)
        #expect(
            try ImportTestSupport.integer(
                db, "SELECT count(*) FROM Candidate c JOIN Election e ON e.id = c.election WHERE e.code = 296") == 4)
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
    }

    @Test func stateFilePlusBrasilFileDoesNotDoubleCount() throws {
        // The Acre rows of the _BRASIL file, byte for byte, read in the same run as the _BRASIL file.
        let state = fixture("consulta_cand_2018_AC.from_BRASIL.csv")
        let brasil = fixture("consulta_cand_2018_BRASIL.csv.zip")
        let db = try ImportTestSupport.newDatabasePath()
        let together = try ImportTestSupport.importFiles([state, brasil], into: db)
        #expect(together.rowsRead == 586 + 29145)
        #expect(together.inserted["Candidate"] == 29145)
        #expect(together.unchanged["Candidate"] == 0)
        #expect(try ImportTestSupport.counts(db)["Candidate"] == 29145)

        // In two runs: the second finds Acre's 586 candidacies unchanged.
        let db2 = try ImportTestSupport.newDatabasePath()
        let first = try ImportTestSupport.importFiles([state], into: db2)
        #expect(first.inserted["Candidate"] == 586)
        let second = try ImportTestSupport.importFiles([brasil], into: db2)
        #expect(second.inserted["Candidate"] == 29145 - 586)
        #expect(second.unchanged["Candidate"] == 586)
        #expect(second.updated["Candidate"] == 0)
        #expect(try ImportTestSupport.counts(db2)["Candidate"] == 29145)
    }
}
