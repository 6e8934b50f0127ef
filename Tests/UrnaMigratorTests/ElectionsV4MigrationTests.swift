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
        #expect(try FamilyRegistry.recordedSchema(at: once) == ElectionsV5.schema)
    }
}
