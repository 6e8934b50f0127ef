import Foundation
import Testing

@testable import UrnaRecords

@Suite("TSE file reader: real samples, generated layouts, bad files")
struct TSEFileReaderTests {
    typealias S = RecordsTestSupport

    /// Record counts were taken with `wc -l` (minus the header line) and checked with Python's csv module.
    @Test(
        "every real sample is recognised with the right layout and record count",
        arguments: [
            (
                "consulta_cand_2016_AC.original-noheader.txt",
                "consulta_cand original 46 columns (2014/2016, no header)", 190
            ),
            ("consulta_cand_2012_AC.original-noheader.txt", "consulta_cand original 44 columns (2012, no header)", 37),
            (
                "consulta_legendas_2016_AC.original-noheader.txt",
                "consulta_legendas original 18 columns (2016, no header)", 47
            ),
            ("consulta_cand_2014_BRASIL.58col.csv", "consulta_cand 58 columns (2014/2018)", 68),
            ("consulta_cand_2018_BRASIL.58col.csv", "consulta_cand 58 columns (2014/2018)", 56),
            ("consulta_cand_2018_MG.58col.csv", "consulta_cand 58 columns (2014/2018)", 85),
            ("bem_candidato_2018_MG.csv", "bem_candidato 19 columns (2016/2018)", 209),
            ("bem_candidato_2018_BR.csv", "bem_candidato 19 columns (2016/2018)", 60),
            ("consulta_cand_2020_AC.63col.csv", "consulta_cand 63 columns (2020)", 54),
            ("consulta_cand_2022_AC.71col.csv", "consulta_cand 71 columns (2022)", 70),
        ])
    func samples(file: String, layout: String, count: Int) throws {
        let (reader, records, rejects) = try S.readAll(S.fixture(file))
        #expect(reader.layoutName == layout)
        #expect(reader.encoding == .latin1)
        #expect(records.count == count)
        #expect(rejects.isEmpty, "\(rejects.first.map(String.init(describing:)) ?? "")")
        #expect(reader.bytesRead == reader.fileSize)
        #expect(records.allSatisfy { $0.fieldCount == reader.layout.fieldCount })
    }

    @Test("header-less 2016 original: fields come out under canonical names, decoded from Latin-1")
    func original2016Values() throws {
        let (reader, records, _) = try S.readAll(S.fixture("consulta_cand_2016_AC.original-noheader.txt"))
        #expect(reader.kind == .candidate)
        let first = try #require(records.first)
        #expect(first.location == SourceLocation(file: "consulta_cand_2016_AC.original-noheader.txt", line: 1))
        #expect(first["SQ_CANDIDATO"] == "10000000782")
        #expect(first["NM_CANDIDATO"] == "FRANCISCO CLODOALDO DE SOUZA RODRIGUES")
        #expect(first["DS_ELEICAO"] == "Eleições Municipais 2016")
        #expect(first["SQ_COLIGACAO"] == "10000000041")
        #expect(first["DS_COMPOSICAO_COLIGACAO"] == "PP / PR / PSC / PEN / SD / PSD")
        #expect(first["DS_EMAIL"] == "JUNTOSPORCRUZEIROIII@GMAIL.COM")
        #expect(first["SEQUENCIAL_CANDIDATO"] == nil, "old names are not kept alongside the canonical ones")
        #expect(first.location(of: "SQ_CANDIDATO").column == 12)
        #expect(records.last?["SQ_CANDIDATO"] == "10000003464")
        #expect(records.last?.location.line == 190)
    }

    @Test("58-column header: the header row is not a record, data starts on line 2, renamed columns resolve")
    func header2018Values() throws {
        let (_, records, _) = try S.readAll(S.fixture("consulta_cand_2018_BRASIL.58col.csv"))
        let first = try #require(records.first)
        #expect(first.location.line == 2)
        #expect(first["SQ_CANDIDATO"] == "100000615067")
        #expect(first["NM_CANDIDATO"] == "LEIDIANIA PEREIRA DA SILVA VELOSO")
        #expect(first["CD_ELEICAO"] == "297")
        #expect(first["DS_EMAIL"] == "DRJOABSONJUNIOR@HOTMAIL.COM")
        #expect(first["VR_DESPESA_MAX_CAMPANHA"] == "0")
        #expect(first["DS_ELEICAO"] == "Eleições Gerais Estaduais 2018")
        #expect(records.last?["SQ_CANDIDATO"] == "130000600702")
        #expect(records.last?.location.line == 57)
    }

