import Foundation
import Testing
import UrnaRecords

@testable import UrnaImport

/// A field problem in a column that names another object (NR_PARTIDO, SQ_COLIGACAO, CD_TIPO_BEM_CANDIDATO) or that
/// carries another column (DT_ULTIMA_ATUALIZACAO and its time) costs that object's other columns too: each of
/// them is a field left empty, so each gets its own warning row (file, line, column) and counts in "fields
/// nulled". Before (tenth real-files trial, a 2024 state with one unreadable value per column) the key's warning
/// alone was written: SG_PARTIDO and NM_PARTIDO, a coalition's kind, name and composition, a good type's text and
/// an update time went without a word, and `export --format csv` gave `#NULO#` for them. A key that is empty (or a
/// null marker) while its companions hold values costs them the same way, and says so.
@Suite struct KeyCompanionFieldsTests {
    typealias S = ImportTestSupport

    /// The rejects file's warning rows, as (line, column, reason).
    private func warnings(_ summary: ImportSummary) throws -> [(line: String, column: String, reason: String)] {
        let text = try String(contentsOfFile: summary.rejectsFile ?? "", encoding: .isoLatin1)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
            guard f.count == 4 else { return nil }
            return (String(f[1]), String(f[2]), String(f[3]))
        }
    }

    private func column(_ name: String, in layout: TSELayout) -> String {
        String((layout.fileColumns.firstIndex(of: name) ?? -2) + 1)
    }

    @Test func anUnreadablePartyOrCoalitionKeyNamesEveryFieldItCosts() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "NR_PARTIDO": "2X7"],
                ["SQ_CANDIDATO": "2", "SQ_COLIGACAO": "9O0", "TP_AGREMIACAO": "COLIGAÇÃO"],
                ["SQ_CANDIDATO": "3"],
                ["SQ_CANDIDATO": "4", "NR_PARTIDO": "#NULO#"],
            ], in: folder)
        let summary = try S.importFiles([file], into: folder + "/k.sqlite")
        #expect(try S.integer(folder + "/k.sqlite", "SELECT count(*) FROM Candidate") == 4)
        let rows = try warnings(summary)
        let layout = TSELayouts.candidate58
        for name in ["NR_PARTIDO", "SG_PARTIDO", "NM_PARTIDO"] {
            #expect(rows.contains { $0.line == "2" && $0.column == column(name, in: layout) }, "\(name) at line 2")
        }
        for name in ["SQ_COLIGACAO", "TP_AGREMIACAO", "NM_COLIGACAO", "DS_COMPOSICAO_COLIGACAO"] {
            #expect(rows.contains { $0.line == "3" && $0.column == column(name, in: layout) }, "\(name) at line 3")
        }
        #expect(rows.contains { $0.reason.contains("SG_PARTIDO is left empty") && $0.reason.contains("NR_PARTIDO") })
        #expect(!rows.contains { $0.line == "4" })
        // A party number emptied while its acronym and name are there loses them too (TSE never writes such a row).
        for name in ["SG_PARTIDO", "NM_PARTIDO"] {
            #expect(rows.contains { $0.line == "5" && $0.column == column(name, in: layout) }, "\(name) at line 5")
        }
        #expect(summary.fieldsNulled == 9)
    }

    @Test func anUnreadableGoodTypeOrUpdateDateNamesEveryFieldItCosts() throws {
        let folder = try S.scratchFolder()
        let candidates = try S.candidateFile([["SQ_CANDIDATO": "1"]], in: folder)
        let goods = try S.assetFile(
            [
                ["NR_ORDEM_CANDIDATO": "1", "CD_TIPO_BEM_CANDIDATO": "4l"],
                ["NR_ORDEM_CANDIDATO": "2", "DT_ULTIMA_ATUALIZACAO": "31/02/2018"],
                ["NR_ORDEM_CANDIDATO": "3"],
            ], in: folder)
        let summary = try S.importFiles([candidates, goods], into: folder + "/g.sqlite")
        #expect(try S.integer(folder + "/g.sqlite", "SELECT count(*) FROM Good") == 3)
        let rows = try warnings(summary)
        let layout = TSELayouts.asset19
        for name in ["CD_TIPO_BEM_CANDIDATO", "DS_TIPO_BEM_CANDIDATO"] {
            #expect(rows.contains { $0.line == "2" && $0.column == column(name, in: layout) }, "\(name) at line 2")
        }
        for name in ["DT_ULTIMA_ATUALIZACAO", "HH_ULTIMA_ATUALIZACAO"] {
            #expect(rows.contains { $0.line == "3" && $0.column == column(name, in: layout) }, "\(name) at line 3")
        }
        #expect(summary.fieldsNulled == 4)
    }

    @Test func anUnreadablePartyInALegendRowNamesItsAcronymAndName() throws {
        let folder = try S.scratchFolder()
        let layout = TSELayouts.coalition21
        let values: [String: String] = [
            "DT_GERACAO": "08/10/2018", "HH_GERACAO": "13:03:16", "ANO_ELEICAO": "2018", "CD_TIPO_ELEICAO": "2",
            "NM_TIPO_ELEICAO": "ELEIÇÃO ORDINÁRIA", "NR_TURNO": "1", "CD_ELEICAO": "297",
            "DS_ELEICAO": "Eleições Gerais Estaduais 2018", "DT_ELEICAO": "07/10/2018", "SG_UF": "AC", "SG_UE": "AC",
            "NM_UE": "ACRE", "CD_CARGO": "6", "DS_CARGO": "DEPUTADO FEDERAL", "TP_AGREMIACAO": "COLIGACAO",
            "NR_PARTIDO": "1X7", "SG_PARTIDO": "PSL", "NM_PARTIDO": "PARTIDO SOCIAL LIBERAL",
            "SQ_COLIGACAO": "10000050011", "NM_COLIGACAO": "Muda Acre de Verdade",
            "DS_COMPOSICAO_COLIGACAO": "PSL / PATRI / PSC",
        ]
        let header = layout.fileColumns.map { "\"\($0)\"" }.joined(separator: ";")
        let row = layout.fileColumns.map { "\"\(values[$0] ?? "")\"" }.joined(separator: ";")
        let file = try S.write(header + "\n" + row + "\n", named: "consulta_coligacao_test.csv", in: folder)
        let summary = try S.importFiles([file], into: folder + "/l.sqlite")
        let rows = try warnings(summary)
        for name in ["NR_PARTIDO", "SG_PARTIDO", "NM_PARTIDO"] {
            #expect(rows.contains { $0.line == "2" && $0.column == column(name, in: layout) }, "\(name) at line 2")
        }
        #expect(summary.fieldsNulled == 3)
    }
    /// An XML record may leave out the key element while giving its companions (a CSV without NR_PARTIDO is refused
    /// as missing a required column): before, the acronym and name, a coalition's kind and name or a good type's
    /// text were dropped with no warning, no rejects row and "0 fields nulled" (seventh session's review, D6).
    @Test func aCompanionWithoutItsKeyElementIsNamedAndCounted() throws {
        let folder = try S.scratchFolder()
        let head =
            "<DT_GERACAO>09/09/2018</DT_GERACAO><ANO_ELEICAO>2018</ANO_ELEICAO><NR_TURNO>1</NR_TURNO>"
            + "<DS_ELEICAO>Eleicoes Gerais Estaduais 2018</DS_ELEICAO><DT_ELEICAO>07/10/2018</DT_ELEICAO>"
            + "<SG_UF>MG</SG_UF><SG_UE>MG</SG_UE><CD_CARGO>6</CD_CARGO><DS_CARGO>DEPUTADO FEDERAL</DS_CARGO>"
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<candidatos>\n"
            + "<candidato>\(head)<SQ_CANDIDATO>1</SQ_CANDIDATO><NR_CANDIDATO>1234</NR_CANDIDATO>"
            + "<NM_CANDIDATO>FULANO</NM_CANDIDATO><SG_PARTIDO>PT</SG_PARTIDO>"
            + "<NM_PARTIDO>PARTIDO DOS TRABALHADORES</NM_PARTIDO></candidato>\n"
            + "<candidato>\(head)<SQ_CANDIDATO>2</SQ_CANDIDATO><NR_CANDIDATO>4321</NR_CANDIDATO>"
            + "<NM_CANDIDATO>BELTRANO</NM_CANDIDATO><TP_AGREMIACAO>COLIGACAO</TP_AGREMIACAO>"
            + "<NM_COLIGACAO>Muda Minas</NM_COLIGACAO></candidato>\n"
            + "<bem>\(head)<SQ_CANDIDATO>1</SQ_CANDIDATO><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO>"
            + "<DS_TIPO_BEM_CANDIDATO>Casa</DS_TIPO_BEM_CANDIDATO><DS_BEM_CANDIDATO>CASA</DS_BEM_CANDIDATO>"
            + "<VR_BEM_CANDIDATO>100,00</VR_BEM_CANDIDATO><HH_ULTIMA_ATUALIZACAO>10:00:00</HH_ULTIMA_ATUALIZACAO>"
            + "</bem>\n</candidatos>\n"
        let file = try S.write(xml, named: "consulta_cand_2018_MG.xml", in: folder)
        let db = folder + "/x.sqlite"
        let summary = try S.importFiles([file], into: db)
        #expect(try S.integer(db, "SELECT count(*) FROM Candidate") == 2)
        #expect(try S.integer(db, "SELECT count(*) FROM Good") == 1)
        #expect(try S.integer(db, "SELECT count(*) FROM Party") == 0)
        let rows = try warnings(summary)
        for (line, name) in [
            ("3", "SG_PARTIDO"), ("3", "NM_PARTIDO"), ("4", "TP_AGREMIACAO"), ("4", "NM_COLIGACAO"),
            ("5", "DS_TIPO_BEM_CANDIDATO"), ("5", "HH_ULTIMA_ATUALIZACAO"),
        ] {
            #expect(
                rows.contains { $0.line == line && $0.reason.contains("\(name) is left empty") },
                "\(name) at line \(line): \(rows.map(\.reason))")
        }
        #expect(rows.contains { $0.reason.contains("has no NR_PARTIDO") })
        #expect(summary.fieldsNulled == 6)
    }
}
