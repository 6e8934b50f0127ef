import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// What `MigrationTestHarness` says about the clinic (issue 14's third trial): a difference names its table and
/// rows; embedded objects carried as written before their type gained a property equal fresh ones.
@Suite struct ClinicHarnessTests {
    @Test func aRowDifferenceNamesTheTableAndTheRows() throws {
        let dir = try Fixture.directory()
        // The latest fixture has one name the history does not make.
        let harness = MigrationTestHarness(
            family: ClinicFamily.family,
            fixtures: [
                0: { try ClinicFamily.fillV0(at: $0) },
                4: { path in
                    try ClinicTrialTests.fillV4(at: path)
                    try Connection(path: path).execute("UPDATE Patient SET name = 'Ana Sousa' WHERE id = 'P1'")
                },
            ])
        let problems = try harness.check(in: dir.path)
        #expect(problems.count == 2, "\(problems)")
        #expect(
            problems.allSatisfy { $0.contains("Patient") && $0.contains("Ana Sousa") && $0.contains("Ana Souza") },
            "\(problems)")
    }

    @Test func embeddedObjectsCarriedFromBeforeTheirTypeGrewEqualFreshOnes() throws {
        func schema(_ v: Int, _ address: [Property]) throws -> Schema {
            try Schema(
                family: "clinic", version: v,
                types: [
                    ObjectSchema("Address", embedded: true, address),
                    ObjectSchema(
                        "Patient",
                        [
                            Property("id", .int64, primaryKey: true),
                            Property("address", .embedded("Address"), optional: true),
                        ]),
                ])
        }
        let street = Property("street", .string, default: "")
        let v0 = try schema(0, [street])
        let v1 = try schema(
            1, [street, Property("zip", .string, default: "00000"), Property("phone", .string, optional: true)])
        func fill(_ s: Schema) -> (String) throws -> Void {
            { path in
                let store = try Store(path: path, schema: s)
                try store.write {
                    try store.create("Patient", value: ["id": 1, "address": ["street": "Rua 1"]] as [String: Any])
                    try store.create("Patient", value: ["id": 2])
                }
            }
        }
        let harness = MigrationTestHarness(
            family: SchemaFamily(name: "clinic", versions: [SchemaVersion(v0), SchemaVersion(v1)]),
            fixtures: [0: fill(v0), 1: fill(v1)])
        let dir = try Fixture.directory()
        #expect(try harness.check(in: dir.path) == [])
    }
}
