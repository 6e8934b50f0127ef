import Foundation
import Synchronization
import Testing
import UrnaRecords
import UrnaSchemas
import UrnaStore

@testable import UrnaImport

/// The writer is the mapper's inverse: what `TSEColumnWriter` writes, `ElectionMapper` reads back as the values
/// it started from, for every record of every sample layout and for edge values; and the stored-row readers
/// are the inverse of the importer's `bind(to:)`.
@Suite struct ExportColumnTests {
    @Test func everyColumnTheMapperReadsIsWrittenSomewhere() {
        func mapperColumns(_ layout: [ExportColumn]) -> Set<MapperColumn> {
            Set(layout.compactMap { if case .mapper(let c) = $0 { c } else { nil } })
        }
        let candidateCSV = mapperColumns(ExportLayouts.candidateCSV)
        let assetCSV = mapperColumns(ExportLayouts.assetCSV)
        let coalitionCSV = mapperColumns(ExportLayouts.coalitionCSV)
        for c in MapperColumn.allCases {
            switch TSEColumnWriter.source(of: c) {
            case .good, .goodType:
                #expect(assetCSV.contains(c), "\(c.name)")
                #expect(ExportLayouts.assetXML.contains(c), "\(c.name)")
            case .party, .coalition:
                #expect(candidateCSV.contains(c) && coalitionCSV.contains(c), "\(c.name)")
                #expect(ExportLayouts.candidateXML.contains(c) && ExportLayouts.coalitionXML.contains(c), "\(c.name)")
            case .election, .candidate:
                #expect(candidateCSV.contains(c), "\(c.name)")
                #expect(ExportLayouts.candidateXML.contains(c), "\(c.name)")
            case .generation:
                #expect(ExportLayouts.candidateCSV.contains(.generationDate), "\(c.name)")
                #expect(ExportLayouts.candidateCSV.contains(.generationTime), "\(c.name)")
            }
        }
        // The asset file keys its rows as the mapper needs.
        for key in [MapperColumn.CD_ELEICAO, .ANO_ELEICAO, .DS_ELEICAO, .SQ_CANDIDATO] {
            #expect(assetCSV.contains(key))
        }
        // The 75 columns of the newest layout, then the two only originals have.
        #expect(ExportLayouts.candidateCSV.count == 77)
        #expect(ExportLayouts.candidateCSV.suffix(2).map(\.name) == ["SG_COLIGACAO", "NR_IDADE_DATA_ELEICAO"])
        #expect(ExportLayouts.assetCSV.count == 19)
    }

    static let samples = [
        "sample_consulta_cand_2012_AC.original-noheader.txt", "sample_consulta_cand_2018_BRASIL.58col.csv",
        "sample_consulta_cand_2018_MG.58col.csv", "sample_consulta_cand_2020_AC.63col.csv",
        "sample_consulta_cand_2022_AC.71col.csv", "sample_bem_candidato_2018_MG.csv",
        "consulta_legendas_2016_AC.original-noheader.txt.zip",
    ]

    @Test(arguments: samples)
    func writtenColumnsMapBackToTheSameValues(_ file: String) throws {
        let reader = try TSEFileReader(path: ImportTestSupport.fixture(file))
        let first = ElectionMapper(keepPersonalData: true)
        let again = ElectionMapper(keepPersonalData: true)
        var checked = 0
        while let item = try reader.next() {
            guard case .record(let record) = item else { continue }
            guard case .success(let mapped) = first.map(record) else { continue }
            switch mapped {
            case .candidacy(let c):
                let row = TSERowObjects(
                    election: c.election, candidate: c.candidate, party: c.party, coalition: c.coalition)
                guard case .candidacy(let back) = try remap(row, kind: .candidate, with: again) else {
                    Issue.record("not a candidacy")
                    continue
                }
                #expect(back.election == c.election)
                #expect(back.candidate == c.candidate)
                #expect(back.party == c.party)
                #expect(back.coalition == c.coalition)
            case .asset(let a):
                let (election, candidate) = try Self.owner(of: a.good, in: record)
                let row = TSERowObjects(election: election, candidate: candidate, good: a.good, goodType: a.goodType)
                guard case .asset(let back) = try remap(row, kind: .asset, with: again) else {
                    Issue.record("not an asset")
                    continue
                }
                #expect(back.good == a.good)
                #expect(back.goodType == a.goodType)
            case .coalitionMember(let m):
                let row = TSERowObjects(party: m.party, coalition: m.coalition)
                guard case .coalitionMember(let back) = try remap(row, kind: .coalition, with: again) else {
                    Issue.record("not a coalition member")
                    continue
                }
                #expect(back.coalition == m.coalition)
                #expect(back.party == m.party)
            }
            checked += 1
        }
        #expect(checked > 10)
    }

