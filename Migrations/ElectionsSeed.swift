import Foundation
import UrnaStore

/// Seed 000's `loadData()`: the Vanessa Portugal ticket (mayor of Belo Horizonte, 2016) with her
/// vice, party, coalition, five goods and four good types, written into an `elections` v1 file, as the
/// seed's app would have left it. `SampleData/elections-v1-seed.sqlite` is made by `createV1File`.
public enum ElectionsSeed {
    /// Writes the seed's objects into a store whose schema is `ElectionsV1.schema`.
    public static func load(into store: Store) throws {
        try store.write {
            let pstu = try store.create(
                "Party",
                value: [
                    "id": 17, "acronym": "PSTU", "name": "PARTIDO SOCIALISTA DOS TRABALHADORES UNIFICADO",
                    "president": "JOSÉ MARIA DE ALMEIDA", "number": 16,
                ])
            let coalition16 = try store.create("Coalition", value: ["id": 11, "name": "-", "parties": [pstu]])

            let house = try store.create("GoodType", value: ["id": 2, "typedescription": "Casa"])
            let bankAccount = try store.create(
                "GoodType", value: ["id": 4, "typedescription": "Depósito bancário em conta corrente no País"])
            let vehicle = try store.create(
                "GoodType",
                value: ["id": 5, "typedescription": "Veículo automotor terrestre: caminhão, automóvel, moto, etc."])
            let land = try store.create("GoodType", value: ["id": 7, "typedescription": "Terreno"])

            var goods: [DynamicObject] = []
            goods.append(
                try store.create(
                    "Good",
                    value: [
                        "id": 225, "goodDescription": "VALOR EM CONTA BANCÁRIA", "type": bankAccount,
                        "value": 100_000.00,
                    ]))
            goods.append(
                try store.create(
                    "Good",
                    value: ["id": 226, "goodDescription": "CASA EM BOA ESPERANÇA", "type": house, "value": 150_000.00]))
            goods.append(
                try store.create(
                    "Good",
                    value: ["id": 227, "goodDescription": "1/6 DE GLEBA DE 64 HA", "type": land, "value": 10_000.00]))
            goods.append(
                try store.create(
                    "Good",
                    value: ["id": 228, "goodDescription": "1/6 DE GLEBA DE 10 HA", "type": land, "value": 1_000.00]))
            goods.append(
                try store.create(
                    "Good",
                    value: ["id": 229, "goodDescription": "CARRO FIAT UNO 2011", "type": vehicle, "value": 14_000.00]))

            try store.create(
                "Candidate",
                value: [
                    "id": 21,
                    "nickname": "VANESSA PORTUGAL",
                    "name": "VANESSA PORTUGAL BARBOSA",
                    "post": "Prefeito - BELO HORIZONTE/MG",
                    "birthdate": ISODate.date(year: 1970, month: 4, day: 12),
                    "sex": "Feminino",
                    "colorRace": "BRANCA",
                    "maritalStatus": "Casado(a)",
                    "nationality": "Brasileira nata",
                    "naturalness": "MG-BOA ESPERANÇA",
                    "literacy": "Superior completo",
                    "occupation": "Professor de Ensino Fundamental",
                    "party": pstu,
                    "coalition": coalition16,
                    "processNumber": "1458-37.2016.6.13.0029",
                    "protocolNumber": "3663562016",
                    "spendingLimitFirstRound": 26_697_376.47,
                    "spendingLimitSecondRound": 8_009_212.94,
                    "site": "Nenhum site cadastrado.",
                    "image": "130000084715",
                    "goods": goods,
                    "vice": [
                        "id": 22,
                        "nickname": "FIRMINIA RODRIGUES",
                        "name": "FIRMINIA MARIA OLIVEIRA RODRIGUES",
                        "post": "Vice-prefeito - BELO HORIZONTE/MG",
                        "birthdate": ISODate.date(year: 1980, month: 9, day: 22),
                        "sex": "Feminino",
                        "colorRace": "PRETA",
                        "maritalStatus": "Solteiro(a)",
                        "nationality": "Brasileira nata",
                        "naturalness": "MG-BELO HORIZONTE",
                        "literacy": "Superior completo",
                        "occupation": "Estudante, Bolsista, Estagiário e Assemelhados",
                        "party": pstu,
                        "coalition": coalition16,
                        "processNumber": "1459-22.2016.6.13.0029",
                        "protocolNumber": "3663572016",
                        "spendingLimitFirstRound": 0.0,
                        "spendingLimitSecondRound": 0.0,
                        "site": "Nenhum site cadastrado.",
                        "image": "130000084717",
                    ] as [String: Any],
                ])
        }
    }

    /// Creates a new v1 file at `path` holding the seed's data, in rollback-journal mode (one file,
    /// no -wal/-shm next to it, so it can be committed and copied as is).
    public static func createV1File(at path: String) throws {
        do {
            let store = try Store(path: path, schema: ElectionsV1.schema)
            try load(into: store)
        }
        let c = try Connection(path: path, create: false)
        try c.execute("PRAGMA journal_mode = DELETE")
        try c.execute("VACUUM")
    }
}
