import Foundation
import Testing
import UrnaImport
import UrnaStore

/// The candidate screen of seed 000's app, as text, for real candidacies.
@Suite struct CandidateCardTests {
    /// MG 2018 in full, plus the _BRASIL sample, which has both rounds of the MG governor race.
    static func database() throws -> String {
        let db = try ImportTestSupport.newDatabasePath()
        _ = try ImportTestSupport.importFiles(
            [
                ImportTestSupport.fixture("consulta_cand_2018_MG.csv.zip"),
                ImportTestSupport.fixture("bem_candidato_2018_MG.csv.zip"),
                ImportTestSupport.fixture("sample_consulta_cand_2018_BRASIL.58col.csv"),
            ], into: db)
        return db
    }

    @Test func governorCardShowsWhatTheAppShows() throws {
        let store = try Store.openExisting(path: try Self.database(), readOnly: true)
        let card = try renderCandidate(store: store, sequence: 130_000_604_544, election: "297")
        let lines = card.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "ANTONIO ANASTASIA")
        #expect(lines[1] == "  Number 45 · GOVERNADOR - MINAS GERAIS/MG")
        #expect(lines[2] == "  PARTIDO DA SOCIAL DEMOCRACIA BRASILEIRA - PSDB (party 45)")
        #expect(
            card.contains("Vice\n  45 MARCOS MONTES (MARCOS MONTES CORDEIRO) · VICE-GOVERNADOR - MINAS GERAIS/MG · PSD")
        )
        #expect(card.contains("  Full name                     ANTONIO AUGUSTO JUNHO ANASTASIA\n"))
        #expect(card.contains("  Date of birth                 09/05/1961\n"))
        #expect(card.contains("  Naturalness                   MG-BELO HORIZONTE\n"))
        #expect(card.contains("  Coalition                     RECONSTRUIR MINAS\n"))
        #expect(
            card.contains(
                "  Composition of the coalition  PSDB / PSD / SOLIDARIEDADE / PTB / PPS / PMN / PSC / DEM / PP / PTC / PATRI / PMB\n"
            ))
        #expect(card.contains("Declared goods (6)\n"))
        #expect(card.contains(": R$ 200.000,00\n"))  // the apartment
        // Six assets in bem_candidato_2018_MG.csv summed independently (Python's Decimal): 1315319.25.
        #expect(lines.contains("  Total: R$ 1.315.319,25"))
    }

    @Test func theViceCardShowsTheHeadOfTheTicket() throws {
        let store = try Store.openExisting(path: try Self.database(), readOnly: true)
        let card = try renderCandidate(store: store, sequence: 130_000_629_811, election: nil)
        #expect(
            card.contains("Head of the ticket\n  18 JOÃO BATISTA MARES GUIA (JOÃO BATISTA DOS MARES GUIA) · GOVERNADOR")
        )
        // 17 assets, summed independently (Python's Decimal over bem_candidato_2018_MG.csv): 2060727.11.
        #expect(card.contains("Declared goods (17)\n"))
        #expect(card.hasSuffix("  Total: R$ 2.060.727,11\n"))
    }

    @Test func aSequenceInTwoElectionsNeedsTheElection() throws {
        let store = try Store.openExisting(path: try Self.database(), readOnly: true)
        do {
            _ = try renderCandidate(store: store, sequence: 130_000_604_544, election: nil)
            Issue.record("two rounds: the card must ask which")
        } catch let error as CandidateCard.CardError {
            #expect(error.exitCode == 64)
            let text = "\(error)"
            #expect(text.contains("297 (Eleições Gerais Estaduais 2018, round 1)"))
            #expect(text.contains("298 (Eleições Gerais Estaduais 2018, round 2)"))
        }
        let second = try renderCandidate(store: store, sequence: 130_000_604_544, election: "298")
        #expect(second.contains("round 2"))
        #expect(throws: CandidateCard.CardError.notFound(sequence: 1, election: nil)) {
            _ = try renderCandidate(store: store, sequence: 1, election: nil)
        }
    }

    @Test("one SQ_CANDIDATO in several units of one election (2004 and earlier): the card asks for --unit and shows each")
    func aSequenceInSeveralUnitsNeedsTheUnit() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.candidateFile(
            [
                ["SQ_CANDIDATO": "6", "SG_UE": "01120", "NM_UE": "ACRELANDIA", "NM_URNA_CANDIDATO": "ANA"],
                ["SQ_CANDIDATO": "6", "SG_UE": "01570", "NM_UE": "ASSIS BRASIL", "NM_URNA_CANDIDATO": "BIA"],
            ], in: folder)
        let db = folder + "/units.sqlite"
        _ = try ImportTestSupport.importFiles([file], into: db)
        let store = try Store.openExisting(path: db, readOnly: true)
        do {
            _ = try renderCandidate(store: store, sequence: 6, election: nil)
            Issue.record("two units: the card must ask which")
        } catch let error as CandidateCard.CardError {
            #expect(error.exitCode == 64)
            let text = "\(error)"
            #expect(text.contains("01120 (ACRELANDIA); 01570 (ASSIS BRASIL)"), "\(text)")
            #expect(text.contains("--unit SG_UE") && !text.contains("--election"), "\(text)")
        }
        #expect(try renderCandidate(store: store, sequence: 6, election: nil, unit: "01570").hasPrefix("BIA\n"))
        #expect(try renderCandidate(store: store, sequence: 6, election: nil, unit: "01120").hasPrefix("ANA\n"))
        #expect(try renderCandidate(store: store, sequence: 6, election: nil, unit: "1120").hasPrefix("ANA\n"), "leading zeros optional")
        #expect(throws: CandidateCard.CardError.notFound(sequence: 6, election: nil, unit: "99999")) {
            _ = try renderCandidate(store: store, sequence: 6, election: nil, unit: "99999")
        }
    }
}
