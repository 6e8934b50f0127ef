import Foundation
import Testing
import UrnaImport
import UrnaRecords

/// TSE files of families urna does not import, which sit beside the candidate data in TSE's download tree
/// (consulta_cand_complementar since TSE's 2026 regeneration, motivo_cassacao, rede_social_candidato): named for
/// what they are, never called a damaged consulta_cand, and skipped by name inside a zip. Found by the sixth
/// real-files trial: a complementar file was refused as "a consulta_cand file that lacks required columns", and
/// a zip holding one beside its consulta_cand member imported nothing (exit 65).
@Suite struct OtherTSEFamilyTests {
    typealias S = ImportTestSupport

    /// The 45 columns of consulta_cand_complementar 2018-2020 (as regenerated 06/01/2026) and one row.
    static let complementary =
        [
            "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_ELEICAO;SQ_CANDIDATO;CD_DETALHE_SITUACAO_CAND;"
                + "DS_DETALHE_SITUACAO_CAND;CD_NACIONALIDADE;DS_NACIONALIDADE;CD_MUNICIPIO_NASCIMENTO;"
                + "NM_MUNICIPIO_NASCIMENTO;NR_IDADE_DATA_POSSE;ST_QUILOMBOLA;CD_ETNIA_INDIGENA;DS_ETNIA_INDIGENA;"
                + "VR_DESPESA_MAX_CAMPANHA;ST_REELEICAO;ST_DECLARAR_BENS;NR_PROTOCOLO_CANDIDATURA;NR_PROCESSO;"
                + "CD_SITUACAO_CANDIDATO_PLEITO;DS_SITUACAO_CANDIDATO_PLEITO;CD_SITUACAO_CANDIDATO_URNA;"
                + "DS_SITUACAO_CANDIDATO_URNA;ST_CANDIDATO_INSERIDO_URNA;NM_TIPO_DESTINACAO_VOTOS;"
                + "CD_SITUACAO_CANDIDATO_TOT;DS_SITUACAO_CANDIDATO_TOT;ST_PREST_CONTAS;ST_SUBSTITUIDO;SQ_SUBSTITUIDO;"
                + "SQ_ORDEM_SUPLENCIA;DT_ACEITE_CANDIDATURA;CD_SITUACAO_JULGAMENTO;DS_SITUACAO_JULGAMENTO;"
                + "CD_SITUACAO_JULGAMENTO_PLEITO;DS_SITUACAO_JULGAMENTO_PLEITO;CD_SITUACAO_JULGAMENTO_URNA;"
                + "DS_SITUACAO_JULGAMENTO_URNA;CD_SITUACAO_CASSACAO;DS_SITUACAO_CASSACAO;CD_SITUACAO_CASSACAO_MIDIA;"
                + "DS_SITUACAO_CASSACAO_MIDIA;CD_SITUACAO_DIPLOMA;DS_SITUACAO_DIPLOMA",
            "\"06/01/2026\";\"16:44:45\";2018;297;1;2;\"DEFERIDO\";1;\"BRASILEIRA NATA\";-3;\"RIO VERMELHO\";51;"
                + "\"#NE\";-3;\"#NE\";1000000;\"N\";\"S\";-1;\"06024229720186130000\";2;\"DEFERIDO\";2;\"DEFERIDO\";"
                + "\"SIM\";\"Válido\";2;\"DEFERIDO\";\"S\";\"N\";-1;-1;\"2018-08-15 14:28:10\";-3;\"#NE\";-3;\"#NE\";"
                + "-3;\"#NE\";-3;\"#NE\";-3;\"#NE\";-3;\"#NE\"",
        ].joined(separator: "\r\n") + "\r\n"

