import Foundation
import Testing

@testable import UrnaStore

/// Numbers a file can hold that its integer properties do not expect: a REAL written by hand into an integer
/// column, and whole numbers beyond a Double's 53 bits inside an embedded object's JSON. Reading them trapped
/// the process (`urna query` died by SIGILL on a `1e300`) or changed them silently (1.5 read as 1,
/// 9007199254740993 as ...992).
@Suite struct StoredNumberEdgeTests {
    static let schema = try! Schema(
        family: "edge", version: 1,
        types: [
            ObjectSchema("Counts", embedded: true, [Property("big", .int64, default: 0)]),
            ObjectSchema(
                "Thing",
                [
                    Property("id", .int64, primaryKey: true),
                    Property("n", .int64, default: 0),
                    Property("counts", .embedded("Counts"), optional: true),
                ]),
        ])

    @Test func aRealInAnIntegerColumnIsShownAsStored() throws {
        let store = try Store.inMemory(schema: Self.schema)
        try store.write {
            for id in 1...4 { try store.create("Thing", value: ["id": Int64(id)]) }
        }
        // What someone's sqlite3 can leave: REAL values that INTEGER affinity keeps as REAL.
        try store.connection.execute(
            "UPDATE Thing SET n = CASE id WHEN 1 THEN 1e300 WHEN 2 THEN 1.5 WHEN 3 THEN 9.3e18 ELSE 4.0 END")
        let values = try store.objects("Thing").sorted(byKeyPath: "id").objects().map { $0["n"] }
        #expect(values == [.double(1e300), .double(1.5), .double(9.3e18), .int(4)], "\(values)")
    }

    @Test func wholeNumbersInAnEmbeddedObjectAreReadExactly() throws {
        let store = try Store.inMemory(schema: Self.schema)
        let numbers: [Int64] = [.max, .min, 9_007_199_254_740_993, -9_007_199_254_740_993, 0]
        try store.write {
            for (i, n) in numbers.enumerated() {
                try store.create("Thing", value: ["id": Int64(i), "counts": Value.embedded(["big": .int(n)])])
            }
        }
        let read = try store.objects("Thing").sorted(byKeyPath: "id").objects().map { object -> Value in
            guard case .embedded(let fields) = object["counts"] else { return .null }
            return fields["big"] ?? .null
        }
        #expect(read == numbers.map(Value.int), "\(read)")
    }
}
