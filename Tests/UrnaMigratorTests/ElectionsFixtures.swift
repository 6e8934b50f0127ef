import Foundation
import UrnaSchemas
import UrnaStore

/// Seed 000's ticket written directly at each elections version: v1 is the seed's own `loadData()`;
/// v2 and v3 are written by hand from the version notes, so they are what a migration must produce.
enum ElectionsFixtures {
    static func load(version: Int, into store: Store) throws {
        switch version {
        case 1: try ElectionsSeed.load(into: store)
        case 2: try loadTicket(into: store, v3: false)
        case 3: try loadTicket(into: store, v3: true)
        // v5 adds only views (SQL over v4's tables), so its objects are v4's; v6 keys good types by year.
        case 4, 5: try loadTicketV4(into: store)
        case 6: try loadTicketV4(into: store, typesPerYear: true)
        default: preconditionFailure("no elections fixture for v\(version)")
        }
    }

    static func file(version: Int, at path: String) throws {
        let store = try Store(path: path, schema: Elections.family.schema(version: version)!)
        try load(version: version, into: store)
    }

    static let goodRows: [(order: Int, description: String, type: Int, value: String)] = [
        (1, "VALOR EM CONTA BANCÁRIA", 4, "100000"), (2, "CASA EM BOA ESPERANÇA", 2, "150000"),
        (3, "1/6 DE GLEBA DE 64 HA", 7, "10000"), (4, "1/6 DE GLEBA DE 10 HA", 7, "1000"),
        (5, "CARRO FIAT UNO 2011", 5, "14000"),
    ]

    static let goodTypeRows: [(Int, String)] = [
        (2, "Casa"), (4, "Depósito bancário em conta corrente no País"),
        (5, "Veículo automotor terrestre: caminhão, automóvel, moto, etc."), (7, "Terreno"),
    ]

    static func common(_ store: Store, v3: Bool) throws -> (
        party: DynamicObject, coalition: DynamicObject, election: DynamicObject, goods: [DynamicObject]
    ) {
        let party = try store.create(
            "Party",
            value: [
                "id": 16, "number": 16, "acronym": "PSTU", "name": "PARTIDO SOCIALISTA DOS TRABALHADORES UNIFICADO",
                "president": "JOSÉ MARIA DE ALMEIDA",
            ])
        var coalitionValues: [String: Any] = ["id": 11, "name": "-", "parties": [party]]
        if v3 {
            coalitionValues["composition"] = "PSTU"
            coalitionValues["kind"] = "PARTIDO ISOLADO"
        }
        let coalition = try store.create("Coalition", value: coalitionValues)
        var electionValues: [String: Any] = [
            "id": "220", "code": 220, "year": 2016, "round": 1, "electionDescription": "Eleições Municipais 2016",
        ]
        if v3 {
            electionValues["kind"] = "ELEIÇÃO ORDINÁRIA"
            electionValues["date"] = ISODate.date(year: 2016, month: 10, day: 2)
        }
        let election = try store.create("Election", value: electionValues)
        var types: [Int: DynamicObject] = [:]
        for (id, text) in goodTypeRows {
            types[id] = try store.create("GoodType", value: ["id": id, "typedescription": text])
        }
        var goods: [DynamicObject] = []
        for g in goodRows {
            let value: Any = v3 ? Decimal(string: g.value)! : Double(g.value)!
            goods.append(
                try store.create(
                    "Good",
                    value: [
                        "id": "220/130000084715/\(g.order)", "order": g.order, "goodDescription": g.description,
                        "type": types[g.type]!, "value": value,
                    ]))
        }
        return (party, coalition, election, goods)
    }

    /// The seed's ticket (Vanessa Portugal and her vice) as v2 or v3 hold it: v3 splits naturalness into
    /// birth state and city and keeps money as exact decimals.
    static func loadTicket(into store: Store, v3: Bool) throws {
        func birthplace(_ state: String, _ city: String) -> [String: Any] {
            v3 ? ["birthState": state, "birthCity": city] : ["naturalness": "\(state)-\(city)"]
        }
        func money(_ text: String) -> Any { v3 ? Decimal(string: text)! : Double(text)! }
        try store.write {
            let (party, coalition, election, goods) = try common(store, v3: v3)
            let vice: [String: Any] = [
                "id": "220/130000084717", "sequence": 130_000_084_717 as Int64, "election": election, "number": 16,
                "nickname": "FIRMINIA RODRIGUES", "name": "FIRMINIA MARIA OLIVEIRA RODRIGUES", "post": "Vice-prefeito",
                "postCode": 12,
                "state": "MG", "unit": "", "unitName": "BELO HORIZONTE",
                "birthdate": ISODate.date(year: 1980, month: 9, day: 22),
                "sex": "Feminino", "colorRace": "PRETA", "maritalStatus": "Solteiro(a)",
                "nationality": "Brasileira nata", "literacy": "Superior completo",
                "occupation": "Estudante, Bolsista, Estagiário e Assemelhados", "party": party, "coalition": coalition,
                "processNumber": "1459-22.2016.6.13.0029", "protocolNumber": "3663572016",
                "spendingLimitFirstRound": money("0"), "spendingLimitSecondRound": money("0"),
                "image": "130000084717", "site": "Nenhum site cadastrado.",
            ].merging(birthplace("MG", "BELO HORIZONTE")) { $1 }
            let head: [String: Any] = [
                "id": "220/130000084715", "sequence": 130_000_084_715 as Int64, "election": election, "number": 16,
                "nickname": "VANESSA PORTUGAL", "name": "VANESSA PORTUGAL BARBOSA", "post": "Prefeito",
                "postCode": 11,
                "state": "MG", "unit": "", "unitName": "BELO HORIZONTE",
                "birthdate": ISODate.date(year: 1970, month: 4, day: 12),
                "sex": "Feminino", "colorRace": "BRANCA", "maritalStatus": "Casado(a)",
                "nationality": "Brasileira nata", "literacy": "Superior completo",
                "occupation": "Professor de Ensino Fundamental", "party": party, "coalition": coalition,
                "processNumber": "1458-37.2016.6.13.0029", "protocolNumber": "3663562016",
                "spendingLimitFirstRound": money("26697376.47"), "spendingLimitSecondRound": money("8009212.94"),
                "image": "130000084715", "site": "Nenhum site cadastrado.", "goods": goods, "vice": vice,
            ].merging(birthplace("MG", "BOA ESPERANÇA")) { $1 }
            try store.create("Candidate", value: head)
        }
    }

