import Foundation
import Testing
import UrnaStore

/// A list of an embedded type is not supported: the refusal says so and what to declare instead (a type of its own
/// with a link back to the owner), never `.embedded(...)`, which holds one object, not a list.
@Suite struct EmbeddedListMessageTests {
    static let address = ObjectSchema("Address", embedded: true, [Property("street", .string, default: "")])

    @Test func aListOfAnEmbeddedTypeSaysListsAreUnsupportedAndWhatToDoInstead() throws {
        let guest = ObjectSchema(
            "Guest", [Property("id", .int64, primaryKey: true), Property("addresses", .list("Address"))])
        var refusal: SchemaError?
        do {
            _ = try Schema(family: "hotel", version: 0, types: [Self.address, guest])
        } catch let e as SchemaError {
            refusal = e
        }
        let text = try #require(refusal).description
        #expect(!text.contains(".embedded("), "\(text)")
        for needle in ["Guest.addresses", "list of embedded", "not supported", "link back to Guest", "Address"] {
            #expect(text.contains(needle), "'\(needle)' not in: \(text)")
        }
    }

    /// A to-one link to an embedded type keeps its advice: `.embedded(...)` is the fix there.
    @Test func aLinkToAnEmbeddedTypeStillSuggestsEmbedded() throws {
        let guest = ObjectSchema(
            "Guest",
            [Property("id", .int64, primaryKey: true), Property("address", .link("Address"), optional: true)])
        var refusal: SchemaError?
        do {
            _ = try Schema(family: "hotel", version: 0, types: [Self.address, guest])
        } catch let e as SchemaError {
            refusal = e
        }
        let text = try #require(refusal).description
        #expect(text.contains("use .embedded(\"Address\") instead"), "\(text)")
    }
}
