import Foundation
import Testing
import UrnaImport
import UrnaStore

/// What ends up in the database for hand-made and real rows: nulls, text, dates, money, links, privacy.
@Suite struct MappingBehaviourTests {
    @Test func nullMarkersBecomeNilAndTextIsCleaned() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.candidateFile(
            [
                [
                    "SQ_CANDIDATO": "10", "NM_CANDIDATO": "  MARIA   DA  SILVA ", "NM_SOCIAL_CANDIDATO": "#NULO",
                    "DS_SIT_TOT_TURNO": "#NE#", "NR_CANDIDATO": "-1", "SG_UF_NASCIMENTO": "#NE",
                    "DT_NASCIMENTO": "#NULO#",
                    "NR_DESPESA_MAX_CAMPANHA": "-1", "NM_MUNICIPIO_NASCIMENTO": "", "NR_PROTOCOLO_CANDIDATURA": "-1",
                ]
            ], in: folder)
        let db = folder + "/urna.sqlite"
        _ = try ImportTestSupport.importFiles([file], into: db)
        let c = try Connection(path: db, readOnly: true, create: false)
        let row = try c.rows(
            "SELECT name, socialName, result, number, birthState, birthdate, spendingLimitFirstRound, birthCity, protocolNumber "
                + "FROM Candidate WHERE sequence = 10")[0]
        #expect(row == [.text("MARIA DA SILVA"), .null, .null, .null, .null, .null, .null, .null, .text("")])
    }

    @Test func personalDataIsDroppedUnlessAskedFor() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.candidateFile([["SQ_CANDIDATO": "10"]], in: folder)
        let db = folder + "/urna.sqlite"
        _ = try ImportTestSupport.importFiles([file], into: db)
        let sql = "SELECT cpf IS NULL AND email IS NULL AND voterId IS NULL FROM Candidate"
        #expect(try ImportTestSupport.integer(db, sql) == 1)
        let kept = try ImportTestSupport.importFiles([file], into: db, keepPersonalData: true)
        #expect(kept.updated["Candidate"] == 1)
        let c = try Connection(path: db, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT cpf, email, voterId FROM Candidate")[0]
                == [.text("12345678901"), .text("FULANO@EXAMPLE.COM"), .text("092264880230")])
        #expect(!kept.warnings.contains { $0.contains("were erased") })
        // Importing again without the option removes them, and says so.
        let dropped = try ImportTestSupport.importFiles([file], into: db)
        #expect(try ImportTestSupport.integer(db, sql) == 1)
        #expect(dropped.warnings.contains { $0.contains("of 1 candidacies, kept by an earlier --keep-personal-data import, were erased") }, "\(dropped.warnings)")
    }

    @Test func moneyIsStoredAsExactCents() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let cand = try ImportTestSupport.candidateFile(
            [["SQ_CANDIDATO": "10", "NR_DESPESA_MAX_CAMPANHA": "2500000"]], in: folder)
        let assets = try ImportTestSupport.assetFile(
            [
                ["SQ_CANDIDATO": "10", "NR_ORDEM_CANDIDATO": "1", "VR_BEM_CANDIDATO": "0,10"],
                ["SQ_CANDIDATO": "10", "NR_ORDEM_CANDIDATO": "2", "VR_BEM_CANDIDATO": "0,20"],
            ], in: folder)
        let db = folder + "/urna.sqlite"
        _ = try ImportTestSupport.importFiles([cand, assets], into: db)
        #expect(try ImportTestSupport.integer(db, "SELECT sum(value) FROM Good") == 30)
        #expect(try ImportTestSupport.value(db, "SELECT typeof(value) FROM Good LIMIT 1") == .text("integer"))
        #expect(try ImportTestSupport.integer(db, "SELECT spendingLimitFirstRound FROM Candidate") == 250_000_000)
        let store = try Store.openExisting(path: db, readOnly: true)
        let card = try renderCandidate(store: store, sequence: 10, election: nil)
        #expect(card.contains("Total: R$ 0,30"))
    }

    @Test func spendingLimitsWithADecimalPointFrom2022() throws {
        let db = try ImportTestSupport.newDatabasePath()
        _ = try ImportTestSupport.importFiles(
            [ImportTestSupport.fixture("sample_consulta_cand_2022_AC.71col.csv")], into: db)
        // First row of the sample: SQ 10001717429, VR_DESPESA_MAX_CAMPANHA "1270629.01", e-mail "NÃO DIVULGÁVEL".
        #expect(
            try ImportTestSupport.integer(
                db, "SELECT spendingLimitFirstRound FROM Candidate WHERE sequence = 10001717429")
                == 127_062_901)
    }

    @Test func runOffRoundsAreTwoCandidaciesWithTheirOwnLimits() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.candidateFile(
            [
                ["SQ_CANDIDATO": "10", "CD_CARGO": "3", "NR_CANDIDATO": "45", "NR_DESPESA_MAX_CAMPANHA": "100"],
                [
                    "SQ_CANDIDATO": "10", "CD_CARGO": "3", "NR_CANDIDATO": "45", "NR_TURNO": "2", "CD_ELEICAO": "298",
                    "NR_DESPESA_MAX_CAMPANHA": "50",
                ],
            ], in: folder)
        let db = folder + "/urna.sqlite"
        _ = try ImportTestSupport.importFiles([file], into: db)
        let c = try Connection(path: db, readOnly: true, create: false)
        let rows = try c.rows("SELECT id, spendingLimitFirstRound, spendingLimitSecondRound FROM Candidate ORDER BY id")
        #expect(
            rows == [
                [.text("2018/1/ELEICOES GERAIS ESTADUAIS 2018/MG/10"), .integer(10_000), .null],
                [.text("2018/2/ELEICOES GERAIS ESTADUAIS 2018/MG/10"), .null, .integer(5_000)],
            ])
    }

    @Test func oracleStyleBirthDatesInHeaderlessOriginals() throws {
        // A 43-field original (2010 and earlier): the 2012 sample's first row without its last field, with an Oracle date.
        let sample = try String(
            contentsOfFile: ImportTestSupport.fixture("sample_consulta_cand_2012_AC.original-noheader.txt"),
            encoding: .isoLatin1)
        var fields = sample.split(separator: "\n")[0].components(separatedBy: "\";\"")
        #expect(fields.count == 44)
        fields.removeLast()
        fields[fields.count - 1] += "\""
        fields[2] = "2010"
        fields[26] = "22-MAR-52"
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.write(
            fields.joined(separator: "\";\"") + "\n", named: "consulta_cand_2010_AC.txt", in: folder)
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([file], into: db)
        #expect(summary.rejected == 0)
        #expect(try ImportTestSupport.value(db, "SELECT birthdate FROM Candidate") == .text("1952-03-22T00:00:00.000Z"))
    }

    @Test func coalitionsLinkTheirPartiesIncludingFederations() throws {
        let db = try ImportTestSupport.newDatabasePath()
        _ = try ImportTestSupport.importFiles(
            [ImportTestSupport.fixture("sample_consulta_cand_2022_AC.71col.csv")], into: db)
        let c = try Connection(path: db, readOnly: true, create: false)
        func members(_ coalition: SQLValue) throws -> [String] {
            try c.rows(
                "SELECT p.acronym FROM Coalition_parties l JOIN Party p ON p.id = l.target WHERE l.owner = ? ORDER BY l.position",
                [coalition]
            ).compactMap { if case .text(let s) = $0[0] { s } else { nil } }
        }
        // The federation "PT/PC do B/PV" (one coalition per office); PC do B ran no candidate in this file, so
        // its number is unknown: PT and PV are linked, and the published text keeps all three.
        let federations = try c.rows("SELECT id FROM Coalition WHERE composition = 'PT/PC do B/PV'").map { $0[0] }
        #expect(!federations.isEmpty)
        for id in federations { #expect(try members(id) == ["PT", "PV"]) }
        #expect(try c.rows("SELECT count(*) FROM Party WHERE acronym = 'PC do B'") == [[.integer(0)]])
        // A coalition whose parties did not all run candidates here keeps its text and links the ones seen.
        // Of "PODE / PP / PDT / PATRIOTA / SOLIDARIEDADE / PSDB/CIDADANIA / PMN / DC / PMB", CIDADANIA, PMN and
        // PMB ran no candidate in this sample.
        let coalitions = try c.rows("SELECT id FROM Coalition WHERE composition LIKE 'PODE / PP / PDT%'").map { $0[0] }
        #expect(coalitions.count == 1)
        for id in coalitions {
            #expect(try members(id) == ["PODE", "PP", "PDT", "PATRIOTA", "SOLIDARIEDADE", "PSDB", "DC"])
        }
        #expect(try ImportTestSupport.foreignKeyViolations(db) == 0)
    }

    /// `<coligacao>` records (as `urna export --format xml` writes them, and standalone under the root) are
    /// consulta_coligacao rows: they create the coalition and its parties, and a member the composition does
    /// not name (here 20, listed under another acronym) keeps its place in the list instead of going last.
    @Test func xmlColigacaoRecordsListPartiesInTheirPlace() throws {
        func coligacao(_ party: Int, _ acronym: String) -> String {
            "<coligacao><ANO_ELEICAO>2018</ANO_ELEICAO><SG_UE>AC</SG_UE><SQ_COLIGACAO>99</SQ_COLIGACAO>"
                + "<NM_COLIGACAO>UNIDOS</NM_COLIGACAO>"
                + "<DS_COMPOSICAO_COLIGACAO>AAA / CCC</DS_COMPOSICAO_COLIGACAO><TP_AGREMIACAO>COLIGAÇÃO</TP_AGREMIACAO>"
                + "<NR_PARTIDO>\(party)</NR_PARTIDO><SG_PARTIDO>\(acronym)</SG_PARTIDO><NM_PARTIDO>P\(party)</NM_PARTIDO>"
                + "</coligacao>\n"
        }
        let folder = try ImportTestSupport.scratchFolder()
        let file = try ImportTestSupport.write(
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<candidatos>\n<coligacoes>\n"
                + coligacao(10, "AAA") + coligacao(20, "BBB") + "</coligacoes>\n" + coligacao(30, "CCC")
                + "<coligacao ANO_ELEICAO=\"2018\" SG_UE=\"AC\" SQ_COLIGACAO=\"98\" NR_PARTIDO=\"30\" NM_COLIGACAO=\"SÓ\"/>\n"
                + "</candidatos>\n",
            named: "coligacoes.xml", in: folder)
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([file], into: db)
        #expect(summary.rejected == 0)
        #expect(try ImportTestSupport.integer(db, "SELECT count(*) FROM Party") == 3)
        #expect(
            try ImportTestSupport.value(db, "SELECT name FROM Coalition WHERE id = '2018/AC/99'") == .text("UNIDOS"))
        #expect(
            try ImportTestSupport.value(db, "SELECT kind FROM Coalition WHERE id = '2018/AC/99'") == .text("COLIGAÇÃO"))
        #expect(try ImportTestSupport.value(db, "SELECT name FROM Coalition WHERE id = '2018/AC/98'") == .text("SÓ"))
        let c = try Connection(path: db, readOnly: true, create: false)
        let list = try c.rows("SELECT target FROM Coalition_parties WHERE owner = '2018/AC/99' ORDER BY position")
        #expect(list == [[.text("2018/10")], [.text("2018/20")], [.text("2018/30")]])
        let single = try c.rows("SELECT target FROM Coalition_parties WHERE owner = '2018/AC/98' ORDER BY position")
        #expect(single == [[.text("2018/30")]])
    }

    @Test func viceSubstitutionLinksTheValidVice() throws {
        // 2018 MG governor 18 (real): the first vice was INAPTO and replaced; the head links the APTO one.
        let db = try ImportTestSupport.newDatabasePath()
        _ = try ImportTestSupport.importFiles([ImportTestSupport.fixture("consulta_cand_2018_MG.csv.zip")], into: db)
        #expect(
            try ImportTestSupport.value(db, "SELECT vice FROM Candidate WHERE sequence = 130000624870")
                == .text(Self.mg2018 + "/MG/130000629811"))
        // The vice sees the head through the `holder` inverse.
        let store = try Store.openExisting(path: db, readOnly: true)
        let vice = try #require(
            try store.object(ofType: "Candidate", forPrimaryKey: Value.string(Self.mg2018 + "/MG/130000629811")))
        let holders = Array(try vice.linkingObjects("holder"))
        #expect(holders.map(\.primaryKeyValue) == [Value.string(Self.mg2018 + "/MG/130000624870")])
    }

    @Test func assetsReadBeforeTheirCandidaciesAreHeld() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <candidatos>
              <bem><CD_ELEICAO>297</CD_ELEICAO><SQ_CANDIDATO>10</SQ_CANDIDATO><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO>
                <CD_TIPO_BEM_CANDIDATO>12</CD_TIPO_BEM_CANDIDATO><DS_TIPO_BEM_CANDIDATO>Casa</DS_TIPO_BEM_CANDIDATO>
                <VR_BEM_CANDIDATO>150000,00</VR_BEM_CANDIDATO></bem>
              <bem><CD_ELEICAO>297</CD_ELEICAO><SQ_CANDIDATO>99</SQ_CANDIDATO><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO>
                <CD_TIPO_BEM_CANDIDATO>12</CD_TIPO_BEM_CANDIDATO><VR_BEM_CANDIDATO>1,00</VR_BEM_CANDIDATO></bem>
              <candidato><ANO_ELEICAO>2018</ANO_ELEICAO><NR_TURNO>1</NR_TURNO><CD_ELEICAO>297</CD_ELEICAO>
                <SQ_CANDIDATO>10</SQ_CANDIDATO><NR_CANDIDATO>1234</NR_CANDIDATO><NM_CANDIDATO>ANA</NM_CANDIDATO>
                <CD_CARGO>6</CD_CARGO><SG_UE>MG</SG_UE><NR_PARTIDO>27</NR_PARTIDO><SG_PARTIDO>DC</SG_PARTIDO></candidato>
            </candidatos>
            """
        let file = folder + "/dump.xml"
        try xml.write(toFile: file, atomically: true, encoding: .utf8)
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([file], into: db)
        #expect(summary.heldAssets == 1)
        #expect(summary.rejected == 1)  // SQ 99 never arrives
        // This dump names its election by CD_ELEICAO alone (no DS_ELEICAO), which then stands in for the description.
        #expect(
            try ImportTestSupport.value(db, "SELECT owner FROM Candidate_goods") == .text("2018/1/CD_ELEICAO 297/MG/10")
        )
        #expect(try ImportTestSupport.integer(db, "SELECT value FROM Good") == 15_000_000)
    }

    @Test func assetFilesGivenBeforeCandidateFilesWork() throws {
        let db = try ImportTestSupport.newDatabasePath()
        let summary = try ImportTestSupport.importFiles(
            [
                ImportTestSupport.fixture("sample_bem_candidato_2018_MG.csv"),
                ImportTestSupport.fixture("consulta_cand_2018_MG.csv.zip"),
            ],
            into: db)
        #expect(summary.rejected == 0)
        #expect(try ImportTestSupport.counts(db)["Good"] == 209)
    }

    /// The 2018 state election's identity: year, round and description (upper case, accents folded).
    static let mg2018 = "2018/1/ELEICOES GERAIS ESTADUAIS 2018"

    /// A legend row keeps its coalition and party; its election, round and office are not stored, and the
    /// summary names those columns instead of dropping them without a word.
    @Test func aCoalitionLayoutsUnstoredColumnsAreNamedInAWarning() throws {
        let legends = ImportTestSupport.fixture("consulta_legendas_2016_AC.original-noheader.txt.zip")
        let summary = try ImportTestSupport.importFiles([legends], into: try ImportTestSupport.newDatabasePath())
        let warning = summary.warnings.first { $0.contains("the coalition layout's columns") }
        let listed = warning?.components(separatedBy: "columns ").dropFirst().first?.components(separatedBy: " are not stored")
            .first
        #expect(listed == "NUM_TURNO, DESCRICAO_ELEICAO, SIGLA_UF, NOME_UE, CODIGO_CARGO, DESCRICAO_CARGO, SIGLA_COLIGACAO",
            "\(summary.warnings)")
    }

    @Test func partiesKeepTheLabelOfTheirOwnElectionYearInAnyOrder() throws {
        // Party 15 is PMDB in 2016 and MDB in 2018 (real files); 19 PTN -> PODE; 51 PEN -> PATRI.
        let ac2016 = ImportTestSupport.fixture("consulta_cand_2016_AC.original-noheader.txt.zip")
        let legends = ImportTestSupport.fixture("consulta_legendas_2016_AC.original-noheader.txt.zip")
        let mg2018 = ImportTestSupport.fixture("consulta_cand_2018_MG.csv.zip")
        for files in [[ac2016, legends, mg2018], [mg2018, ac2016, legends]] {
            let db = try ImportTestSupport.newDatabasePath()
            _ = try ImportTestSupport.importFiles(files, into: db)
            for (id, label) in [
                ("2018/15", "MDB MOVIMENTO DEMOCRÁTICO BRASILEIRO"),
                ("2016/15", "PMDB PARTIDO DO MOVIMENTO DEMOCRÁTICO BRASILEIRO"),
                ("2018/19", "PODE PODEMOS"), ("2016/19", "PTN PARTIDO TRABALHISTA NACIONAL"),
                ("2018/51", "PATRI PATRIOTA"), ("2016/51", "PEN PARTIDO ECOLÓGICO NACIONAL"),
            ] {
                #expect(
                    try ImportTestSupport.value(
                        db, "SELECT acronym || ' ' || name FROM Party WHERE id = ?", [.text(id)])
                        == .text(label), "\(id)")
            }
            // Each candidacy reads its own election's label through its link.
            let store = try Store.openExisting(path: db, readOnly: true)
            let mdb = try store.objects("Candidate").filter("party.acronym == 'MDB'").count
            let pmdb = try store.objects("Candidate").filter("party.acronym == 'PMDB'").count
            #expect(mdb > 0 && pmdb > 0)
            #expect(
                try ImportTestSupport.integer(
                    db,
                    "SELECT count(*) FROM Candidate c JOIN Party p ON p.id = c.party WHERE p.year != "
                        + "(SELECT year FROM Election e WHERE e.id = c.election)") == 0)
            // Reading an older year again changes nothing of the newer one.
            let older = try ImportTestSupport.importFiles([ac2016], into: db)
            #expect(try ImportTestSupport.value(db, "SELECT acronym FROM Party WHERE id = '2018/15'") == .text("MDB"))
            #expect(older.updated["Party", default: 0] == 0)
        }
    }
}
