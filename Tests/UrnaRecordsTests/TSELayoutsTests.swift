import Foundation
import Testing

@testable import UrnaRecords

@Suite("TSE layouts as data, canonical names, recognition")
struct TSELayoutsTests {
    typealias S = RecordsTestSupport

    /// Column lists as LAYOUTS.md writes them (a copy of shared/tse/LAYOUTS.md is a fixture).
    private static func documented() throws -> [String: [String]] {
        let text = try String(contentsOfFile: S.fixture("LAYOUTS.md"), encoding: .utf8)
        var lists: [String: [String]] = [:]
        let paragraphs = text.components(separatedBy: "\n\n")
        for (i, paragraph) in paragraphs.enumerated() where paragraph.hasPrefix("## ") && i + 1 < paragraphs.count {
            lists[paragraph] = paragraphs[i + 1].trimmingCharacters(in: .whitespacesAndNewlines)
                .components(separatedBy: ";")
        }
        for line in text.components(separatedBy: "\n")
        where line.hasPrefix("- bem_candidato 2018-2026") || line.hasPrefix("- consulta_coligacao 2016") {
            let list = line.components(separatedBy: ": ").dropFirst().joined(separator: ": ")
            lists[line] = list.components(separatedBy: ";")
        }
        return lists
    }

    private static func list(_ lists: [String: [String]], _ prefix: String) throws -> [String] {
        let key = try #require(lists.keys.first { $0.hasPrefix(prefix) }, "no section \(prefix)")
        return lists[key]!
    }

    @Test("every layout's columns are exactly the ones LAYOUTS.md lists, in order")
    func layoutsMatchDocumentation() throws {
        let docs = try Self.documented()
        let expected: [(TSELayout, String)] = [
            (TSELayouts.candidate58, "## consulta_cand 2014 (generated"),
            (TSELayouts.candidate63, "## consulta_cand 2020"),
            (TSELayouts.candidate71, "## consulta_cand 2022 (generated 16/11/2022)"),
            (TSELayouts.candidate75, "## consulta_cand 2022 (generated 13/12/2023)"),
            (TSELayouts.candidate50, "## consulta_cand 2024"),
            (TSELayouts.asset19, "## bem_candidato 2018"),
            (TSELayouts.candidateOriginal46, "## ORIGINAL consulta_cand 2014/2016"),
            (TSELayouts.candidateOriginal44, "## ORIGINAL consulta_cand 2012"),
            (TSELayouts.candidateOriginal43, "## ORIGINAL consulta_cand <=2010"),
            (TSELayouts.coalitionLegendOriginal18, "## ORIGINAL consulta_legendas"),
            (TSELayouts.assetOriginal12, "## ORIGINAL bem_candidato"),
            (TSELayouts.asset19Names2026, "- bem_candidato 2018-2026"),
            (TSELayouts.coalition23, "- consulta_coligacao 2016"),
        ]
        for (layout, section) in expected {
            #expect(layout.fileColumns == (try Self.list(docs, section)), "\(layout.name)")
        }
        // 28 = the 23 with four federation columns after NM_PARTIDO and the vote destination at the end.
        var columns28 = try Self.list(docs, "- consulta_coligacao 2016")
        let afterParty = try #require(columns28.firstIndex(of: "NM_PARTIDO")) + 1
        columns28.insert(
            contentsOf: ["NR_FEDERACAO", "NM_FEDERACAO", "SG_FEDERACAO", "DS_COMPOSICAO_FEDERACAO"], at: afterParty)
        columns28.append("NM_TIPO_DESTINACAO_VOTOS")
        #expect(TSELayouts.coalition28.fileColumns == columns28)
        #expect(TSELayouts.all.map(\.fieldCount) == [58, 63, 71, 75, 50, 19, 19, 21, 23, 28, 46, 44, 43, 12, 18])
    }

    @Test(
        "old and variant names map to the modern ones",
        arguments: [
            ("SEQUENCIAL_CANDIDATO", "SQ_CANDIDATO"), ("NUMERO_CANDIDATO", "NR_CANDIDATO"),
            ("NOME_URNA_CANDIDATO", "NM_URNA_CANDIDATO"), ("CODIGO_LEGENDA", "SQ_COLIGACAO"),
            ("COMPOSICAO_LEGENDA", "DS_COMPOSICAO_COLIGACAO"), ("NOME_LEGENDA", "NM_COLIGACAO"),
            ("DESPESA_MAX_CAMPANHA", "VR_DESPESA_MAX_CAMPANHA"), ("NR_DESPESA_MAX_CAMPANHA", "VR_DESPESA_MAX_CAMPANHA"),
            ("NM_EMAIL", "DS_EMAIL"), ("CODIGO_CARGO", "CD_CARGO"), ("SIGLA_UE", "SG_UE"), ("NUM_TURNO", "NR_TURNO"),
            ("DESCRICAO_ELEICAO", "DS_ELEICAO"), ("SEQUENCIAL_COLIGACAO", "SQ_COLIGACAO"),
            ("NR_ORDEM_BEM_CANDIDATO", "NR_ORDEM_CANDIDATO"), ("DETALHE_BEM", "DS_BEM_CANDIDATO"),
            ("VALOR_BEM", "VR_BEM_CANDIDATO"), ("DT_ULT_ATUAL_BEM_CANDIDATO", "DT_ULTIMA_ATUALIZACAO"),
            ("CODIGO_SEXO", "CD_GENERO"), ("CPF_CANDIDATO", "NR_CPF_CANDIDATO"), ("TIPO_LEGENDA", "TP_AGREMIACAO"),
            (" sq_candidato ", "SQ_CANDIDATO"), ("\u{FEFF}DT_GERACAO", "DT_GERACAO"), ("SQ_CANDIDATO", "SQ_CANDIDATO"),
            ("UNKNOWN_COLUMN", "UNKNOWN_COLUMN"),
        ])
    func canonicalNames(old: String, modern: String) {
        #expect(TSELayouts.canonicalName(old) == modern)
    }

