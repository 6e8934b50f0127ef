import Foundation
import Testing
import UrnaStore

@testable import UrnaImport

/// Findings of a real-use trial (files of other years and generations, imported in every order and run split):
/// each test failed before its fix.
@Suite struct TrialFindingsTests {
    typealias S = ImportTestSupport

    /// The tables of a file, by name.
    static func tables(_ db: String) throws -> [String] {
        try Connection(path: db, readOnly: true, create: false).rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).compactMap { if case .text(let name) = $0[0] { name } else { nil } }
    }

    /// Goods imported in a run before their candidacies, all attached by a later run, leave the same file as
    /// one run of both: no empty `_urna_pending_goods` table is left behind (a sorted dump of the two files
    /// differed by that table only).
    @Test func goodsAttachedByALaterRunLeaveNoEmptyPendingTable() throws {
        let folder = try S.scratchFolder()
        let candidates = try S.candidateFile([["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]], in: folder)
        let goods = try S.assetFile(
            [
                ["SQ_CANDIDATO": "1", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "CASA"],
                ["SQ_CANDIDATO": "2", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "CARRO"],
            ], in: folder)
        let one = folder + "/one.sqlite"
        _ = try S.importFiles([candidates, goods], into: one)
        let two = folder + "/two.sqlite"
        _ = try S.importFiles([goods], into: two)
        #expect(try Self.tables(two).contains(StorageLayout.pendingGoodsTable))
        let second = try S.importFiles([candidates], into: two)
        #expect(second.warnings.contains { $0.hasPrefix("2 goods an earlier import kept aside") }, "\(second.warnings)")
        #expect(try Self.tables(two) == Self.tables(one))
        #expect(!(try Self.tables(two).contains(StorageLayout.pendingGoodsTable)))
        let data = { (db: String) in
            try S.dump(db).filter { !$0.hasPrefix("_urna_schema") && !$0.hasPrefix("_urna_history") }
        }
        #expect(try data(two) == data(one))
    }

    /// A round other than 1 or 2, or a year that is not of four digits, is not an election's identity: the row
    /// is rejected naming the column (round 3 and year 20018 each made an election of their own, exit 0).
    @Test func aRoundOtherThanOneOrTwoOrAFiveDigitYearIsRejectedNamingTheColumn() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2", "NR_TURNO": "3"],
                ["SQ_CANDIDATO": "3", "ANO_ELEICAO": "20018"], ["SQ_CANDIDATO": "4", "ANO_ELEICAO": "999"],
            ], in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([file], into: db)
        #expect(s.rejected == 3)
        #expect(try S.counts(db)["Candidate"] == 1)
        #expect(try S.counts(db)["Election"] == 1)
        let rejects = try String(contentsOfFile: db + ".rejects.csv", encoding: .isoLatin1)
        #expect(rejects.contains(",3,6,NR_TURNO is not a round (1 or 2)"), "\(rejects)")
        #expect(rejects.contains(",4,3,ANO_ELEICAO is not a year"), "\(rejects)")
        #expect(rejects.contains(",5,3,ANO_ELEICAO is not a year"), "\(rejects)")
    }

    /// A birth date after its election's year is out of its domain: the field is nulled with a warning, the
    /// candidacy kept (`31/12/2099` was stored as a birth date).
    @Test func aBirthDateAfterTheElectionYearIsNulledWithAWarning() throws {
        let folder = try S.scratchFolder()
        let file = try S.candidateFile(
            [
                ["SQ_CANDIDATO": "1", "DT_NASCIMENTO": "31/12/2099"],
                ["SQ_CANDIDATO": "2", "DT_NASCIMENTO": "31/12/2000"],
            ], in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([file], into: db)
        #expect(s.rejected == 0)
        #expect(s.fieldsNulled == 1)
        #expect(try S.counts(db)["Candidate"] == 2)
        #expect(try S.value(db, "SELECT birthdate FROM Candidate WHERE sequence = 1") == .null)
        #expect(
            try S.value(db, "SELECT birthdate FROM Candidate WHERE sequence = 2") == .text("2000-12-31T00:00:00.000Z"))
        let rejects = try String(contentsOfFile: db + ".rejects.csv", encoding: .isoLatin1)
        #expect(rejects.contains(",2,39,warning: DT_NASCIMENTO is after the election year"), "\(rejects)")
    }

    /// A goods file names its election's CD_ELEICAO, kind and date; when the candidacies came from a file that
    /// lacks them (an original layout), the attached goods fill them in, whatever the order or runs (they were
    /// dropped: a Good export gave CD_ELEICAO -1). They never replace what a candidate row says.
    @Test func goodsFillWhatTheirElectionDoesNotKnow() throws {
        let folder = try S.scratchFolder()
        let unknown = [
            "CD_ELEICAO": "#NULO#", "DT_ELEICAO": "#NULO#", "CD_TIPO_ELEICAO": "-1", "NM_TIPO_ELEICAO": "#NULO#",
        ]
        let candidates = try S.candidateFile(
            [unknown.merging(["SQ_CANDIDATO": "1"]) { $1 }, unknown.merging(["SQ_CANDIDATO": "2"]) { $1 }],
            in: folder)
        let goods = try S.assetFile(
            [
                ["SQ_CANDIDATO": "1", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "CASA"],
                ["SQ_CANDIDATO": "2", "NR_ORDEM_CANDIDATO": "1", "DS_BEM_CANDIDATO": "CARRO"],
            ], in: folder)
        let data = { (db: String) in
            try S.dump(db).filter { !$0.hasPrefix("_urna_schema") && !$0.hasPrefix("_urna_history") }
        }
        var dumps: [[String]] = []
        for (k, runs) in [
            [[candidates, goods]], [[goods, candidates]], [[candidates], [goods]], [[goods], [candidates]],
        ]
        .enumerated() {
            let db = folder + "/order\(k).sqlite"
            for files in runs { _ = try S.importFiles(files, into: db) }
            #expect(try S.value(db, "SELECT code FROM Election") == .integer(297), "order \(k)")
            #expect(try S.value(db, "SELECT date FROM Election") == .text("2018-10-07T00:00:00.000Z"), "order \(k)")
            #expect(try S.value(db, "SELECT kind FROM Election") == .text("Eleição Ordinária"), "order \(k)")
            #expect(try S.value(db, "SELECT kindCode FROM Election") == .integer(2), "order \(k)")
            #expect(
                try S.value(db, "SELECT generatedAt FROM Election") == .text("2018-09-27T19:04:59.000Z"), "order \(k)")
            #expect(try S.counts(db)["Good"] == 2)
            dumps.append(try data(db))
        }
        #expect(dumps.allSatisfy { $0 == dumps[0] })
        // Where the candidate rows know them, the goods change nothing and say nothing (the kind's case differs
        // between the two files of one generation, as in the real 2022 AC pair).
        let known = try S.candidateFile([["SQ_CANDIDATO": "1"]], named: "consulta_cand_known.csv", in: folder)
        let db = folder + "/known.sqlite"
        let s = try S.importFiles([known, goods], into: db)
        #expect(try S.value(db, "SELECT kind FROM Election") == .text("ELEIÇÃO ORDINÁRIA"))
        #expect(s.warnings.allSatisfy { !$0.contains("Election") }, "\(s.warnings)")
        #expect(s.rejected == 1)  // the good of candidacy 2, kept aside
        let rejects = try String(contentsOfFile: db + ".rejects.csv", encoding: .isoLatin1)
        #expect(!rejects.contains("Election."), "\(rejects)")
    }

    /// A header-less original whose first row lost or gained a field (historic files shift columns) is still
    /// recognised by the rows after it: the first row is a reject naming line 1, the rest load (the whole file
    /// was refused, "not a recognised TSE file", exit 65).
    @Test(arguments: [-1, 1])
    func aHeaderlessOriginalWithABadFirstRowLoadsTheOtherRows(extraFields: Int) throws {
        let folder = try S.scratchFolder()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: S.fixture("consulta_cand_2014_AC.original-excerpt.txt")))
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        #expect(lines.count > 2)
        var fields = lines[0].split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { Data($0) }
        #expect(fields.count == 46)
        if extraFields < 0 { fields.removeLast() } else { fields.append(Data("\"X\"".utf8)) }
        var out = Data(fields.joined(separator: [UInt8(ascii: ";")])) + Data([0x0A])
        for line in lines.dropFirst() { out += line + Data([0x0A]) }
        let path = folder + "/consulta_cand_2014_AC.txt"
        try out.write(to: URL(fileURLWithPath: path))
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([path], into: db)
        #expect(s.rejected == 1)
        #expect(try S.counts(db)["Candidate"] == lines.count - 1)
        let rejects = try String(contentsOfFile: db + ".rejects.csv", encoding: .isoLatin1)
        #expect(rejects.contains("consulta_cand_2014_AC.txt,1,"), "\(rejects)")
        #expect(rejects.contains("expected 46 fields, found \(46 + extraFields)"), "\(rejects)")
    }

    /// The rows after a bad first row are looked at only when that row begins as an original does (DATA_GERACAO,
    /// HORA_GERACAO) and is within two fields of the layout found: a foreign file stays refused.
    @Test func aForeignFileIsNotReadByItsLaterRows() throws {
        let folder = try S.scratchFolder()
        let twelve = (1...12).map { "\"\($0)\"" }.joined(separator: ";")
        let foreign = try S.write("\"a\";\"b\";\"c\";\"d\";\"e\"\n" + twelve + "\n", named: "planilha.csv", in: folder)
        #expect(throws: (any Error).self) { _ = try S.importFiles([foreign], into: folder + "/a.sqlite") }
        let far = try S.write(
            "\"22/04/2018\";\"03:00:55\";\"x\"\n" + twelve + "\n", named: "distante.csv", in: folder)
        #expect(throws: (any Error).self) { _ = try S.importFiles([far], into: folder + "/b.sqlite") }
    }

    /// A Windows-1252 byte (0x80-0x9F, read by Latin-1 as a control character) is said wherever it is in the
    /// file: one past the first 64 KiB was stored as U+0093 with no warning, one before them was said.
    @Test(arguments: [1, 400])
    func windows1252BytesAreSaidWhereverTheyAre(rowsBefore: Int) throws {
        let folder = try S.scratchFolder()
        var rows = (1...rowsBefore).map { ["SQ_CANDIDATO": "\($0)"] }
        rows.append(["SQ_CANDIDATO": "\(rowsBefore + 1)", "NM_URNA_CANDIDATO": "\u{93}FULANO\u{94}"])
        let file = try S.candidateFile(rows, in: folder)
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        #expect(rowsBefore == 1 || size > 128 * 1024)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([file], into: db)
        #expect(try S.counts(db)["Candidate"] == rowsBefore + 1)
        #expect(
            s.warnings.contains { $0.contains("read as Latin-1, but it holds bytes 0x80-0x9F") }, "\(s.warnings)")
    }

    /// A header ending in a separator, its rows too: the rows load, with the warning of a file whose lines end with
    /// a separator (the empty name after the header's last is no column; it was warned of as "(unnamed)", and
    /// before that as "column  is in no TSE layout").
    @Test func anUnnamedHeaderColumnIsNamedInItsWarning() throws {
        let folder = try S.scratchFolder()
        let file = try S.write(
            S.candidateHeader58 + ";\n" + S.candidateRow(["SQ_CANDIDATO": "1"]) + ";\n", named: "consulta_cand.csv",
            in: folder)
        let db = folder + "/urna.sqlite"
        let s = try S.importFiles([file], into: db)
        #expect(try S.counts(db)["Candidate"] == 1)
        #expect(
            s.warnings == [
                "consulta_cand.csv: 1 row ends with a separator after the last column; the empty field after it was "
                    + "ignored, the rest of the row read"
            ],
            "\(s.warnings)")
    }

    /// An original file and a re-released one that describe one election two ways (DS_ELEICAO) keep two copies
    /// of each candidacy: that is said in a warning naming both elections (it was silent). Elections of one year
    /// and round that share no candidacy (2018's federal and state elections) give none.
    @Test func oneElectionUnderTwoDescriptionsIsSaid() throws {
        let folder = try S.scratchFolder()
        let rows = [["SQ_CANDIDATO": "1"], ["SQ_CANDIDATO": "2"]]
        let rereleased = try S.candidateFile(rows, named: "consulta_cand_relancado.csv", in: folder)
        let original = try S.candidateFile(
            rows.map { $0.merging(["DS_ELEICAO": "ELEICOES 2018", "CD_ELEICAO": "#NULO#"]) { $1 } },
            named: "consulta_cand_original.csv", in: folder)
        let s = try S.importFiles([rereleased, original], into: folder + "/two.sqlite")
        let said = s.warnings.filter { $0.contains("hold the same candidacy") }
        #expect(said.count == 1, "\(s.warnings)")
        #expect(said.first?.contains("'2018/1/ELEICOES 2018' and '2018/1/ELEICOES GERAIS ESTADUAIS 2018'") == true)
        let federal = try S.candidateFile(
            [["SQ_CANDIDATO": "3", "CD_ELEICAO": "295", "DS_ELEICAO": "Eleição Geral Federal 2018"]],
            named: "consulta_cand_federal.csv", in: folder)
        let apart = try S.importFiles([rereleased, federal], into: folder + "/apart.sqlite")
        #expect(apart.warnings.allSatisfy { !$0.contains("hold the same candidacy") }, "\(apart.warnings)")
    }
}
