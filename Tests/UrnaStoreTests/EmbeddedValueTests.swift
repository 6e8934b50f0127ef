import Foundation
import Testing

@testable import UrnaStore

/// An embedded object given as a `Value.embedded` (dynamic code, a migration closure's habit) is written as a
/// dictionary is: a property its type lacks is refused (a misspelt key kept its value where no reader looks),
/// the others take their defaults.
@Suite struct EmbeddedValueTests {
    static func store() throws -> Store {
        let schema = try Schema(
            family: "clinic", version: 1,
            types: [
                ObjectSchema(
                    "Address", embedded: true,
                    [Property("street", .string, default: ""), Property("phone", .string, optional: true)]),
                ObjectSchema(
                    "Patient",
                    [
                        Property("id", .int64, primaryKey: true),
                        Property("address", .embedded("Address"), optional: true),
                    ]),
            ])
        return try Store.inMemory(schema: schema)
    }

    @Test func aValueWithAPropertyTheTypeLacksIsRefused() throws {
        let store = try Self.store()
        #expect(throws: StoreError.unknownProperty(type: "Address", property: "phnoe")) {
            try store.write {
                try store.create("Patient", value: ["id": 1, "address": Value.embedded(["phnoe": .string("+55 11 1")])])
            }
        }
        #expect(try store.objects("Patient").count == 0)
        try store.write { try store.create("Patient", value: ["id": 2]) }
        let p = try #require(try store.objects("Patient").firstObject())
        #expect(throws: StoreError.unknownProperty(type: "Address", property: "phnoe")) {
            try store.write { try p.setValue(.embedded(["phnoe": .string("x")]), forKey: "address") }
        }
    }

    @Test func aValueIsStoredAsADictionaryIs() throws {
        let store = try Self.store()
        try store.write {
            try store.create("Patient", value: ["id": 1, "address": Value.embedded(["phone": .string("+55 11 1")])])
            try store.create("Patient", value: ["id": 2, "address": ["phone": "+55 11 1"]] as [String: Any])
        }
        let rows = try store.connection.rows("SELECT address FROM Patient ORDER BY id").map { "\($0[0])" }
        #expect(rows.count == 2 && rows[0] == rows[1], "\(rows)")
    }
}
