import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

/// v5 → v6: good types per election year. Each v5 type becomes one type per year whose goods name it, with the
/// description v5 kept; a type no good names, and the type of a good without a candidacy, go under year 0.
@Suite struct ElectionsV6MigrationTests {
    static let head2014 = "2014/1/ELEICOES GERAIS 2014/AC/10000000121"
    static let head2018 = "2018/1/ELEICOES GERAIS 2018/MG/130000614380"

    /// A v5 file with goods of two years that share code 73, a type no good names (99) and a good whose
    /// candidacy was deleted (its link is nil). Type 73 holds 2018's text and generation (the newest file's, as v5
    /// kept it); the 2014 goods come from an older generation.
    static func twoYearsV5(at path: String) throws {
        let store = try Store(path: path, schema: ElectionsV5.schema)
        try store.write {
            let fund = try store.create(
                "GoodType",
                value: [
                    "id": 73, "typedescription": "Fundo de Investimento Imobiliário", "generatedAt": Self.generated,
                ])
            let car = try store.create("GoodType", value: ["id": 21, "typedescription": "Veículo automotor terrestre"])
            try store.create("GoodType", value: ["id": 99, "typedescription": "Outros bens"])
            for (id, year, description) in [
                ("2014/1/ELEICOES GERAIS 2014", 2014, "Eleições Gerais 2014"),
                ("2018/1/ELEICOES GERAIS 2018", 2018, "Eleições Gerais 2018"),
            ] {
                try store.create(
                    "Election", value: ["id": id, "year": year, "round": 1, "electionDescription": description])
            }
            for (head, election, sequence, generation) in [
                (head2014, "2014/1/ELEICOES GERAIS 2014", 10_000_000_121 as Int64, Self.generated2014),
                (head2018, "2018/1/ELEICOES GERAIS 2018", 130_000_614_380 as Int64, Self.generated),
            ] {
                let candidate = try store.create(
                    "Candidate",
                    value: [
                        "id": head, "sequence": sequence,
                        "election": try store.object(ofType: "Election", forPrimaryKey: .string(election))!,
                    ])
                var goods: [LinkTarget] = []
                for (order, type) in [(1, fund), (2, car)] {
                    let good = try store.create(
                        "Good",
                        value: [
                            "id": "\(head)/\(order)", "candidacy": candidate, "order": order,
                            "goodDescription": "BEM \(order)", "type": type, "value": Decimal(1000 * order),
                            "generatedAt": generation,
                        ])
                    goods.append(LinkTarget(type: "Good", key: good.primaryKeyValue))
                }
                try candidate.setValue(.list(goods), forKey: "goods")
            }
            try store.create(
                "Good", value: ["id": "orphan/1", "order": 1, "goodDescription": "SEM CANDIDATURA", "type": fund])
        }
    }

    static let generated = ISODate.date(year: 2018, month: 9, day: 27)
    static let generated2014 = ISODate.date(year: 2018, month: 4, day: 22)

    /// The GoodType rows and each good's type, as text.
    static func types(_ path: String) throws -> (types: [String], links: [String]) {
        let c = try Connection(path: path, readOnly: true, create: false)
        let types = try c.rows(
            "SELECT id || ' ' || year || ' ' || code || ' ' || typedescription || ' ' || coalesce(generatedAt, '-') "
                + "FROM GoodType ORDER BY id"
        ).map { "\($0[0])" }
        let links = try c.rows("SELECT id || ' -> ' || coalesce(type, 'nil') FROM Good ORDER BY id").map { "\($0[0])" }
        return (types, links)
    }

    @Test func v5FileMigratesToPerYearTypesDryRunFirst() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try Self.twoYearsV5(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let dumpBefore = try Fixture.dump(path)
        let migrator = Migrator(family: SchemaFamilies.elections)

        let dry = try migrator.dryRun(path: path)
        #expect(dry.outcome == .previewed, "\(dry.failures.map(\.message))")
        #expect(dry.versionPath == [5, 6])
        #expect(dry.countsAfter["GoodType"] == 6, "\(dry.countsAfter)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)

        let report = try migrator.run(try migrator.plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
        #expect(report.versionPath == [5, 6])
        #expect(try FamilyRegistry.recordedSchema(at: path) == ElectionsV6.schema)
        let stamp = "2018-09-27T00:00:00.000Z"
        let (types, links) = try Self.types(path)
        #expect(
            types == [
                "0/73 0 73 Fundo de Investimento Imobiliário -", "0/99 0 99 Outros bens -",
                "2014/21 2014 21 Veículo automotor terrestre -",
                // Not 2014's text (v5 lost it): no generation, so importing 2014's goods again replaces it.
                "2014/73 2014 73 Fundo de Investimento Imobiliário -",
                "2018/21 2018 21 Veículo automotor terrestre -",
                "2018/73 2018 73 Fundo de Investimento Imobiliário \(stamp)",
            ])
        #expect(
            links == [
                "\(Self.head2014)/1 -> 2014/73", "\(Self.head2014)/2 -> 2014/21", "\(Self.head2018)/1 -> 2018/73",
                "\(Self.head2018)/2 -> 2018/21", "orphan/1 -> 0/73",
            ])
        // Every other table is as it was (the goods' other columns too).
        var after = try Fixture.dump(path)
        var expected = dumpBefore
        after["GoodType"] = nil
        expected["GoodType"] = nil
        let typeColumn = 4  // id, candidacy, order, goodDescription, then type (ElectionsV4.good's order)
        func withoutType(_ rows: [String]?) -> [String] {
            (rows ?? []).map { $0.split(separator: "|", omittingEmptySubsequences: false) }
                .map { cells in
                    cells.enumerated().filter { $0.offset != typeColumn }.map(\.element).joined(separator: "|")
                }
                .sorted()
        }
        #expect(withoutType(after["Good"]) == withoutType(expected["Good"]))
        after["Good"] = nil
        expected["Good"] = nil
        #expect(after == expected)
        // The goods view gives the code, as v5's did.
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT ANO_ELEICAO, CD_TIPO_BEM_CANDIDATO FROM goods WHERE good_id LIKE '%/1' ORDER BY good_id")
                == [[.integer(2014), .integer(73)], [.integer(2018), .integer(73)], [.null, .integer(73)]])
        #expect(try c.integer("SELECT sum(\"value\") FROM Good") == 600_000)  // cents: 1,000 + 2,000 reais twice
        #expect(try c.rows("PRAGMA foreign_key_check").isEmpty)
        let history = try c.rows("SELECT from_version, to_version FROM _urna_history ORDER BY rowid")
        #expect(history.last == [.integer(5), .integer(6)])
    }

    /// The v6 importer then writes each year's own text beside what the migration kept.
    @Test func theImporterOpensTheMigratedFile() throws {
        let dir = try Fixture.directory()
        let path = dir.file("elections.sqlite")
        try Self.twoYearsV5(at: path)
        let migrator = Migrator(family: SchemaFamilies.elections)
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
        let store = try Store(path: path, schema: ElectionsV6.schema)
        let fund2014 = try #require(try store.object(ofType: "GoodType", forPrimaryKey: .string("2014/73")))
        #expect(try fund2014.value(atKeyPath: "code") == .int(73))
        #expect(try store.objects("Good").filter("type.code == 73").count == 3)
    }
}
