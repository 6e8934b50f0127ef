import Foundation
import Testing

@testable import UrnaStore

@Suite("Store behaviour")
struct StoreBehaviourTests {
    static let people = try! Schema(
        family: "people", version: 2,
        types: [
            ObjectSchema(
                "Person",
                [
                    Property("fullName", .string, default: ""),
                    Property("email", .string, default: ""),
                    Property("age", .int64, default: 0, indexed: true),
                ])
        ])

    @Test("An error thrown inside a write rolls everything back")
    func rollbackOnError() throws {
        let store = try Store.inMemory(schema: Self.people)
        try store.write { try store.create("Person", value: ["fullName": "Ada", "age": 36]) }
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try store.write {
                try store.create("Person", value: ["fullName": "Bob", "age": 40])
                try store.objects("Person").setValue(.int(99), forKey: "age")
                throw Boom()
            }
        }
        #expect(try store.objects("Person").count == 1)
        #expect(try store.objects("Person").first?["age"] == .int(36))
    }

    @Test("A write outside a transaction is an error")
    func writeOutsideTransaction() throws {
        let store = try Store.inMemory(schema: Self.people)
        #expect(throws: StoreError.notInWriteTransaction) { try store.create("Person", value: ["fullName": "Ada"]) }
        #expect(try store.objects("Person").count == 0)
    }

    @Test("Explicit begin / commit / cancel (seed 004)")
    func explicitTransactions() throws {
        let store = try Store.inMemory(schema: Self.people)
        try store.beginWrite()
        try store.create("Person", value: ["fullName": "Ada"])
        store.cancelWrite()
        #expect(try store.objects("Person").count == 0)
        try store.beginWrite()
        #expect(throws: StoreError.alreadyInWriteTransaction) { try store.beginWrite() }
        let ada = try store.create("Person", value: ["fullName": "Ada"])
        try store.commitWrite()
        #expect(try store.objects("Person").count == 1)
        try store.beginWrite()
        try store.delete(ada)
        try store.commitWrite()
        #expect(try store.objects("Person").count == 0)
    }

    @Test("Values are checked against the property type")
    func valueChecks() throws {
        let schema = try Schema(
            family: "t", version: 0,
            types: [
                ObjectSchema(
                    "T",
                    [
                        Property("small", .int8, default: 0), Property("money", .decimal(scale: 2), default: 0),
                        Property("when", .date, optional: true), Property("id", .uuid, primaryKey: true),
                    ])
            ])
        let store = try Store.inMemory(schema: schema)
        try store.write {
            #expect(throws: StoreError.outOfRange(type: "T", property: "small", value: "300", range: "-128...127")) {
                try store.create("T", value: ["id": UUID(), "small": 300])
            }
            #expect(throws: StoreError.typeMismatch(type: "T", property: "small", expected: "int8", got: "string")) {
                try store.create("T", value: ["id": UUID(), "small": "x"])
            }
            #expect(throws: StoreError.self) {
                try store.create("T", value: ["id": UUID(), "money": Decimal(string: "1.005")!])
            }
            let u = UUID()
            try store.create(
                "T",
                value: [
                    "id": u, "money": Decimal(string: "1234.56")!, "when": ISODate.date(year: 2016, month: 4, day: 12),
                ])
            let t = try #require(try store.object(ofType: "T", forPrimaryKey: .uuid(u)))
            #expect(t["money"] == .decimal(Decimal(string: "1234.56")!))
            #expect(t["when"] == .date(ISODate.date(year: 2016, month: 4, day: 12)))
        }
        // Money is stored as exact integer cents, dates as ISO text: readable with plain sqlite3.
        #expect(try store.connection.scalar("SELECT money FROM T") == .integer(123_456))
        #expect(try store.connection.scalar("SELECT \"when\" FROM T") == .text("2016-04-12T00:00:00.000Z"))
    }

    @Test("Observers hear which types changed after each commit")
    func observation() throws {
        let store = try Store.inMemory(schema: Self.people)
        let recorder = ChangeRecorder<ChangeSet>()
        let token = store.observe { recorder.append($0) }
        var seen: [ChangeSet] { recorder.all }
        try store.write {
            try store.create("Person", value: ["fullName": "Ada"])
            try store.create("Person", value: ["fullName": "Bob"])
        }
        try store.write { try store.objects("Person").filter("fullName == 'Bob'").setValue(.int(3), forKey: "age") }
        try store.write { try store.delete(store.objects("Person").filter("fullName == 'Ada'")) }
        try? store.write { throw StoreError.noPrimaryKey(type: "x") }  // rolled back: not reported
        #expect(seen.count == 3)
        #expect(seen[0].inserted == ["Person": 2])
        #expect(seen[1].modified == ["Person": 1])
        #expect(seen[2].deleted == ["Person": 1])
        token.invalidate()
        try store.write { try store.create("Person", value: ["fullName": "Cy"]) }
        #expect(seen.count == 3)
    }

    @Test("A file keeps its data, records its schema and stays plain SQLite")
    func fileContract() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-store-\(UUID())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("people.sqlite").path
        do {
            let store = try Store(path: path, schema: Self.people)
            try store.write { try store.create("Person", value: ["fullName": "Ada Lovelace", "age": 36]) }
        }
        let reopened = try Store.openExisting(path: path)
        #expect(reopened.schema == Self.people)
        #expect(try reopened.connection.userVersion() == 2)
        #expect(try reopened.objects("Person").first?["fullName"] == .string("Ada Lovelace"))
        let ddl = try reopened.connection.scalar("SELECT sql FROM sqlite_master WHERE name = 'Person'")
        #expect("\(ddl ?? .null)".contains("\"fullName\" TEXT NOT NULL DEFAULT ''"))
        let indexes = try reopened.connection.rows(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Person'")
        #expect(indexes.map { "\($0[0])" } == ["Person_age_idx"])
        // Opening with a newer schema version asks for a migration.
        let v3 = try Schema(family: "people", version: 3, types: Self.people.types)
        #expect(throws: StoreError.self) { try Store(path: path, schema: v3) }
        let other = try Schema(family: "dogs", version: 2, types: Self.people.types)
        #expect(throws: StoreError.familyMismatch(file: "people", expected: "dogs")) {
            try Store(path: path, schema: other)
        }
    }

    @Test("Copying an object with what it links to into another store (seed 000)")
    func copyBetweenStores() throws {
        let a = try Store.inMemory(schema: SeedSchemas.elections())
        try SeedSchemas.loadVanessaPortugal(into: a)
        let b = try Store.inMemory(schema: SeedSchemas.elections())
        let vanessa = try #require(try a.object(ofType: Candidate.self, forPrimaryKey: 21))
        try b.write { try b.create(Candidate.self, value: vanessa, update: .modified) }
        let copy = try #require(try b.object(ofType: Candidate.self, forPrimaryKey: 21))
        #expect(copy.nickname == "VANESSA PORTUGAL")
        #expect(copy.vice?.nickname == "FIRMINIA RODRIGUES")
        #expect(try copy.goods.count == 5)
        #expect(copy.party?.name == "PARTIDO SOCIALISTA DOS TRABALHADORES UNIFICADO")
        #expect(try b.objects(GoodType.self).count == 4)
    }

    @Test("Projections pass through, rename, follow key paths and map lists")
    func projections() throws {
        let store = try Store.inMemory(schema: SeedSchemas.elections())
        try SeedSchemas.loadVanessaPortugal(into: store)
        let type = try #require(store.schema[type: "Candidate"])
        let p = try FieldProjection(
            type: type, spec: "nickname,sigla=party.acronym,goods.value,goods.@count", schema: store.schema)
        let v = try #require(try store.objects("Candidate").filter("id == 21").first)
        let out = try p.apply(to: v)
        #expect(out.map(\.0) == ["nickname", "sigla", "goods.value", "goods.@count"])
        #expect(out[0].1 == .value(.string("VANESSA PORTUGAL")))
        #expect(out[1].1 == .value(.string("PSTU")))
        #expect(
            out[2].1 == .values([.double(100_000), .double(150_000), .double(10_000), .double(1_000), .double(14_000)]))
        #expect(out[3].1 == .value(.int(5)))
        #expect(throws: StoreError.unknownProperty(type: "Party", property: "acronim")) {
            try FieldProjection(type: type, spec: "party.acronim", schema: store.schema)
        }
    }

    @Test("Deleting an object clears links to it and removes it from lists")
    func deleteSemantics() throws {
        let store = try Store.inMemory(schema: SeedSchemas.elections())
        try SeedSchemas.loadVanessaPortugal(into: store)
        let vanessa = try #require(try store.object(ofType: Candidate.self, forPrimaryKey: 21))
        try store.write { try store.delete(try #require(try store.object(ofType: Good.self, forPrimaryKey: 229))) }
        #expect(try vanessa.goods.count == 4)
        try store.write { try store.delete(try #require(vanessa.vice)) }
        #expect(vanessa.vice == nil)
        try store.write { try store.deleteAll() }
        #expect(try store.counts().values.allSatisfy { $0 == 0 })
    }
}

@Suite("Schema validation")
struct SchemaValidationTests {
    func problems(_ types: [ObjectSchema]) -> [SchemaError] {
        Schema(unchecked: "f", version: 0, types: types).problems()
    }

    @Test("Each kind of mistake is named")
    func eachMistake() {
        #expect(
            problems([ObjectSchema("A", [Property("b", .link("Nope"))])]) == [
                .unknownLinkTarget(type: "A", property: "b", target: "Nope")
            ])
        #expect(
            problems([ObjectSchema("A", [Property("d", .double, primaryKey: true)])]) == [
                .unsupportedPrimaryKey(type: "A", property: "d", .double)
            ])
        #expect(
            problems([ObjectSchema("A", [Property("x", .linkingObjects(type: "A", property: "missing"))])])
                == [.unknownInverseProperty(type: "A", property: "x", origin: "A", originProperty: "missing")])
        var required = Property("b", .link("A"))
        required.optional = false
        #expect(problems([ObjectSchema("A", [required])]) == [.requiredLink(type: "A", property: "b")])
        #expect(problems([ObjectSchema("A", []), ObjectSchema("A", [])]) == [.duplicateType("A")])
        #expect(
            problems([ObjectSchema("A", [Property("p", .string), Property("p", .int64)])]) == [
                .duplicateProperty(type: "A", property: "p")
            ])
        #expect(problems([ObjectSchema("A\"; DROP TABLE x; --", [])]) == [.invalidName("A\"; DROP TABLE x; --")])
        #expect(
            problems([
                ObjectSchema("A", [Property("a", .int64, primaryKey: true), Property("b", .string, primaryKey: true)])
            ])
                == [.multiplePrimaryKeys(type: "A", ["a", "b"])])
        #expect(
            problems([
                ObjectSchema("A", [Property("x", .linkingObjects(type: "A", property: "p")), Property("p", .string)])
            ])
                == [.inverseNotALink(type: "A", property: "x", origin: "A", originProperty: "p")])
    }

    @Test("A type whose derived index would get SQLite's reserved prefix is refused (fuzz finding)")
    func derivedNamesWithSQLitePrefix() throws {
        let types = [ObjectSchema("sqlite", [Property("name", .string, default: "", indexed: true)])]
        #expect(problems(types) == [.reservedName("sqlite_name_idx (the storage layout uses it for sqlite.name)")])
        #expect(throws: SchemaError.self) { try Schema(family: "f", version: 1, types: types) }
    }

    @Test("Descriptors round-trip through JSON")
    func descriptorRoundTrip() throws {
        let s = try SeedSchemas.elections()
        let back = try SchemaDescriptor.decode(SchemaDescriptor.encode(s))
        #expect(back == s)
        #expect(throws: StoreError.self) {
            try SchemaDescriptor.decode(
                "{\"family\": \"x\", \"version\": 1, \"types\": [{\"name\": \"A\", \"properties\": [{\"name\": \"p\", \"type\": \"bogus\"}]}]}"
            )
        }
    }
}
