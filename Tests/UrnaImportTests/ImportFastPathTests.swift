import Foundation
import Testing
import UrnaRecords
import UrnaSchemas
import UrnaStore

@testable import UrnaImport

/// The import's shortcuts (remembered field values, integers read from bytes, asset rows put in
/// candidacy order, early rejects) must give exactly what the plain path gives.
@Suite struct ImportFastPathTests {
    /// The fixture's header and first row (Latin-1), with NM_UE's bytes replaced by `unit` (kept as given)
    /// and SQ_CANDIDATO by `sq`; with `utf8`, every other field is transcoded to UTF-8.
    private func candidateFile(unit: [UInt8], sq: String, utf8: Bool) throws -> [UInt8] {
        let bytes = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv"))))
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true).map { Array($0) }
        let header = lines[0].split(separator: 0x3B, omittingEmptySubsequences: false).map {
            String(decoding: $0, as: UTF8.self)
        }
        var fields = lines[1].split(separator: 0x3B, omittingEmptySubsequences: false).map { Array($0) }
        if utf8 {
            fields = fields.map { Array(String($0.map { Character(Unicode.Scalar($0)) }).utf8) }
        }
        let unitIndex = try #require(header.firstIndex(of: "\"NM_UE\""))
        let sqIndex = try #require(header.firstIndex(of: "\"SQ_CANDIDATO\""))
        fields[unitIndex] = [0x22] + unit + [0x22]
        fields[sqIndex] = Array("\"\(sq)\"".utf8)
        var row: [UInt8] = []
        for (i, f) in fields.enumerated() {
            if i > 0 { row.append(0x3B) }
            row += f
        }
        return lines[0] + [0x0A] + row + [0x0A]
    }

    @Test func rememberedValuesAreKeyedByEncodingToo() throws {
        let folder = try ImportTestSupport.scratchFolder()
        // The same two bytes in the same column: "Ã" and a no-break space in a Latin-1 file, "à" in a UTF-8 one.
        // (Other UTF-8 characters in a file detected as Latin-1 are refused as mixed encodings.)
        let same: [UInt8] = Array("S".utf8) + [0xC3, 0xA0] + Array("O".utf8)
        let latin1 = folder + "/latin1.csv"
        let utf8 = folder + "/utf8.csv"
        try Data(try candidateFile(unit: same, sq: "1", utf8: false)).write(to: URL(fileURLWithPath: latin1))
        try Data(try candidateFile(unit: same, sq: "2", utf8: true)).write(to: URL(fileURLWithPath: utf8))
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([latin1, utf8], into: db)
        #expect(summary.rejected == 0)
        #expect(
            try ImportTestSupport.value(db, "SELECT unitName FROM Candidate WHERE sequence = 1")
                == .text("SÃ O"))  // the no-break space is whitespace, written as a space
        #expect(try ImportTestSupport.value(db, "SELECT unitName FROM Candidate WHERE sequence = 2") == .text("SàO"))
    }

    @Test func rememberedValuesNeverLeakBetweenRowsOrColumns() throws {
        // Every row of the real MG file imported with the interner must equal the plain decoding of its
        // fields: checked on the columns it serves, against TSEField applied to the record's own text.
        let interner = FieldInterner()
        let reader = try TSEFileReader(path: ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv"))
        var checked = 0
        while let item = try reader.next() {
            guard case .record(let record) = item else { continue }
            for column in MapperColumn.allCases where column.repeatsAcrossRows {
                guard let p = record.columns.position(of: column.name) else { continue }
                for reading in [FieldInterner.Reading.text, .code] {
                    let expected =
                        reading == .text ? TSEField.text(record.value(at: p)) : TSEField.code(record.value(at: p))
                    let got = record.withEncodedRow { row in
                        row?.field(p).map { interner.value(column, reading, bytes: $0, encoding: row!.encoding) }
                            ?? FieldInterner.read(reading, record.value(at: p))
                    }
                    #expect(got == expected)
                    checked += 1
                }
            }
        }
        #expect(checked > 1000)
    }

    @Test func plainDigitsAgreeWithTheFullIntegerRule() {
        for text in ["0", "7", "007", "123456789012345678", "1234567890123456789", "", "-1", "12a", " 12", "+3"] {
            let bytes = Array(text.utf8)
            let fast = bytes.withUnsafeBufferPointer { FieldReader.plainDigits($0) }
            if let fast {
                #expect(TSEField.integer(text) == .value(fast), "\(text)")
            } else {
                #expect(bytes.isEmpty || bytes.count > 18 || bytes.contains { $0 < 0x30 || $0 > 0x39 }, "\(text)")
            }
        }
    }

    @Test func rememberedUpdateTimestampsNeverLeakBetweenRows() throws {
        let columns = ColumnIndex(names: [
            "CD_ELEICAO", "ANO_ELEICAO", "SQ_CANDIDATO", "NR_ORDEM_CANDIDATO", "VR_BEM_CANDIDATO",
            "DT_ULTIMA_ATUALIZACAO", "HH_ULTIMA_ATUALIZACAO",
        ])
        let stamps: [(year: String, date: String?, time: String?)] = [
            ("2018", "19/09/2018", "10:12:53"), ("2018", "19/09/2018", "10:12:53"), ("2018", "19/09/2018", "11:00:00"),
            ("2018", "20/09/2018", "11:00:00"), ("2018", "20/09/2018", nil), ("2018", "22-MAR-52", nil),
            ("1950", "22-MAR-52", nil), ("2018", "not a date", nil), ("2018", nil, "10:12:53"),
            ("2018", "19/09/2018", "10:12:53"),
        ]
        let mapper = ElectionMapper()
        for (k, stamp) in stamps.enumerated() {
            let record = Record(
                kind: .asset, columns: columns,
                values: ["297", stamp.year, "1", "\(k + 1)", "1,00", stamp.date, stamp.time],
                location: UrnaRecords.SourceLocation(file: "a.csv", line: k + 2), rawBytes: [])
            let expected = TSEDate.parse(date: stamp.date, time: stamp.time, referenceYear: Int(stamp.year)! + 1)
            switch mapper.map(record) {
            case .success(.asset(let asset)):
                switch expected {
                case .date(let date): #expect(asset.good.updatedAt == date, "row \(k)")
                case .null: #expect(asset.good.updatedAt == nil, "row \(k)")
                case .invalid:
                    // An unreadable timestamp costs the field, with a warning, never the row.
                    #expect(asset.good.updatedAt == nil && asset.warnings.count == 1, "row \(k)")
                }
            case .failure(let problem):
                Issue.record("row \(k) refused: \(problem)")
            default:
                Issue.record("row \(k) is not an asset")
            }
        }
    }

    @Test func childIdsAreWhatInterpolationWrites() {
        let numbers: [Int64] = [0, 1, 9, 10, 99, 100, 250_000_613_880, -1, -10, .max, .min, .max - 1, .min + 1]
        for parent in ["", "297", "2018/1/ELEIÇÃO GERAL", "2020/1/ELEIÇÕES MUNICIPAIS/123"] {
            for number in numbers {
                #expect(ElectionMapper.childID(parent, number) == "\(parent)/\(number)")
            }
        }
    }

    @Test func assetOrderFollowsTheIdsBytesAndKeepsArrival() {
        let ids = [
            "297/130000613212", "297/130000613203", "1297/130000613203", "297/130000613212", "297/13",
            "297/130000613203",
        ]
        let keys = ids.enumerated().map { AssetOrderKey(candidateID: $0.element, index: $0.offset) }.sorted()
        let order = keys.map { Int($0.index) }
        #expect(order.map { ids[$0] } == ids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        // Goods of one candidacy keep their file order.
        #expect(order.filter { ids[$0] == "297/130000613203" } == [1, 5])
        #expect(order.filter { ids[$0] == "297/130000613212" } == [0, 3])
    }

    @Test func assetOrderComparesWholeIdsPastALongSharedPrefix() {
        // Elections v4 candidacy ids share far more than 16 bytes within one election.
        let prefix = "2018/1/ELEICAO GERAL FEDERAL 2018/MG/"
        let ids = [prefix + "130000613212", prefix + "130000600702", prefix + "130000613212", prefix + "13000060070"]
        let keys = ids.enumerated().map { AssetOrderKey(candidateID: $0.element, index: $0.offset) }.sorted()
        #expect(keys.map { Int($0.index) } == [3, 1, 0, 2])
    }

    @Test func assetRunsSortedAsBytesFollowStringOrder() {
        // ASCII ids take the memcmp path, any non-ASCII id the String path: both must give String's order.
        let prefix = "2018/1/ELEICAO GERAL FEDERAL 2018/MG/"
        var ascii: [String] = []
        for k in 0..<400 { ascii.append(prefix + String((k * 7_919) % 1_013)) }
        ascii += [prefix, prefix + "1", "", "2018/1/A", prefix + "130000613212", prefix + "130000613212"]
        for ids in [ascii, ascii + ["2018/1/ELEIÇÃO/MG/1", "2018/1/ELEICAO/MG/1"]] {
            let keys = ids.enumerated().map { AssetOrderKey(candidateID: $0.element, index: $0.offset) }
            #expect(AssetOrderKey.sortedIndices(keys) == keys.sorted().map(\.index))
        }
    }

    @Test func assetsInCandidacyOrderGiveTheSameListsAndRejectsAtOnceWhenNoCandidacyCanFollow() throws {
        let folder = try ImportTestSupport.scratchFolder()
        let cand = ImportTestSupport.fixture("sample_consulta_cand_2018_MG.58col.csv")
        let bens = ImportTestSupport.fixture("sample_bem_candidato_2018_MG.csv")
        let db = folder + "/urna.sqlite"
        let summary = try ImportTestSupport.importFiles([cand, bens], into: db)
        // Each candidacy's list holds its goods in asset order (NR_ORDEM_CANDIDATO), whatever the file's order
        // (the real file lists them 11, 1, 5, ...): compare with the file itself, sorted.
        let rows = try String(contentsOfFile: bens, encoding: .isoLatin1).split(separator: "\n").dropFirst()
        var expected: [String: [String]] = [:]
        for line in rows {
            let f = line.split(separator: ";", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"\r"))
            }
            let year = Int64(f[2]) ?? 0
            let owner = ElectionsV4.electionKey(year: year, round: 1, description: f[6]) + "/\(f[9])/\(f[11])"
            expected[owner, default: []].append("\(owner)/\(f[12])")
        }
        let store = try Store.openExisting(path: db, readOnly: true)
        var compared = 0
        for (owner, unsorted) in expected {
            let goods = unsorted.sorted {
                (Int($0.split(separator: "/").last ?? "") ?? 0) < (Int($1.split(separator: "/").last ?? "") ?? 0)
            }
            let listed = try store.connection.rows(
                "SELECT target FROM Candidate_goods WHERE owner = ? ORDER BY position", [.text(owner)]
            ).compactMap { row -> String? in if case .text(let t) = row[0] { t } else { nil } }
            guard !listed.isEmpty else { continue }  // its candidacy is not in the sample: rejected
            #expect(listed == goods, "\(owner)")
            compared += 1
        }
        #expect(compared > 0)
        // The asset file comes last and no candidacy can follow it: missing candidacies are rejected as
        // they come, none is held, and the rejects are exactly the rows whose candidacy is not there.
        var missing = 0
        for (owner, goods) in expected
        where try store.connection.rows("SELECT 1 FROM Candidate WHERE id = ?", [.text(owner)]).isEmpty {
            missing += goods.count
        }
        #expect(missing > 0)
        #expect(summary.heldAssets == 0)
        #expect(summary.rejected == missing)
    }

    /// Zip members left unread are named unless they are the documents TSE ships beside the data.
    @Test func skippedZipMembersThatMightBeDataAreNamed() {
        #expect(ImportInput.skippedMemberWarning("LEIAME.pdf") == nil)
        #expect(ImportInput.skippedMemberWarning("leiame.txt.pdf") == nil)
        #expect(ImportInput.skippedMemberWarning("__MACOSX/._a.csv") == nil)
        #expect(ImportInput.skippedMemberWarning("dados/") == nil)
        #expect(ImportInput.skippedMemberWarning("y.dat")?.contains("urna reads a zip's .csv and .txt members") == true)
        #expect(ImportInput.skippedMemberWarning("inner.zip")?.contains("a zip inside a zip is not opened") == true)
    }
}