    @Test("every canonical name is a modern header name, apart from the few old columns with no modern twin")
    func canonicalVocabulary() {
        let modern = Set(TSELayouts.headerLayouts.flatMap(\.fileColumns)).subtracting(TSELayouts.renames.keys)
        let noModernTwin: Set = ["SG_COLIGACAO", "NR_IDADE_DATA_ELEICAO"]
        for layout in TSELayouts.all {
            let strays = Set(layout.canonicalColumns).subtracting(modern).subtracting(noModernTwin)
            #expect(strays.isEmpty, "\(layout.name): \(strays.sorted())")
            #expect(
                Set(layout.canonicalColumns).count == layout.fieldCount, "\(layout.name) maps two columns to one name")
        }
    }

    @Test("every layout has the columns its kind requires")
    func layoutsMeetRequirements() {
        for layout in TSELayouts.all {
            let missing = TSELayouts.missing(for: layout.kind, in: Set(layout.canonicalColumns))
            #expect(missing.isEmpty, "\(layout.name) lacks \(missing)")
        }
    }

    @Test("a header is recognised by its names, wherever the columns are")
    func reorderedHeader() throws {
        let names = TSELayouts.candidate58.fileColumns.reversed().map { $0 }
        let layout = try TSELayouts.recognize(firstRow: names, file: "x.csv")
        #expect(layout.kind == .candidate)
        #expect(layout.hasHeader)
        #expect(layout.canonicalColumns.first == "NR_PROCESSO")
        #expect(layout.name.contains("not in the catalogue"))
    }

    @Test("an unknown header names the file and lists the missing required columns")
    func unknownHeader() throws {
        do {
            _ = try TSELayouts.recognize(firstRow: ["NOME", "IDADE", "CIDADE"], file: "people.csv")
            Issue.record("expected an error")
        } catch let error as RecordFileError {
            guard case .unrecognized(let file, _, let missing) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(file == "people.csv")
            #expect(missing.first == "CD_ELEICAO or ANO_ELEICAO+NR_TURNO+DS_ELEICAO")
            #expect(missing.contains("SQ_CANDIDATO"))
            #expect(error.description.hasPrefix("people.csv: not a recognised TSE file"))
        }
    }

    @Test("a candidate header without the election or candidate keys is refused with exactly what is missing")
    func candidateHeaderMissingKeys() throws {
        let header = ["NM_CANDIDATO", "NR_CANDIDATO", "CD_CARGO", "SG_UE", "NR_PARTIDO", "ANO_ELEICAO"]
        #expect {
            _ = try TSELayouts.recognize(firstRow: header, file: "partial.csv")
        } throws: { error in
            guard case .unrecognized(_, let reason, let missing)? = error as? RecordFileError else { return false }
            return missing == ["CD_ELEICAO or ANO_ELEICAO+NR_TURNO+DS_ELEICAO", "SQ_CANDIDATO"]
                && reason.contains("consulta_cand")
        }
    }

    @Test(
        "header-less rows are recognised by field count",
        arguments: [(46, "46"), (44, "44"), (43, "43"), (12, "12"), (18, "18")])
    func headerlessCounts(count: Int, tag: String) throws {
        let row = (0..<count).map { "\($0)/01/2016" }
        let layout = try TSELayouts.recognize(firstRow: row, file: "f.txt")
        #expect(!layout.hasHeader)
        #expect(layout.fieldCount == count)
        #expect(layout.name.contains(tag))
    }

    @Test("a header-less row of an unknown width is refused, listing the widths and the required columns")
    func unknownWidth() throws {
        #expect {
            _ = try TSELayouts.recognize(firstRow: ["22/01/2017", "x y", "3"], file: "odd.txt")
        } throws: { error in
            guard case .unrecognized(let file, let reason, let missing)? = error as? RecordFileError else {
                return false
            }
            return file == "odd.txt" && reason.contains("3 fields") && reason.contains("46, 44 or 43")
                && missing.contains("SQ_CANDIDATO")
        }
    }
}