    @Test("2022 71-column values, assets and legends resolve by canonical name")
    func otherKinds() throws {
        let cand = try S.readAll(S.fixture("consulta_cand_2022_AC.71col.csv")).records[0]
        #expect(cand["SQ_CANDIDATO"] == "10001717429")
        #expect(cand["VR_DESPESA_MAX_CAMPANHA"] == "1270629.01")
        #expect(cand["DS_EMAIL"] == "NÃO DIVULGÁVEL")

        let (assets, assetRecords, _) = try S.readAll(S.fixture("bem_candidato_2018_MG.csv"))
        #expect(assets.kind == .asset)
        #expect(assetRecords[0]["NR_ORDEM_CANDIDATO"] == "8")
        #expect(assetRecords[0]["VR_BEM_CANDIDATO"] == "2005,27")
        #expect(assetRecords[0]["DS_TIPO_BEM_CANDIDATO"] == "Caderneta de poupança")

        let (legends, legendRecords, _) = try S.readAll(S.fixture("consulta_legendas_2016_AC.original-noheader.txt"))
        #expect(legends.kind == .coalition)
        #expect(legendRecords[0]["SQ_COLIGACAO"] == "10000000129")
        #expect(legendRecords[0]["NM_COLIGACAO"] == "COLIGAÇÃO PMB/PSL")
        #expect(legendRecords[0]["TP_AGREMIACAO"] == "COLIGACAO")
        #expect(legendRecords[0].kind == .coalition)
    }

    /// Files generated from LAYOUTS.md's column lists (see the fixture names) with made-up values.
    @Test(
        "generated files of every other layout are recognised and read",
        arguments: [
            ("gen_consulta_cand_2024.50col.csv", "consulta_cand 50 columns (2024)", RecordKind.candidate, 3),
            ("gen_consulta_cand_2022.75col.csv", "consulta_cand 75 columns (2022 regenerated 2023)", .candidate, 2),
            ("gen_consulta_cand_2006.63col.csv", "consulta_cand 63 columns (2020)", .candidate, 2),
            (
                "gen_consulta_cand_2010.original-noheader.43col.txt",
                "consulta_cand original 43 columns (2010 and earlier, no header)", .candidate, 3
            ),
            (
                "gen_consulta_cand_2012.original-noheader.44col.txt",
                "consulta_cand original 44 columns (2012, no header)", .candidate, 2
            ),
            (
                "gen_bem_candidato.original-noheader.12col.txt", "bem_candidato original 12 columns (no header)",
                .asset, 4
            ),
            ("gen_bem_candidato_2026.19col.csv", "bem_candidato 19 columns (2026 names)", .asset, 2),
            ("gen_consulta_coligacao_2016.23col.csv", "consulta_coligacao 23 columns (2016)", .coalition, 2),
            ("gen_consulta_coligacao_2022.28col.csv", "consulta_coligacao 28 columns (2018-2026)", .coalition, 3),
        ])
    func generatedLayouts(file: String, layout: String, kind: RecordKind, count: Int) throws {
        let (reader, records, rejects) = try S.readAll(S.fixture(file))
        #expect(reader.layoutName == layout)
        #expect(reader.kind == kind)
        #expect(records.count == count)
        #expect(rejects.isEmpty)
        #expect(records.allSatisfy { $0["SQ_CANDIDATO"] != nil || $0["SQ_COLIGACAO"] != nil })
    }