    /// The ticket as v4 holds it: keys for every year and generation (election `year/round/DESCRIPTION`,
    /// candidacy `<election>/<SG_UE>/<SQ>`, party `<year>/<number>`, coalition `<year>/<SG_UE>/<SQ>`), goods
    /// linked to their candidacy; generations and the new TSE columns empty, as v3 data has none.
    /// `typesPerYear`: v6's good types, one per election year (`2016/<code>`).
    static func loadTicketV4(into store: Store, typesPerYear: Bool = false) throws {
        let electionID = "2016/1/ELEICOES MUNICIPAIS 2016"
        let headID = electionID + "//130000084715"
        try store.write {
            let party = try store.create(
                "Party",
                value: [
                    "id": "2016/16", "year": 2016, "number": 16, "acronym": "PSTU",
                    "name": "PARTIDO SOCIALISTA DOS TRABALHADORES UNIFICADO", "president": "JOSÉ MARIA DE ALMEIDA",
                ])
            let coalition = try store.create(
                "Coalition",
                value: [
                    "id": "2016//11", "year": 2016, "unit": "", "sequence": 11, "name": "-", "composition": "PSTU",
                    "kind": "PARTIDO ISOLADO", "parties": [party],
                ])
            let election = try store.create(
                "Election",
                value: [
                    "id": electionID, "code": 220, "year": 2016, "round": 1,
                    "electionDescription": "Eleições Municipais 2016", "kind": "ELEIÇÃO ORDINÁRIA",
                    "date": ISODate.date(year: 2016, month: 10, day: 2),
                ])
            var types: [Int: DynamicObject] = [:]
            for (id, text) in goodTypeRows {
                let values: [String: Any] =
                    typesPerYear
                    ? ["id": "2016/\(id)", "year": 2016, "code": id, "typedescription": text]
                    : ["id": id, "typedescription": text]
                types[id] = try store.create("GoodType", value: values)
            }
            let vice: [String: Any] = [
                "id": electionID + "//130000084717", "sequence": 130_000_084_717 as Int64, "election": election,
                "round": 1, "number": 16, "nickname": "FIRMINIA RODRIGUES", "name": "FIRMINIA MARIA OLIVEIRA RODRIGUES",
                "post": "Vice-prefeito", "postCode": 12, "state": "MG", "unit": "", "unitName": "BELO HORIZONTE",
                "birthdate": ISODate.date(year: 1980, month: 9, day: 22), "sex": "Feminino", "colorRace": "PRETA",
                "maritalStatus": "Solteiro(a)", "nationality": "Brasileira nata", "literacy": "Superior completo",
                "occupation": "Estudante, Bolsista, Estagiário e Assemelhados", "party": party, "coalition": coalition,
                "processNumber": "1459-22.2016.6.13.0029", "protocolNumber": "3663572016",
                "spendingLimitFirstRound": Decimal(0), "spendingLimitSecondRound": Decimal(0),
                "image": "130000084717", "site": "Nenhum site cadastrado.", "birthState": "MG",
                "birthCity": "BELO HORIZONTE",
            ]
            let head = try store.create(
                "Candidate",
                value: [
                    "id": headID, "sequence": 130_000_084_715 as Int64, "election": election, "round": 1, "number": 16,
                    "nickname": "VANESSA PORTUGAL", "name": "VANESSA PORTUGAL BARBOSA", "post": "Prefeito",
                    "postCode": 11, "state": "MG", "unit": "", "unitName": "BELO HORIZONTE",
                    "birthdate": ISODate.date(year: 1970, month: 4, day: 12), "sex": "Feminino", "colorRace": "BRANCA",
                    "maritalStatus": "Casado(a)", "nationality": "Brasileira nata", "literacy": "Superior completo",
                    "occupation": "Professor de Ensino Fundamental", "party": party, "coalition": coalition,
                    "processNumber": "1458-37.2016.6.13.0029", "protocolNumber": "3663562016",
                    "spendingLimitFirstRound": Decimal(string: "26697376.47")!,
                    "spendingLimitSecondRound": Decimal(string: "8009212.94")!, "image": "130000084715",
                    "site": "Nenhum site cadastrado.", "vice": vice, "birthState": "MG", "birthCity": "BOA ESPERANÇA",
                ])
            var goods: [LinkTarget] = []
            for g in goodRows {
                let good = try store.create(
                    "Good",
                    value: [
                        "id": "\(headID)/\(g.order)", "candidacy": head, "order": g.order,
                        "goodDescription": g.description, "type": types[g.type]!, "value": Decimal(string: g.value)!,
                    ])
                goods.append(LinkTarget(type: "Good", key: good.primaryKeyValue))
            }
            try head.setValue(.list(goods), forKey: "goods")
        }
    }
}
