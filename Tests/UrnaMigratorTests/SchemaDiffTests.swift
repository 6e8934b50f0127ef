import Foundation
import Testing
import UrnaMigrator
import UrnaSchemas
import UrnaStore

@Suite struct SchemaDiffTests {
    @Test func peopleV0ToV1() {
        let diff = SchemaDiff(from: People.v0, to: People.v1)
        #expect(diff.typesAdded.isEmpty && diff.typesRemoved.isEmpty)
        let person = diff.typeChanges[0]
        #expect(person.type == "Person")
        #expect(person.added.map(\.name) == ["fullName"])
        #expect(person.removed.map(\.name) == ["firstName", "lastName"])
        #expect(person.renamed.isEmpty && person.retyped.isEmpty)
        #expect(
            diff.renderText() == """
                people v0 → v1
                  Person
                    + fullName: string = ""
                    - firstName: string = ""
                    - lastName: string = ""

                """)
    }

    @Test func renamesAreNotRemovals() {
        let diff = SchemaDiff(
            from: People.v0, to: People.v1, renames: [PropertyRename(type: "Person", from: "firstName", to: "fullName")]
        )
        #expect(diff.typeChanges[0].renamed == [Rename(from: "firstName", to: "fullName")])
        #expect(diff.typeChanges[0].added.isEmpty)
        #expect(diff.typeChanges[0].removed.map(\.name) == ["lastName"])
        #expect(diff.renderText().contains("~ firstName → fullName (renamed, data kept)"))
    }

    @Test func electionsV1ToV2() throws {
        let diff = try SchemaFamilies.elections.diff(from: 1, to: 2)
        #expect(diff.typesAdded == ["Election"])
        let candidate = try #require(diff.typeChanges.first { $0.type == "Candidate" })
        let id = try #require(candidate.retyped.first { $0.property == "id" })
        #expect(id.conversion == .needsClosure)
        #expect(id.from == "int16 (primary key)" && id.to == "string (primary key)")
        let party = try #require(diff.typeChanges.first { $0.type == "Party" })
        #expect(party.retyped.map(\.conversion) == [.widening, .widening])
        #expect(!diff.changesNeedingClosure.isEmpty)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(diff.renderJSON().utf8)) as? [String: Any])
        #expect(json["typesAdded"] as? [String] == ["Election"])
        #expect(json["fromVersion"] as? Int == 1)
    }

    @Test func familyDiffAcrossVersions() throws {
        let diff = try SchemaFamilies.elections.diff(from: 1, to: 3)
        let candidate = try #require(diff.typeChanges.first { $0.type == "Candidate" })
        #expect(candidate.removed.map(\.name) == ["naturalness"])
        #expect(candidate.added.map(\.name).contains("birthState"))
        #expect(candidate.retyped.contains { $0.property == "spendingLimitFirstRound" && $0.to == "decimal(2)?" })
        let party = try #require(diff.typeChanges.first { $0.type == "Party" })
        #expect(party.indexesAdded == ["acronym"])
        #expect(
            try SchemaFamilies.people.diff(from: 0, to: 2).typeChanges[0].added.map(\.name) == ["fullName", "email"])
        #expect(throws: MigrationError.self) { _ = try SchemaFamilies.people.diff(from: 0, to: 9) }
    }

    @Test func conversions() throws {
        func kind(
            _ a: PropertyType, _ b: PropertyType, optional: (Bool, Bool) = (false, false),
            default d: DefaultValue? = nil
        ) throws -> ConversionKind {
            let old = try Schema(
                family: "x", version: 0, types: [ObjectSchema("T", [Property("p", a, optional: optional.0)])])
            let new = try Schema(
                family: "x", version: 1,
                types: [ObjectSchema("T", [Property("p", b, optional: optional.1, default: d)])])
            return SchemaDiff(from: old, to: new).typeChanges.first?.retyped.first?.conversion ?? .identical
        }
        #expect(try kind(.int16, .int64) == .widening)
        #expect(try kind(.int64, .int16) == .needsClosure)
        #expect(try kind(.float, .double) == .widening)
        #expect(try kind(.int32, .double) == .widening)
        #expect(try kind(.int64, .double) == .needsClosure)
        #expect(try kind(.int32, .decimal(scale: 2)) == .widening)
        #expect(try kind(.decimal(scale: 2), .decimal(scale: 4)) == .widening)
        #expect(try kind(.decimal(scale: 4), .decimal(scale: 2)) == .needsClosure)
        #expect(try kind(.double, .decimal(scale: 2)) == .needsClosure)
        #expect(try kind(.int64, .string) == .needsClosure)
        #expect(try kind(.string, .string, optional: (false, true)) == .widening)
        #expect(try kind(.string, .string, optional: (true, false)) == .needsClosure)
        #expect(try kind(.string, .string, optional: (true, false), default: "x") == .widening)
    }
}
