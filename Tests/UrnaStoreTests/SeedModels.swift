import Foundation
import UrnaStore

// The seeds' models, declared the way seed 002 shows.

final class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<DogOwner>
}

/// Seed 000's `Person` with dogs (named DogOwner here: the migration tests own "Person").
final class DogOwner: Object {
    override class var typeName: String { "Person" }
    @Persisted var name = ""
    @Persisted var birthdate = Date(timeIntervalSince1970: 1)
    @Persisted var dogs: List<Dog>
}

final class Book: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var price = 0
    @Persisted(indexed: true) var title = ""
    var scratch = "not stored"
}

final class TaskList: Object {
    @Persisted var name = ""
    @Persisted var createdAt = Date(timeIntervalSince1970: 0)
    @Persisted var tasks: List<TaskItem>
}

final class TaskItem: Object {
    override class var typeName: String { "Task" }
    @Persisted var name = ""
    @Persisted var createdAt = Date(timeIntervalSince1970: 0)
    @Persisted var notes = ""
    @Persisted var isCompleted = false
}

// Seed 000's iElections model, as written there.
final class Candidate: Object {
    @Persisted(primaryKey: true) var id: Int16 = 0
    @Persisted(indexed: true) var nickname = ""
    @Persisted var name = ""
    @Persisted var post = ""
    @Persisted var birthdate = Date(timeIntervalSince1970: 0)
    @Persisted var sex = ""
    @Persisted var colorRace = ""
    @Persisted var maritalStatus = ""
    @Persisted var nationality = ""
    @Persisted var naturalness = ""
    @Persisted var literacy = ""
    @Persisted var occupation = ""
    @Persisted var party: Party?
    @Persisted var coalition: Coalition?
    @Persisted var processNumber = ""
    @Persisted var protocolNumber = ""
    @Persisted var spendingLimitFirstRound = 0.0
    @Persisted var spendingLimitSecondRound = 0.0
    @Persisted var image = ""
    @Persisted var site: String?
    @Persisted var vice: Candidate?
    @Persisted var goods: List<Good>
    @Persisted(originProperty: "vice") var holder: LinkingObjects<Candidate>
}

final class Coalition: Object {
    @Persisted(primaryKey: true) var id: Int16 = 0
    @Persisted var name = ""
    @Persisted var parties: List<Party>
    @Persisted(originProperty: "coalition") var candidates: LinkingObjects<Candidate>
}

final class Party: Object {
    @Persisted(primaryKey: true) var id: Int16 = 0
    @Persisted var number: Int16 = 0
    @Persisted var acronym = ""
    @Persisted var name = ""
    @Persisted var president = ""
    @Persisted(originProperty: "party") var candidates: LinkingObjects<Candidate>
    @Persisted(originProperty: "parties") var coalition: LinkingObjects<Coalition>
}

final class Good: Object {
    @Persisted(primaryKey: true) var id: Int16 = 0
    @Persisted var goodDescription = ""
    @Persisted var type: GoodType?
    @Persisted var value = 0.0
    @Persisted(originProperty: "goods") var candidate: LinkingObjects<Candidate>
}

final class GoodType: Object {
    @Persisted(primaryKey: true) var id: Int16 = 0
    @Persisted var typedescription = ""
    @Persisted(originProperty: "type") var goods: LinkingObjects<Good>
}

enum SeedSchemas {
    static func dogs() throws -> Schema { try Schema(family: "dogs", version: 0, models: [Dog.self, DogOwner.self]) }
    static func books() throws -> Schema { try Schema(family: "books", version: 0, models: [Book.self]) }
    static func tasks() throws -> Schema {
        try Schema(family: "tasks", version: 0, models: [TaskList.self, TaskItem.self])
    }
    static func elections() throws -> Schema {
        try Schema(
            family: "elections", version: 1,
            models: [Candidate.self, Coalition.self, Party.self, Good.self, GoodType.self])
    }

    static func date(_ s: String) -> Date {
        let p = s.split(separator: "/").map { Int($0)! }
        return ISODate.date(year: p[2], month: p[1], day: p[0])
    }

