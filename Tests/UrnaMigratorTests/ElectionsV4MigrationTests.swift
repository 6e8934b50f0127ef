import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// v3 → v4: identities for every year and generation, per-year parties, goods linked to their candidacy.
@Suite struct ElectionsV4MigrationTests {
    static let election = "2016/1/ELEICOES MUNICIPAIS 2016"

    /// Seed 000's ticket at v3 (the hand-written fixture), migrated to v4: every key re-made, every link followed,
    /// nothing left over from the old keys.
    @Test func seedTicketV3ToV4() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try ElectionsFixtures.file(version: 3, at: path)
        let migrator = Migrator(family: SchemaFamilies.elections)
        let report = try migrator.run(try migrator.plan(path: path, to: 4), backup: .none)
        #expect(report.versionPath == [3, 4])
        let store = try Store(path: path, schema: ElectionsV4.schema)
        #expect(
            try store.counts() == ["Election": 1, "Candidate": 2, "Party": 1, "Coalition": 1, "Good": 5, "GoodType": 4])

        let election = try #require(try store.object(ofType: "Election", forPrimaryKey: .string(Self.election)))
        #expect(election["code"] == .int(220))
        #expect(election["kind"] == .string("ELEIÇÃO ORDINÁRIA"))
        #expect(election["generatedAt"] == nil)

        let head = try #require(
            try store.object(ofType: "Candidate", forPrimaryKey: .string(Self.election + "//130000084715")))
        #expect(head["round"] == .int(1))
        #expect(head["name"] == .string("VANESSA PORTUGAL BARBOSA"))
        #expect(head["birthCity"] == .string("BOA ESPERANÇA"))
        #expect(head["spendingLimitFirstRound"] == .decimal(Decimal(string: "26697376.47")!))
        #expect(head["election"] == .link(LinkTarget(type: "Election", key: .string(Self.election))))
        #expect(head["party"] == .link(LinkTarget(type: "Party", key: "2016/16")))
        #expect(head["coalition"] == .link(LinkTarget(type: "Coalition", key: "2016//11")))
        #expect(head["vice"] == .link(LinkTarget(type: "Candidate", key: .string(Self.election + "//130000084717"))))
        #expect(head["CD_GENERO"] == nil)

        let party = try #require(try store.object(ofType: "Party", forPrimaryKey: "2016/16"))
        #expect(party["year"] == .int(2016))
        #expect(party["number"] == .int(16))
        #expect(party["acronym"] == .string("PSTU"))
        #expect(party["president"] == .string("JOSÉ MARIA DE ALMEIDA"))
        let coalition = try #require(try store.object(ofType: "Coalition", forPrimaryKey: "2016//11"))
        #expect(coalition["sequence"] == .int(11))
        #expect(coalition["composition"] == .string("PSTU"))
        #expect(coalition["parties"] == .list([LinkTarget(type: "Party", key: "2016/16")]))

        guard case .list(let goods) = head["goods"] else {
            Issue.record("no goods list")
            return
        }
        #expect(goods.map(\.key) == (1...5).map { .string(Self.election + "//130000084715/\($0)") })
        for g in goods {
            let good = try #require(try store.object(ofType: "Good", forPrimaryKey: g.key))
            #expect(
                good["candidacy"]
                    == .link(LinkTarget(type: "Candidate", key: .string(Self.election + "//130000084715"))))
        }
    }

    /// v3 kept one label per party number (the last seen): a file holding 2016 and 2018 labels 2016's
    /// number 15 "MDB". The step gives each year the acronym its single-party coalitions published (and
    /// clears the name, which belonged to the other label); a year with no such coalition keeps v3's label.
    @Test func partiesTakeTheirYearsLabelFromSinglePartyCoalitions() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        let v3 = try Store(path: path, schema: Elections.family.schema(version: 3)!)
        try v3.write {
            let mdb = try v3.create(
                "Party", value: ["id": 15, "number": 15, "acronym": "MDB", "name": "MOVIMENTO DEMOCRÁTICO BRASILEIRO"])
            let pt = try v3.create(
                "Party", value: ["id": 13, "number": 13, "acronym": "PT", "name": "PARTIDO DOS TRABALHADORES"])
            let alone2016 = try v3.create(
                "Coalition",
                value: ["id": 1, "name": "PMDB", "composition": "PMDB", "kind": "PARTIDO ISOLADO", "parties": [mdb]])
            let alone2018 = try v3.create(
                "Coalition",
                value: ["id": 2, "name": "MDB", "composition": "MDB", "kind": "PARTIDO ISOLADO", "parties": [mdb]])
            let together2020 = try v3.create(
                "Coalition",
                value: [
                    "id": 3, "name": "JUNTOS", "composition": "MDB / PT", "kind": "COLIGAÇÃO", "parties": [mdb, pt],
                ])
            var elections: [Int: DynamicObject] = [:]
            for (code, year) in [(220, 2016), (297, 2018), (426, 2020)] {
                elections[year] = try v3.create(
                    "Election",
                    value: [
                        "id": "\(code)", "code": code, "year": year, "round": 1,
                        "electionDescription": "ELEICOES \(year)",
                    ])
            }
            for (sq, year, coalition) in [(1, 2016, alone2016), (2, 2018, alone2018), (3, 2020, together2020)] {
                try v3.create(
                    "Candidate",
                    value: [
                        "id": "\(sq)", "sequence": sq, "election": elections[year]!, "number": 15, "name": "C\(sq)",
                        "unit": "U", "party": mdb, "coalition": coalition,
                    ])
            }
        }
        let migrator = Migrator(family: SchemaFamilies.elections)
        _ = try migrator.run(try migrator.plan(path: path, to: 4), backup: .none)
        let store = try Store(path: path, schema: ElectionsV4.schema)
        let p2016 = try #require(try store.object(ofType: "Party", forPrimaryKey: "2016/15"))
        #expect(p2016["acronym"] == .string("PMDB"))
        #expect(p2016["name"] == .string(""))
        let p2018 = try #require(try store.object(ofType: "Party", forPrimaryKey: "2018/15"))
        #expect(p2018["acronym"] == .string("MDB"))
        #expect(p2018["name"] == .string("MOVIMENTO DEMOCRÁTICO BRASILEIRO"))
        // Only a multi-party coalition in 2020: v3's label stays.
        let p2020 = try #require(try store.object(ofType: "Party", forPrimaryKey: "2020/15"))
        #expect(p2020["acronym"] == .string("MDB"))
        let pt2020 = try #require(try store.object(ofType: "Party", forPrimaryKey: "2020/13"))
        #expect(pt2020["acronym"] == .string("PT"))
    }

    /// v1 → latest in one run equals v1 → v3, then v3 → v4.
    @Test func allAtOnceEqualsStepByStep() throws {
        let dir = try Fixture.directory()
        let once = dir.file("once.sqlite")
        let twice = dir.file("twice.sqlite")
        try ElectionsSeed.createV1File(at: once)
        try ElectionsSeed.createV1File(at: twice)
        let migrator = Migrator(family: SchemaFamilies.elections)
        _ = try migrator.run(try migrator.plan(path: once), backup: .none)
        _ = try migrator.run(try migrator.plan(path: twice, to: 3), backup: .none)
        _ = try migrator.run(try migrator.plan(path: twice), backup: .none)
        #expect(try Fixture.dump(once) == Fixture.dump(twice))
        #expect(try FamilyRegistry.recordedSchema(at: once) == SchemaFamilies.elections.latest)
    }
}
