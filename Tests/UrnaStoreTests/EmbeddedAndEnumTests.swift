import Foundation
import Testing

@testable import UrnaStore

@Suite("Embedded objects and enums")
struct EmbeddedAndEnumTests {
    enum Unit: String, PersistableEnum {
        case engineering = "Engineering"
        case marketing = "Marketing"
    }

    final class Employee: Object {
        @Persisted(primaryKey: true) var id = UUID()
        @Persisted var name = ""
        @Persisted var unit = Unit.engineering
        @Persisted var level: Int8 = 1
    }

    @Test("An enum is stored by its raw value and read back as the enum")
    func enumByRawValue() throws {
        let schema = try Schema(family: "staff", version: 1, models: [Employee.self])
        #expect(schema[type: "Employee"]?[property: "unit"]?.type == .string)
        #expect(schema[type: "Employee"]?[property: "id"]?.primaryKey == true)
        let store = try Store.inMemory(schema: schema)
        let ada = Employee(value: ["name": "Ada", "unit": Unit.marketing])
        try store.write { try store.add(ada) }
        #expect(try store.connection.scalar("SELECT unit FROM Employee") == .text("Marketing"))
        let back = try #require(try store.objects(Employee.self).filter("unit == %@", "Marketing").first)
        #expect(back.unit == .marketing)
        try store.write { back.unit = .engineering }
        #expect(try store.objects(Employee.self).first?.unit == .engineering)
    }

    @Test("An embedded object lives as JSON in its owner's row and answers key-path queries")
    func embeddedObjects() throws {
        let schema = try Schema(
            family: "places", version: 1,
            types: [
                ObjectSchema(
                    "Address", embedded: true,
                    [Property("city", .string, default: ""), Property("state", .string, default: "")]),
                ObjectSchema(
                    "Office",
                    [
                        Property("name", .string, primaryKey: true),
                        Property("address", .embedded("Address"), optional: true),
                    ]),
            ])
        let store = try Store.inMemory(schema: schema)
        try store.write {
            try store.create("Office", value: ["name": "BH", "address": ["city": "Belo Horizonte", "state": "MG"]])
            try store.create("Office", value: ["name": "RB", "address": ["city": "Rio Branco", "state": "AC"]])
            try store.create("Office", value: ["name": "none"])
        }
        let raw = try store.connection.scalar("SELECT address FROM Office WHERE name = 'BH'")
        #expect(raw == .text(#"{"city":"Belo Horizonte","state":"MG"}"#))
        let bh = try #require(try store.object(ofType: "Office", forPrimaryKey: "BH"))
        #expect(try bh.value(atKeyPath: "address.city") == .string("Belo Horizonte"))
        let inMG = try store.objects("Office").filter("address.state == 'MG'")
        #expect(inMG.map { $0.primaryKeyValue } == [.string("BH")])
        #expect(try store.objects("Office").filter("address == nil").count == 1)
        // An embedded type cannot be queried or created on its own.
        #expect(throws: StoreError.unknownType("Address")) { _ = try store.objects("Address") }
    }
}