    /// Seed 000's loadData(): the Vanessa Portugal ticket.
    static func loadVanessaPortugal(into store: Store) throws {
        try store.write {
            let pstu = Party(value: [
                "id": Int16(17), "acronym": "PSTU", "name": "PARTIDO SOCIALISTA DOS TRABALHADORES UNIFICADO",
                "president": "JOSÉ MARIA DE ALMEIDA", "number": Int16(16),
            ])
            try store.add(pstu)
            let coalition16 = Coalition(value: ["id": Int16(11), "name": "-", "parties": [pstu]])
            try store.add(coalition16)
            let house = GoodType(value: ["id": Int16(2), "typedescription": "Casa"])
            let bank = GoodType(value: [
                "id": Int16(4), "typedescription": "Depósito bancário em conta corrente no País",
            ])
            let vehicle = GoodType(value: [
                "id": Int16(5), "typedescription": "Veículo automotor terrestre: caminhão, automóvel, moto, etc.",
            ])
            let land = GoodType(value: ["id": Int16(7), "typedescription": "Terreno"])
            try store.add([house, bank, vehicle, land])
            let goods = [
                Good(value: [
                    "id": Int16(225), "goodDescription": "VALOR EM CONTA BANCÁRIA", "type": bank, "value": 100_000.00,
                ]),
                Good(value: [
                    "id": Int16(226), "goodDescription": "CASA EM BOA ESPERANÇA", "type": house, "value": 150_000.00,
                ]),
                Good(value: [
                    "id": Int16(227), "goodDescription": "1/6 DE GLEBA DE 64 HA", "type": land, "value": 10_000.00,
                ]),
                Good(value: [
                    "id": Int16(228), "goodDescription": "1/6 DE GLEBA DE 10 HA", "type": land, "value": 1_000.00,
                ]),
                Good(value: [
                    "id": Int16(229), "goodDescription": "CARRO FIAT UNO 2011", "type": vehicle, "value": 14_000.00,
                ]),
            ]
            try store.add(goods)
            let vanessa = Candidate(value: [
                "id": Int16(21), "nickname": "VANESSA PORTUGAL", "name": "VANESSA PORTUGAL BARBOSA",
                "post": "Prefeito - BELO HORIZONTE/MG", "birthdate": date("12/04/1970"), "sex": "Feminino",
                "colorRace": "BRANCA", "maritalStatus": "Casado(a)", "nationality": "Brasileira nata",
                "naturalness": "MG-BOA ESPERANÇA", "literacy": "Superior completo",
                "occupation": "Professor de Ensino Fundamental", "party": pstu, "coalition": coalition16,
                "processNumber": "1458-37.2016.6.13.0029", "protocolNumber": "3663562016",
                "spendingLimitFirstRound": 26_697_376.47, "spendingLimitSecondRound": 8_009_212.94,
                "site": "Nenhum site cadastrado.", "image": "130000084715", "goods": goods,
                "vice": [
                    "id": Int16(22), "nickname": "FIRMINIA RODRIGUES", "name": "FIRMINIA MARIA OLIVEIRA RODRIGUES",
                    "post": "Vice-prefeito - BELO HORIZONTE/MG", "birthdate": date("22/09/1980"), "sex": "Feminino",
                    "colorRace": "PRETA", "maritalStatus": "Solteiro(a)", "nationality": "Brasileira nata",
                    "naturalness": "MG-BELO HORIZONTE", "literacy": "Superior completo",
                    "occupation": "Estudante, Bolsista, Estagiário e Assemelhados", "party": pstu,
                    "coalition": coalition16,
                    "processNumber": "1459-22.2016.6.13.0029", "protocolNumber": "3663572016",
                    "spendingLimitFirstRound": 0.0, "spendingLimitSecondRound": 0.0,
                    "site": "Nenhum site cadastrado.", "image": "130000084717",
                ] as [String: Any],
            ])
            try store.add(vanessa)
        }
    }
}