    @Test func edgeValuesMapBack() throws {
        let mapper = ElectionMapper(keepPersonalData: true)
        let limits: [Int64?] = [nil, 0, 1, 99, 100, 127_062_901, -100, -5, 9_223_372_036_854_775_800]
        for (i, limit) in limits.enumerated() {
            for round: Int64 in [1, 2] {
                var election = Self.election
                election.round = round
                election.id = "2018/\(round)/ELEICOES GERAIS ESTADUAIS 2018"
                election.date = "2018-10-07T08:30:00.000Z"
                var candidate = Self.candidate(sequence: Int64(i + 1), electionID: election.id)
                candidate.birthdate = i % 2 == 0 ? "0999-01-02T00:00:00.000Z" : "2000-02-29T00:00:00.000Z"
                candidate.spendingLimitFirstRound = round == 1 ? limit : nil
                candidate.spendingLimitSecondRound = round == 2 ? limit : nil
                let row = TSERowObjects(election: election, candidate: candidate)
                guard case .candidacy(let back) = try remap(row, kind: .candidate, with: mapper) else {
                    Issue.record("not a candidacy")
                    continue
                }
                // A negative amount is out of its domain: read back as unknown, with a warning.
                var expected = candidate
                if let limit, limit < 0 {
                    expected.spendingLimitFirstRound = nil
                    expected.spendingLimitSecondRound = nil
                    #expect(back.warnings.map(\.location.column).count == 1)
                }
                #expect(back.candidate == expected, "limit \(String(describing: limit)), round \(round)")
                #expect(back.election == election)
            }
        }
        for cents: Int64 in [0, 1, -5, 10, 366_904, 123_456_789_012] {
            for updatedAt in [nil, "2018-09-19T10:12:53.000Z", "2018-09-19T00:00:00.000Z"] {
                let owner = Self.candidate(sequence: 1, electionID: Self.election.id)
                var good = GoodValues(
                    id: owner.id + "/7", candidateID: owner.id, order: 7, goodDescription: "", typeID: nil,
                    valueCents: cents, updatedAt: updatedAt)
                good.sequence = 1
                let row = TSERowObjects(election: Self.election, candidate: owner, good: good)
                guard case .asset(let back) = try remap(row, kind: .asset, with: mapper) else {
                    Issue.record("not an asset")
                    continue
                }
                if cents < 0 { good.valueCents = nil }
                #expect(back.good == good)
                #expect(back.goodType == nil)
            }
        }
    }

    @Test func textsTSEFilesCannotCarryAreRefused() {
        #expect(throws: TSEColumnWriter.Problem.self) { try TSEText.date("2018-09-19T10:12:53.250Z", withTime: true) }
        #expect(throws: TSEColumnWriter.Problem.self) { try TSEText.date("yesterday", withTime: true) }
        #expect(TSEText.spendingLimit(-100) == "-1.00")  // never "-1", a null marker
        #expect(TSEText.assetValue(-5) == "-0,05")
    }

    /// Reading a stored row back gives what the importer bound into it, column for column.
    @Test func storedRowReadersInvertTheImportersBindings() throws {
        let c = try Connection(path: ":memory:")
        func roundTrip<T: UpsertRow & Equatable>(
            _ value: T, columns: Int, _ read: (inout StoredRowReader) throws -> T
        ) throws {
            let s = try c.prepare("SELECT " + (1...columns).map { "?\($0)" }.joined(separator: ", "))
            for (i, v) in value.row.enumerated() { s.bindValue(v, Int32(i + 1)) }
            #expect(try s.step())
            var r = StoredRowReader(s)
            #expect(try read(&r) == value)
            #expect(r.index == columns)
        }
        var candidate = Self.candidate(sequence: 130_000_614_380, electionID: Self.election.id)
        candidate.cpf = "01234567890"
        candidate.generatedAt = "2019-11-27T10:00:00.000Z"
        candidate.sourceValues[0] = .integer(2)
        candidate.sourceValues[15] = .text("03")
        candidate.spendingLimitSecondRound = 5
        candidate.birthdate = "1967-03-27T00:00:00.000Z"
        try roundTrip(candidate, columns: ElectionColumns.candidate.count) { try CandidateValues(&$0) }
        try roundTrip(Self.election, columns: ElectionColumns.election.count) { try ElectionValues(&$0) }
        try roundTrip(
            PartyValues(id: "2018/27", year: 2018, number: 27, acronym: "DC", name: "DEMOCRACIA CRISTÃ"),
            columns: ElectionColumns.party.count
        ) { try PartyValues(&$0) }
        try roundTrip(
            CoalitionValues(
                id: "2018/AC/900", year: 2018, unit: "AC", sequence: 900, name: "X", composition: nil, kind: "COLIGAÇÃO"
            ),
            columns: ElectionColumns.coalition.count
        ) { try CoalitionValues(&$0) }
        try roundTrip(
            GoodTypeValues(year: 2018, code: 12, typedescription: "Casa"), columns: ElectionColumns.goodType.count
        ) { try GoodTypeValues(&$0) }
        // A stored good names its type by key (`<year>/<code>`); the code is the type's.
        try roundTrip(
            GoodValues(
                id: candidate.id + "/1", candidateID: candidate.id, order: 1, goodDescription: "d", typeID: nil,
                valueCents: 366_904, updatedAt: nil, typeKey: "2018/12"), columns: ElectionColumns.good.count
        ) { try GoodValues(&$0, candidateID: candidate.id) }
    }