    @Test("a consulta_cand_complementar file named alone is refused as what it is, not as a damaged consulta_cand")
    func complementaryFileIsNamed() throws {
        let folder = try S.scratchFolder()
        let file = try S.write(Self.complementary, named: "consulta_cand_complementar_2018_MG.csv", in: folder)
        let db = folder + "/urna.sqlite"
        #expect {
            try S.importFiles([file], into: db)
        } throws: { error in
            guard let e = error as? ImportError, case .unrecognizedFile(let name, let reason, let missing) = e else {
                return false
            }
            return name == "consulta_cand_complementar_2018_MG.csv" && missing.isEmpty
                && reason.hasPrefix("TSE's consulta_cand_complementar file, which urna does not import: ")
                && reason.contains("import the consulta_cand file of the same year") && !reason.contains("lacks")
                && e.exitCode == 65
        }
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test(
        "a zip holding consulta_cand and consulta_cand_complementar members loads the candidacies, skips the other by name"
    )
    func complementaryZipMemberIsSkippedByName() throws {
        let folder = try S.scratchFolder()
        let cand = try S.candidateFile([["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]], in: folder)
        let comp = try S.write(Self.complementary, named: "comp.csv", in: folder)
        for (name, members) in [
            (
                "complementary-first.zip",
                [("consulta_cand_complementar_2018_MG.csv", comp), ("consulta_cand_2018_MG.csv", cand)]
            ),
            (
                "complementary-last.zip",
                [("consulta_cand_2018_MG.csv", cand), ("consulta_cand_complementar_2018_MG.csv", comp)]
            ),
        ] {
            let zip = folder + "/" + name
            try Self.zip(zip, members)
            let db = folder + "/\(name).sqlite"
            let s = try S.importFiles([zip], into: db)
            #expect(try S.counts(db)["Candidate"] == 2, "\(name)")
            let said = s.warnings.filter { $0.contains("consulta_cand_complementar_2018_MG.csv") }
            #expect(said.count == 1, "\(name): \(s.warnings)")
            #expect(
                said.first?.contains("is TSE's consulta_cand_complementar file, which urna does not import") == true)
            #expect(said.first?.hasSuffix("; skipped") == true)
        }
        // A zip of complementary members only is that family's file as a whole.
        let only = folder + "/consulta_cand_complementar_2018.zip"
        try Self.zip(only, [("consulta_cand_complementar_2018_MG.csv", comp), ("LEIAME.pdf", comp)])
        #expect {
            try S.importFiles([only], into: folder + "/only.sqlite")
        } throws: { error in
            "\(error)".hasPrefix("consulta_cand_complementar_2018.zip: TSE's consulta_cand_complementar file")
        }
    }

    @Test("other TSE families that name SQ_CANDIDATO are named too; a damaged consulta_cand is still one")
    func otherFamiliesAndDamagedCandidateFiles() throws {
        let revoked = "DT_GERACAO;HH_GERACAO;ANO_ELEICAO;CD_ELEICAO;SG_UE;SQ_CANDIDATO;DS_MOTIVO_CASSACAO"
            .split(separator: ";").map(String.init)
        #expect {
            try TSELayouts.recognize(firstRow: revoked, file: "motivo_cassacao_2016_BRASIL.csv")
        } throws: { error in
            guard case .otherTSEFile(_, let family, _)? = error as? RecordFileError else { return false }
            return family == "motivo_cassacao"
        }
        let social = "DT_GERACAO;HH_GERACAO;AA_ELEICAO;CD_ELEICAO;SQ_CANDIDATO;NR_ORDEM_REDE_SOCIAL;DS_URL"
            .split(separator: ";").map(String.init)
        #expect(throws: RecordFileError.self) {
            try TSELayouts.recognize(firstRow: social, file: "rede_social_candidato_2020_PE.csv")
        }
        #expect(TSELayouts.otherFamily(of: Set(social))?.family == "rede_social_candidato")
        // A consulta_cand without NM_CANDIDATO, or without SG_UE (a user's cut), is still a damaged candidate file,
        // said as before.
        for column in ["NM_CANDIDATO", "SG_UE"] {
            var cut = TSELayouts.candidate58.fileColumns
            cut.removeAll { $0 == column }
            #expect {
                try TSELayouts.recognize(firstRow: cut, file: "cut.csv")
            } throws: { error in
                guard case .unrecognized(_, let reason, let missing)? = error as? RecordFileError else { return false }
                return reason.hasPrefix("its header looks like a consulta_cand") && missing == [column]
            }
        }
        // Every importable layout is untouched.
        for layout in TSELayouts.headerLayouts {
            #expect(TSELayouts.otherFamily(of: Set(layout.canonicalColumns)) == nil, "\(layout.name)")
            #expect(try TSELayouts.recognize(firstRow: layout.fileColumns, file: "x.csv").name == layout.name)
        }
    }

    /// Writes a zip of `members` (name in the zip, path on disk) with python3's zipfile.
    static func zip(_ path: String, _ members: [(String, String)]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script =
            "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED)\n"
            + "for i in range(2,len(sys.argv),2): z.write(sys.argv[i+1],sys.argv[i])\nz.close()"
        p.arguments = ["python3", "-c", script, path] + members.flatMap { [$0.0, $0.1] }
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