    @Test("2024 file: unquoted numbers, CRLF, quotes and the federation text survive")
    func generated2024Values() throws {
        let records = try S.readAll(S.fixture("gen_consulta_cand_2024.50col.csv")).records
        #expect(records.map { $0["SQ_CANDIDATO"] } == ["250000000101", "250000000102", "250000000103"])
        #expect(records[0]["NM_URNA_CANDIDATO"] == "ZÉ \"DO POVO\" 1")
        #expect(records[0]["SG_UE"] == "01392")
        #expect(
            records[0]["DS_COMPOSICAO_COLIGACAO"] == "Federação BRASIL DA ESPERANÇA - FE BRASIL(PT/PC do B/PV) / PSB")
        #expect(records.map(\.location.line) == [2, 3, 4])
        #expect(records[2].rawBytes.last != UInt8(ascii: "\r"), "the CR of CRLF is not part of the row")
    }

    @Test("2010 original (43 fields, CRLF) and 12-field asset original map to canonical names")
    func generatedOriginalValues() throws {
        let cand = try S.readAll(S.fixture("gen_consulta_cand_2010.original-noheader.43col.txt")).records[0]
        #expect(cand["SQ_CANDIDATO"] == "10000000101")
        #expect(cand["DT_NASCIMENTO"] == "22-MAR-52")
        #expect(cand["DS_ELEICAO"] == "ELEIÇÕES 2010")
        #expect(cand["DS_EMAIL"] == nil, "the 43-field layout has no e-mail")
        let asset = try S.readAll(S.fixture("gen_bem_candidato.original-noheader.12col.txt")).records[0]
        #expect(asset["DS_BEM_CANDIDATO"] == "APARTAMENTO; RUA A, Nº 1")
        #expect(asset["VR_BEM_CANDIDATO"] == "3669,04")
        #expect(asset["NR_ORDEM_CANDIDATO"] == nil)
        let renamed = try S.readAll(S.fixture("gen_bem_candidato_2026.19col.csv")).records[1]
        #expect(renamed["NR_ORDEM_CANDIDATO"] == "2")
    }

    @Test("a row with the wrong field count and a one-field trailer are rejects; good rows around them load")
    func fieldCountRejects() throws {
        let sample = try Data(contentsOf: URL(fileURLWithPath: S.fixture("consulta_cand_2018_MG.58col.csv")))
        var lines = sample.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        lines.removeLast()  // the file ends with a newline
        // Line 3 loses its last field; a trailer line is added at the end.
        let shortened = Array(lines[2][..<lines[2].lastIndex(of: UInt8(ascii: ";"))!])
        lines[2] = shortened
        lines.append(Array("\"85 registros\"".utf8))
        let path = try S.temporaryFile("with_trailer.csv", Array(lines.joined(separator: [UInt8(ascii: "\n")])))
        let (_, records, rejects) = try S.readAll(path)
        #expect(records.count == 84)
        #expect(rejects.count == 2)
        #expect(rejects[0].location == SourceLocation(file: "with_trailer.csv", line: 3, column: 58))  // the missing one
        #expect(rejects[0].reason.hasPrefix("expected 58 fields, found 57"))
        #expect(rejects[0].rawBytes == shortened)
        #expect(rejects[1].location.line == 87)
        #expect(rejects[1].location.column == 2, "a one-field line: the first missing field")
        #expect(rejects[1].reason.hasPrefix("expected 58 fields, found 1"))
        #expect(rejects[1].reason.contains("trailer"))
    }

    @Test("broken quoting in a TSE file is a reject with file:line:column; the rest loads")
    func brokenQuotingInFile() throws {
        var text = try String(
            contentsOfFile: S.fixture("consulta_cand_2012_AC.original-noheader.txt"), encoding: .isoLatin1)
        text = text.replacingOccurrences(of: "\"TEREZINHA\"", with: "\"TEREZINHA \"TE\"\"")
        let path = try S.temporaryFile("broken.txt", latin1: text)
        let (_, records, rejects) = try S.readAll(path)
        #expect(records.count == 36)
        let bad = try #require(rejects.first)
        #expect(bad.location == SourceLocation(file: "broken.txt", line: 1, column: 15))
        #expect(bad.reason.contains("after the closing quote"))
        #expect(records.first?.location.line == 2)
    }

    @Test("a header broken beyond reading refuses the file, naming the header's problem")
    func brokenHeader() throws {
        let path = try S.temporaryFile("h.csv", latin1: "\"SQ_CANDIDATO\"x;\"NR_CANDIDATO\"\n\"1\";\"2\"\n")
        #expect {
            _ = try TSEFileReader(path: path)
        } throws: { error in
            guard case .unreadableFirstRow(let row)? = error as? RecordFileError else { return false }
            return row.location == SourceLocation(file: "h.csv", line: 1, column: 1)
        }
    }

    @Test("a truncated last line (no newline) still yields its record")
    func truncatedLastRecord() throws {
        var bytes = Array(
            try Data(contentsOf: URL(fileURLWithPath: S.fixture("consulta_legendas_2016_AC.original-noheader.txt"))))
        #expect(bytes.last == UInt8(ascii: "\n"))
        bytes.removeLast()
        let (_, records, rejects) = try S.readAll(try S.temporaryFile("legendas.txt", bytes))
        #expect(records.count == 47)
        #expect(rejects.isEmpty)
        #expect(records.last?["SQ_COLIGACAO"] == "10000000216")
    }

    @Test("an unrecognisable file throws an error naming the file and the missing columns")
    func unknownFile() throws {
        let path = try S.temporaryFile("pessoas.csv", latin1: "\"NOME\";\"IDADE\"\n\"Ana\";\"30\"\n")
        #expect {
            _ = try TSEFileReader(path: path)
        } throws: { error in
            guard let error = error as? RecordFileError, case .unrecognized(let file, _, let missing) = error else {
                return false
            }
            return file == "pessoas.csv" && missing.contains("SQ_CANDIDATO")
                && error.description.contains(
                    "missing columns: CD_ELEICAO or ANO_ELEICAO+NR_TURNO+DS_ELEICAO, SQ_CANDIDATO")
        }
    }

    @Test("an empty file and a missing file are clear errors")
    func emptyAndMissing() throws {
        let empty = try S.temporaryFile("empty.csv", [])
        #expect {
            _ = try TSEFileReader(path: empty)
        } throws: { error in
            guard case .empty(let file)? = error as? RecordFileError else { return false }
            return file == "empty.csv"
        }
        #expect {
            _ = try TSEFileReader(path: "/nonexistent/dir/consulta.csv")
        } throws: { error in
            guard case .io(let file, _, let code, _)? = error as? RecordFileError else { return false }
            return file == "/nonexistent/dir/consulta.csv" && code == ENOENT
        }
    }

    @Test("a UTF-8 re-save of a TSE file (with BOM) reads the same values")
    func utf8Resave() throws {
        let latin = try String(contentsOfFile: S.fixture("consulta_cand_2020_AC.63col.csv"), encoding: .isoLatin1)
        let path = try S.temporaryFile("utf8.csv", [0xEF, 0xBB, 0xBF] + Array(latin.utf8))
        let (reader, records, rejects) = try S.readAll(path)
        let original = try S.readAll(S.fixture("consulta_cand_2020_AC.63col.csv")).records
        #expect(reader.encoding == .utf8)
        #expect(reader.layoutName == "consulta_cand 63 columns (2020)")
        #expect(rejects.isEmpty)
        #expect(records.map(\.values) == original.map(\.values))
    }

    @Test("iterating as a Sequence gives the same items as next()")
    func sequence() throws {
        let reader = try TSEFileReader(path: S.fixture("bem_candidato_2018_BR.csv"))
        var count = 0
        for item in reader {
            if case .record = item { count += 1 }
        }
        #expect(count == 60)
        #expect(reader.failure == nil)
    }

    @Test("records built from strings (the XML reader's way) answer the same API")
    func stringRecords() {
        let columns = ColumnIndex(names: ["SQ_CANDIDATO", "NM_CANDIDATO"])
        let record = Record(
            kind: .candidate, columns: columns, values: ["123", nil], location: SourceLocation(file: "a.xml", line: 7),
            rawBytes: [1, 2])
        #expect(record.fieldCount == 2)
        #expect(record["SQ_CANDIDATO"] == "123")
        #expect(record["NM_CANDIDATO"] == nil)
        #expect(record.value(at: 5) == nil)
        #expect(record.rawBytes == [1, 2])
        #expect(record.location(of: "NM_CANDIDATO") == SourceLocation(file: "a.xml", line: 7, column: 2))
    }
}