    // MARK: - Helpers

    /// Writes `row` as a record of the export layout for `kind`, then maps it again.
    private func remap(_ row: TSERowObjects, kind: RecordKind, with mapper: ElectionMapper) throws -> MappedRecord {
        var columns: [ExportColumn]
        switch kind {
        case .candidate: columns = ExportLayouts.candidateCSV
        case .asset: columns = ExportLayouts.assetCSV
        case .coalition: columns = ExportLayouts.coalitionCSV
        }
        let values: [String?] = try columns.map { column in
            switch column {
            case .mapper(let c): try TSEColumnWriter.text(c, row) ?? "\(TSEColumnWriter.nullText(c.name))"
            case .generationDate: try TSEColumnWriter.text(.DT_GERACAO, row) ?? "#NULO#"
            case .generationTime: try TSEColumnWriter.text(.HH_GERACAO, row) ?? "#NULO#"
            case .source(let k):
                try TSEColumnWriter.sourceText(k, row) ?? "\(TSEColumnWriter.nullText(column.name))"
            case .unread(let name): "\(TSEColumnWriter.nullText(name))"
            }
        }
        let record = Record(
            kind: kind, columns: Self.index(columns.map(\.name)), values: values,
            location: SourceLocation(file: "written", line: 1), rawBytes: [])
        switch mapper.map(record) {
        case .success(let mapped): return mapped
        case .failure(let problem): throw ExportTestError("the mapper refused what the writer wrote: \(problem)")
        }
    }

    /// One `ColumnIndex` per column list, kept alive: the mapper caches positions by the index's identity, as
    /// readers hand it one index per file.
    private static func index(_ names: [String]) -> ColumnIndex {
        indexes.withLock { cache in
            if let known = cache[names] { return known }
            let index = ColumnIndex(names: names)
            cache[names] = index
            return index
        }
    }

    private static let indexes = Mutex<[[String]: ColumnIndex]>([:])

    /// An asset's election and candidacy as the asset record names them (the sample has no candidacy file).
    private static func owner(of good: GoodValues, in record: Record) throws -> (ElectionValues, CandidateValues) {
        let parts = good.candidateID.split(separator: "/")
        let electionID = parts.dropLast(2).joined(separator: "/")
        let year = Int64(record["ANO_ELEICAO"] ?? "") ?? 0
        let election = ElectionValues(
            id: electionID, code: Int64(record["CD_ELEICAO"] ?? ""), year: year, round: 1,
            electionDescription: TSEField.text(record["DS_ELEICAO"]) ?? "", kind: nil, date: nil)
        return (
            election,
            candidate(sequence: Int64(parts.last!)!, electionID: electionID, unit: String(parts[parts.count - 2]))
        )
    }

    static let election = ElectionValues(
        id: "2018/1/ELEICOES GERAIS ESTADUAIS 2018", code: 297, year: 2018, round: 1,
        electionDescription: "Eleições Gerais Estaduais 2018",
        kind: "ELEIÇÃO ORDINÁRIA", date: "2018-10-07T00:00:00.000Z")

    static func candidate(sequence: Int64, electionID: String, unit: String = "AC") -> CandidateValues {
        var c = CandidateValues(
            id: "\(electionID)/\(unit)/\(sequence)", sequence: sequence, electionID: electionID,
            round: Int64(electionID.split(separator: "/")[1]) ?? 1, number: nil, nickname: "",
            name: "", socialName: nil, post: "", postCode: 0, state: "", unit: unit, unitName: "", birthdate: nil,
            sex: "", colorRace: "", maritalStatus: "", nationality: "", birthState: nil, birthCity: nil, literacy: "",
            occupation: "", partyID: nil, coalitionID: nil, processNumber: "", protocolNumber: "",
            spendingLimitFirstRound: nil, spendingLimitSecondRound: nil, email: nil, cpf: nil, voterId: nil,
            status: nil, result: nil)
        c.sourceValues = [SQLValue](repeating: .null, count: ElectionsV4.sourceColumns.count)
        return c
    }
}
