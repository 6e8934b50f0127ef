import Foundation
import Testing

@testable import UrnaStore

// Foundation also declares QueryPredicate and SortKey; in this test module the names mean ours.

/// A tiny election (and the Realm docs' dogs and tasks) in an in-memory SQLite file laid out by
/// StorageLayout, filled with plain SQL, queried through compiled predicates.
final class QueryFixture {
    static let schema: Schema = {
        do {
            return try Schema(
                family: "query-tests", version: 1,
                types: [
                    ObjectSchema("Coalition", [Property("id", .int64, primaryKey: true), Property("name", .string)]),
                    ObjectSchema(
                        "Party",
                        [
                            Property("id", .int64, primaryKey: true), Property("acronym", .string),
                            Property("name", .string),
                            Property("coalition", .link("Coalition")),
                            Property("members", .linkingObjects(type: "Candidate", property: "party")),
                        ]),
                    ObjectSchema("GoodType", [Property("code", .string, primaryKey: true), Property("name", .string)]),
                    ObjectSchema(
                        "Good",
                        [
                            Property("value", .decimal(scale: 2)), Property("detail", .string),
                            Property("type", .link("GoodType")),
                            Property("holder", .linkingObjects(type: "Candidate", property: "goods")),
                        ]),
                    ObjectSchema(
                        "Address", embedded: true,
                        [
                            Property("city", .string), Property("state", .string),
                            Property("zip", .int64, optional: true),
                        ]),
                    ObjectSchema(
                        "Candidate",
                        [
                            Property("id", .int64, primaryKey: true), Property("name", .string),
                            Property("nickname", .string, optional: true), Property("age", .int64, optional: true),
                            Property("born", .date, optional: true), Property("elected", .bool),
                            Property("votes", .int64),
                            Property("score", .double, optional: true), Property("token", .uuid, optional: true),
                            Property("party", .link("Party")), Property("vice", .link("Candidate")),
                            Property("goods", .list("Good")), Property("address", .embedded("Address"), optional: true),
                            Property("runningMates", .linkingObjects(type: "Candidate", property: "vice")),
                            Property("note", .string, ignored: true),
                        ]),
                    ObjectSchema(
                        "Person",
                        [Property("name", .string), Property("dogs", .linkingObjects(type: "Dog", property: "owner"))]),
                    ObjectSchema(
                        "Dog",
                        [Property("name", .string), Property("color", .string), Property("owner", .link("Person"))]),
                    ObjectSchema(
                        "Task",
                        [
                            Property("title", .string), Property("isCompleted", .bool),
                            Property("due", .date, optional: true),
                        ]),
                ])
        } catch {
            fatalError("test schema: \(error)")
        }
    }()

    static let token = UUID(uuidString: "6F1C2A34-0B7E-4C1D-9A2B-3C4D5E6F7A8B")!

    let connection: Connection
    let compiler = QueryCompiler(schema: QueryFixture.schema)

    init() throws {
        connection = try Connection(path: ":memory:")
        try QueryCompiler.registerFunctions(on: connection)
        for sql in StorageLayout.createSQL(for: Self.schema) { try connection.execute(sql) }
        try connection.execute(
            """
            INSERT INTO "Coalition" VALUES (1, 'Frente'), (2, 'Vazia');
            INSERT INTO "Party" VALUES (1, 'PSTU', 'Partido Socialista', 1), (2, 'PT', 'Partido dos Trabalhadores', 1),
              (3, 'NOVO', 'Partido Novo', NULL), (4, 'PCO', 'Partido da Causa Operária', NULL);
            INSERT INTO "GoodType" VALUES ('IMV', 'Imóvel'), ('VEI', 'Veículo');
            INSERT INTO "Good" ("_id", "value", "detail", "type") VALUES (1, 100050, 'Casa', 'IMV'),
              (2, 25000000, 'Apartamento', 'IMV'), (3, 1500, 'Bicicleta*', 'VEI'), (4, 100050, 'Carro', 'VEI'),
              (5, 99, 'Casa de praia', 'IMV'), (6, 200000, 'Terreno', NULL), (7, 1000, 'Órfão', NULL);
            INSERT INTO "Candidate" ("id", "name", "nickname", "age", "born", "elected", "votes", "score", "token",
              "party", "vice", "address") VALUES
              (1, 'José da Silva', 'Zé', 45, '1971-03-10T00:00:00.000Z', 1, 1500, 7.5, '\(Self.token.uuidString.lowercased())',
                1, 2, '{"city":"São Paulo","state":"SP"}'),
              (2, 'JOSÉ SANTOS', NULL, 30, '1986-07-01T00:00:00.000Z', 0, 200, NULL, NULL, 2, NULL,
                '{"city":"Belo Horizonte","state":"MG"}'),
              (3, 'Maria O''Neil', 'Mari', NULL, NULL, 1, 0, 9.25, NULL, NULL, 1, NULL),
              (4, 'ana [x] 100%_ok', 'Ana?', 65, '2000-01-01T12:00:00.000Z', 0, 50, 3.0, NULL, 1, NULL,
                '{"city":"Recife","state":"PE"}'),
              (5, 'Ênio Ávila', 'ênio', 18, '2006-12-31T00:00:00.000Z', 0, 1000, 5.0, NULL, 3, 4,
                '{"city":"são paulo","state":"SP","zip":1000}');
            INSERT INTO "Candidate_goods" VALUES (1, 0, 1), (1, 1, 2), (1, 2, 3), (2, 0, 4), (4, 0, 5), (4, 1, 6);
            INSERT INTO "Person" ("_id", "name") VALUES (1, 'Ana'), (2, 'Bruno'), (3, 'Carla');
            INSERT INTO "Dog" ("_id", "name", "color", "owner") VALUES (1, 'Rex', 'tan', 1), (2, 'Bidu', 'tan', 1),
              (3, 'Bolt', 'black', NULL), (4, 'Toto', 'brown', 2);
            INSERT INTO "Task" ("_id", "title", "isCompleted", "due") VALUES (1, 'Buy milk', 1, '2024-01-10T00:00:00.000Z'),
              (2, 'Walk dog', 0, NULL), (3, 'Write report', 0, '2024-03-01T00:00:00.000Z');
            """)
    }

    /// The keys of `type` matching `text`, in `sorts` order (key order when none).
    func keys(
        _ type: String, _ text: String, _ arguments: [QueryArgument] = [], sortedBy sorts: [SortKey] = []
    ) throws -> [String] {
        let predicate = try QueryPredicate.parse(text, arguments: arguments)
        return try keys(type, predicate, sortedBy: sorts)
    }

    func keys(_ type: String, _ predicate: QueryPredicate, sortedBy sorts: [SortKey] = []) throws -> [String] {
        let (condition, bindings) = try compiler.compile(predicate, on: type)
        let order = try compiler.orderBy(sorts, on: type, alias: "t0")
        let key = Identifier.quoted(Self.schema[type: type]!.keyColumn)
        let sql = "SELECT t0.\(key) FROM \(Identifier.quoted(type)) t0 WHERE \(condition) ORDER BY \(order)"
        return try connection.rows(sql, bindings).map { $0[0].description }
    }

    /// The message of the error compiling (or parsing) `text` throws.
    func error(_ type: String, _ text: String, _ arguments: [QueryArgument] = []) -> String? {
        do {
            _ = try compiler.compile(try QueryPredicate.parse(text, arguments: arguments), on: type)
            return nil
        } catch {
            return "\(error)"
        }
    }
}

/// One filter and the keys it must return, in key order.
struct FilterCase: Sendable, CustomTestStringConvertible {
    let type: String
    let predicate: String
    let arguments: [QueryArgument]
    let expected: [String]

    init(_ type: String, _ predicate: String, _ arguments: [QueryArgument], _ expected: [Int]) {
        self.type = type
        self.predicate = predicate
        self.arguments = arguments
        self.expected = expected.map(String.init)
    }

    init(_ predicate: String, _ expected: [Int]) { self.init("Candidate", predicate, [], expected) }
    init(_ predicate: String, _ arguments: [QueryArgument], _ expected: [Int]) {
        self.init("Candidate", predicate, arguments, expected)
    }
    init(_ type: String, _ predicate: String, _ expected: [Int]) { self.init(type, predicate, [], expected) }

    var testDescription: String { "\(type): \(predicate)" }
}

@Suite struct QueryCompilerTests {
    static let comparisons: [FilterCase] = [
        FilterCase("TRUEPREDICATE", [1, 2, 3, 4, 5]),
        FilterCase("FALSEPREDICATE", []),
        // Equality and inequality, with NSPredicate's spellings.
        FilterCase("name == 'JOSÉ SANTOS'", [2]),
        FilterCase("name = 'JOSÉ SANTOS'", [2]),
        FilterCase("name == 'JOSE SANTOS'", []),
        FilterCase("name == 'josé santos'", []),
        FilterCase("name != 'JOSÉ SANTOS'", [1, 3, 4, 5]),
        FilterCase("name <> 'JOSÉ SANTOS'", [1, 3, 4, 5]),
        FilterCase("age > 30", [1, 4]),
        FilterCase("age >= 30", [1, 2, 4]),
        FilterCase("age => 45", [1, 4]),
        FilterCase("age < 30", [5]),
        FilterCase("age <= 18", [5]),
        FilterCase("age =< 30", [2, 5]),
        FilterCase("age == 30", [2]),
        FilterCase("age != 30", [1, 3, 4, 5]),  // nil age is "not 30", as in Realm
        FilterCase("age > -1", [1, 2, 4, 5]),
        FilterCase("age > 29.5", [1, 2, 4]),
        FilterCase("18 < age", [1, 2, 4]),
        FilterCase("'PSTU' == party.acronym", [1, 4]),
        FilterCase("votes > 0x3E7", [1, 5]),
        // Modifiers: [c] case, [d] diacritics.
        FilterCase("name ==[c] 'josé santos'", [2]),
        FilterCase("name ==[d] 'JOSE SANTOS'", [2]),
        FilterCase("name ==[c] 'jose santos'", []),
        FilterCase("name ==[cd] 'jose santos'", [2]),
        FilterCase("name ==[dc] 'JOSE DA SILVA'", [1]),
        FilterCase("name !=[cd] 'jose santos'", [1, 3, 4, 5]),
        // BEGINSWITH / ENDSWITH / CONTAINS: exact unless [c]/[d].
        FilterCase("name BEGINSWITH 'JOSÉ'", [2]),
        FilterCase("name BEGINSWITH 'JOSE'", []),
        FilterCase("name BEGINSWITH[d] 'JOSE'", [2]),
        FilterCase("name BEGINSWITH[c] 'jose'", []),
        FilterCase("name BEGINSWITH[c] 'josé'", [1, 2]),
        FilterCase("name BEGINSWITH[cd] 'jose'", [1, 2]),
        FilterCase("name beginswith[cd] 'ENIO'", [5]),
        FilterCase("name ENDSWITH 'Silva'", [1]),
        FilterCase("name ENDSWITH 'silva'", []),
        FilterCase("name ENDSWITH[c] 'SILVA'", [1]),
        FilterCase("name ENDSWITH[cd] 'AVILA'", [5]),
        FilterCase("name CONTAINS 'a'", [1, 3, 4, 5]),
        FilterCase("name CONTAINS[c] 'a'", [1, 2, 3, 4, 5]),
        FilterCase("name CONTAINS 'O\\'N'", [3]),
        FilterCase("name CONTAINS \"O'N\"", [3]),
        // SQL and GLOB metacharacters in values are plain characters.
        FilterCase("name CONTAINS '[x]'", [4]),
        FilterCase("name CONTAINS '%'", [4]),
        FilterCase("name CONTAINS '_'", [4]),
        FilterCase("name CONTAINS '*'", []),
        FilterCase("name CONTAINS '?'", []),
        FilterCase("nickname ENDSWITH '?'", [4]),
        FilterCase("nickname BEGINSWITH ''", [1, 3, 4, 5]),
        // LIKE: * any run, ? one character, \* and \? literal.
        FilterCase("name LIKE 'J*'", [1, 2]),
        FilterCase("name LIKE 'j*'", []),
        FilterCase("name LIKE[c] 'j*'", [1, 2]),
        FilterCase("name LIKE[cd] 'jose s*'", [2]),
        FilterCase("nickname LIKE 'Ma?i'", [3]),
        FilterCase("nickname LIKE 'Ma?'", []),
        FilterCase("nickname LIKE 'Ana\\?'", [4]),
        FilterCase("nickname LIKE 'An\\?'", []),
        FilterCase("name LIKE '*[x]*'", [4]),
        FilterCase("name LIKE '*%_ok'", [4]),
        // IN and BETWEEN.
        FilterCase("age IN {18, 65}", [4, 5]),
        FilterCase("age IN {18, nil}", [3, 5]),
        FilterCase("age IN {}", []),
        FilterCase("NOT age IN {18, 65}", [1, 2, 3]),
        FilterCase("name IN[c] {'josé santos', 'MARIA O\\'NEIL'}", [2, 3]),
        FilterCase("age BETWEEN {18, 45}", [1, 2, 5]),
        FilterCase("NOT age BETWEEN {18, 45}", [3, 4]),
        FilterCase("name BETWEEN {'A', 'K'}", [2, 1]).sorted,
        // nil and the NOT rule.
        FilterCase("age == nil", [3]),
        FilterCase("age = NULL", [3]),
        FilterCase("age != nil", [1, 2, 4, 5]),
        FilterCase("NOT age > 18", [3, 5]),
        FilterCase("!(age > 18)", [3, 5]),
        FilterCase("NOT NOT age > 18", [1, 2, 4]),
        FilterCase("NOT (age > 18 OR party == nil)", [5]),
        FilterCase("nickname == nil", [2]),
        // Logic and precedence: NOT > AND > OR.
        FilterCase("age > 18 AND elected == true", [1]),
        FilterCase("age > 18 && elected == true", [1]),
        FilterCase("age > 60 OR elected == true", [1, 3, 4]),
        FilterCase("age > 60 || elected == true", [1, 3, 4]),
        FilterCase("elected == true OR age > 60 AND votes > 100", [1, 3]),
        FilterCase("(elected == true OR age > 60) AND votes > 100", [1]),
        FilterCase("!(age > 18) && elected == true", [3]),
        FilterCase("NOT elected == true AND age > 20", [2, 4]),
        FilterCase("elected == true and (age == nil or age < 50)", [1, 3]),
        // Bools, doubles, dates, uuids.
        FilterCase("elected == YES", [1, 3]),
        FilterCase("elected == false", [2, 4, 5]),
        FilterCase("elected != TRUE", [2, 4, 5]),
        FilterCase("elected == 1", [1, 3]),
        FilterCase("score > 7", [1, 3]),
        FilterCase("score == 7.5", [1]),
        FilterCase("score == 7.50", [1]),
        FilterCase("score < 5", [4]),
        FilterCase("score <= 5", [4, 5]),
        FilterCase("score == nil", [2]),
        FilterCase("born < '1980-01-01'", [1]),
        FilterCase("born BETWEEN {'1980-01-01', '2001-01-01'}", [2, 4]),
        FilterCase("born == '2000-01-01T12:00:00Z'", [4]),
        FilterCase("born == '2000-01-01'", []),
        FilterCase("born == nil", [3]),
        FilterCase("token == '6F1C2A34-0B7E-4C1D-9A2B-3C4D5E6F7A8B'", [1]),
        FilterCase("token != nil", [1]),
        // Links.
        FilterCase("party == nil", [3]),
        FilterCase("vice != nil", [1, 3, 5]),
        FilterCase("party == 1", [1, 4]),
        FilterCase("party != 1", [2, 3, 5]),
        FilterCase("party IN {1, 3}", [1, 4, 5]),
        FilterCase("vice == 1", [3]),
        // Key paths through to-one links.
        FilterCase("party.acronym == 'PSTU'", [1, 4]),
        FilterCase("party.acronym != 'PSTU'", [2, 3, 5]),
        FilterCase("party.acronym == nil", [3]),
        FilterCase("party.acronym BEGINSWITH[c] 'p'", [1, 2, 4]),
        FilterCase("party.coalition.name == 'Frente'", [1, 2, 4]),
        FilterCase("party.coalition == nil", [3, 5]),
        FilterCase("party.coalition == 1", [1, 2, 4]),
        FilterCase("vice.party.acronym == 'PT'", [1]),
        FilterCase("vice.name BEGINSWITH 'José'", [3]),
        FilterCase("vice.vice.name == 'JOSÉ SANTOS'", [3]),
        // Key path against key path.
        FilterCase("votes > age", [1, 2, 5]),
        FilterCase("age < votes", [1, 2, 5]),
        FilterCase("name BEGINSWITH nickname", [3]),
        FilterCase("name BEGINSWITH[cd] nickname", [3, 5]),
        FilterCase("name ENDSWITH[cd] 'ávila' AND name CONTAINS[cd] nickname", [5]),
        FilterCase("vice.party.coalition == party.coalition", [1]),
        FilterCase("vice.party == party", []),
        FilterCase("nickname == nickname", [1, 2, 3, 4, 5]),
        // @count and aggregates over lists and linkingObjects.
        FilterCase("goods.@count > 2", [1]),
        FilterCase("goods.@count == 0", [3, 5]),
        FilterCase("goods.@count >= 1", [1, 2, 4]),
        FilterCase("runningMates.@count > 0", [1, 2, 4]),
        FilterCase("goods.@count > runningMates.@count", [1, 4]),
        FilterCase("Good", "holder.@count == 0", [7]),
        FilterCase("Good", "holder.@count == 1", [1, 2, 3, 4, 5, 6]),
        FilterCase("Party", "members.@count == 0", [4]),
        FilterCase("Party", "members.@count == 2", [1]),
        FilterCase("Person", "dogs.@count == 0", [3]),
        FilterCase("goods.@sum.value > 1000", [1, 2, 4]),
        FilterCase("goods.@sum.value > 3000", [1]),
        FilterCase("goods.@sum.value == 0", [3, 5]),
        FilterCase("goods.@max.value == 2000", [4]),
        FilterCase("goods.@min.value < 1", [4]),
        FilterCase("goods.@avg.value > 1000", [1, 2, 4]),
        FilterCase("goods.@avg.value > 1000.5", [1]),
        FilterCase("party.members.@count == 2", [1, 4]),
        // ANY / SOME / ALL / NONE, and a list key path without one meaning ANY.
        FilterCase("ANY goods.value > 1000", [1, 2, 4]),
        FilterCase("SOME goods.value > 1000", [1, 2, 4]),
        FilterCase("goods.value > 100000", [1]),
        FilterCase("ALL goods.value > 1000", [2, 3, 5]),
        FilterCase("NONE goods.value > 1000", [3, 5]),
        FilterCase("NOT ANY goods.value > 1000", [3, 5]),
        FilterCase("ANY goods.detail BEGINSWITH 'Casa'", [1, 4]),
        FilterCase("ANY goods.detail ==[cd] 'ORFAO'", []),
        FilterCase("ANY goods.type.code == 'VEI'", [1, 2]),
        FilterCase("ALL goods.type.code == 'IMV'", [3, 5]),
        FilterCase("ANY goods.type == nil", [4]),
        FilterCase("ANY runningMates.elected == elected", [1, 4]),
        FilterCase("ANY goods == 4", [2]),
        FilterCase("4 IN goods", [2]),
        FilterCase("NOT 4 IN goods", [1, 3, 4, 5]),
        FilterCase("ANY goods.value IN {0.99, 15}", [1, 4]),
        FilterCase("'Carro' IN goods.detail", [2]),
        FilterCase("ANY runningMates.name == 'Maria O\\'Neil'", [1]),
        FilterCase("Party", "ANY members.name CONTAINS 'ana'", [1]),
        FilterCase("Party", "members.age > 60", [1]),
        FilterCase("Party", "ALL members.elected == false", [2, 3, 4]),
        FilterCase("Party", "ANY members.goods.value > 100000", [1]),
        FilterCase("Good", "ANY holder.name == 'JOSÉ SANTOS'", [4]),
        FilterCase("Good", "value > 1000 AND NONE holder.elected == true", [4, 6]),
        FilterCase("Person", "ANY dogs.color == 'tan'", [1]),
        FilterCase("Person", "ALL dogs.color == 'tan'", [1, 3]),
        // Decimals compare by the property's scale.
        FilterCase("Good", "value > 1000.50", [2, 6]),
        FilterCase("Good", "value == 1000.5", [1, 4]),
        FilterCase("Good", "value >= 1000.50", [1, 2, 4, 6]),
        FilterCase("Good", "value == 0.99", [5]),
        FilterCase("Good", "value > 1000.505", [2, 6]),
        FilterCase("Good", "value == 1000.505", []),
        FilterCase("Good", "value BETWEEN {15, 1000.5}", [1, 3, 4]),
        FilterCase("Good", "value < 1", [5]),
        FilterCase("Good", "detail CONTAINS '*'", [3]),
        FilterCase("Good", "detail LIKE '*\\*'", [3]),
        FilterCase("Good", "type.name ==[cd] 'veiculo'", [3, 4]),
        // Embedded objects.
        FilterCase("address.city == 'Recife'", [4]),
        FilterCase("address.city == 'são paulo'", [5]),
        FilterCase("address.city ==[c] 'são paulo'", [1, 5]),
        FilterCase("address.city ==[cd] 'SAO PAULO'", [1, 5]),
        FilterCase("address == nil", [3]),
        FilterCase("address != nil", [1, 2, 4, 5]),
        FilterCase("address.zip > 500", [5]),
        FilterCase("address.zip == nil", [1, 2, 3, 4]),
        FilterCase("address.state IN {'SP', 'PE'}", [1, 4, 5]),
        FilterCase("vice.address.state == 'MG'", [1]),
        // The Realm docs' examples.
        FilterCase("Dog", "color = 'tan' AND name BEGINSWITH 'B'", [2]),
        FilterCase("Dog", "owner.name == 'Ana'", [1, 2]),
        FilterCase("Dog", "owner == nil", [3]),
        FilterCase("Task", "isCompleted = true", [1]),
        FilterCase("Task", "isCompleted = false", [2, 3]),
        FilterCase("Task", "isCompleted == NO AND due != nil", [3]),
        // Arguments.
        FilterCase("name == %@", ["Maria O'Neil"], [3]),
        FilterCase("name == %@ OR name == %@", ["Zé", "Maria O'Neil"], [3]),
        FilterCase("nickname == %@", ["Zé"], [1]),
        FilterCase("%K == %@", [.keyPath("party.acronym"), "PT"], [2]),
        FilterCase("%K == %@", ["party.acronym", "PT"], [2]),
        FilterCase("%K.@count > %d", ["goods", 1], [1, 4]),
        FilterCase("age > %d", [40], [1, 4]),
        FilterCase("score >= %f", [5], [1, 3, 5]),
        FilterCase("age > %@", [29.5], [1, 2, 4]),
        FilterCase("age == %@", [nil], [3]),
        FilterCase("elected == %@", [true], [1, 3]),
        FilterCase("party.acronym IN %@", [["PT", "NOVO"]], [2, 5]),
        FilterCase("party.acronym IN %@", [.values([])], []),
        FilterCase("age BETWEEN %@", [[18, 30]], [2, 5]),
        FilterCase("party == %@", [.value(.link(LinkTarget(type: "Party", key: 2)))], [2]),
        FilterCase(
            "party IN %@", [.value(.list([LinkTarget(type: "Party", key: 2), LinkTarget(type: "Party", key: 3)]))],
            [2, 5]),
        FilterCase("born > %@", [.date(ISODate.date(year: 1990, month: 1, day: 1))], [4, 5]),
        FilterCase("born == %@", [.date(ISODate.date(year: 2000, month: 1, day: 1, hour: 12))], [4]),
        FilterCase("token == %@", [.uuid(QueryFixture.token)], [1]),
        FilterCase("Good", "value > %@", [.decimal(Decimal(string: "1000.5")!)], [2, 6]),
        FilterCase("Good", "value > %@", [1000.5], [2, 6]),
        FilterCase("Good", "value > %d", [1000], [1, 2, 4, 6]),
        FilterCase("%@ IN goods", [4], [2]),
    ]

    @Test(arguments: comparisons)
    func filters(_ c: FilterCase) throws {
        let fixture = try QueryFixture()
        #expect(try fixture.keys(c.type, c.predicate, c.arguments) == c.expected)
    }

    @Test func filterOnAFilterIsTheirConjunction() throws {
        let fixture = try QueryFixture()
        let tan = try QueryPredicate.parse("color = 'tan'")
        let b = try QueryPredicate.parse("name BEGINSWITH %@", arguments: ["B"])
        #expect(try fixture.keys("Dog", .and([tan, b])) == ["2"])
        #expect(try fixture.keys("Dog", tan && b) == ["2"])
        #expect(try fixture.keys("Dog", tan || b) == ["1", "2", "3"])
        #expect(try fixture.keys("Dog", !tan) == ["3", "4"])
        #expect(try fixture.keys("Dog", .and([])) == ["1", "2", "3", "4"])
        #expect(try fixture.keys("Dog", .or([])) == [])
    }

    // MARK: - Sorting

    @Test func sortsByKeyPathsWithAStableTiebreak() throws {
        let f = try QueryFixture()
        #expect(
            try f.keys("Candidate", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "elected")]) == [
                "2", "4", "5", "1", "3",
            ])
        #expect(
            try f.keys("Candidate", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "elected", ascending: false)])
                == ["1", "3", "2", "4", "5"])
        #expect(
            try f.keys(
                "Candidate", "TRUEPREDICATE",
                sortedBy: [SortKey(keyPath: "party.acronym"), SortKey(keyPath: "name")])
                == ["3", "5", "1", "4", "2"])
        #expect(
            try f.keys("Candidate", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "age", ascending: false)]) == [
                "4", "1", "2", "5", "3",
            ])
        #expect(
            try f.keys(
                "Candidate", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "goods.@count", ascending: false)])
                == ["1", "4", "2", "3", "5"])
        #expect(
            try f.keys("Candidate", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "address.city")]) == [
                "3", "2", "4", "1", "5",
            ])
        #expect(
            try f.keys("Candidate", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "vice.party.coalition.name")])
                == ["2", "4", "1", "3", "5"])
        #expect(
            try f.keys("Good", "value > 10", sortedBy: [SortKey(keyPath: "value", ascending: false)]) == [
                "2", "6", "1", "4", "3",
            ])
        #expect(
            try f.keys("Dog", "TRUEPREDICATE", sortedBy: [SortKey(keyPath: "owner.name", ascending: false)]) == [
                "4", "1", "2", "3",
            ])
    }

    @Test func orderByEndsWithTheKeyColumn() throws {
        let f = try QueryFixture()
        #expect(try f.compiler.orderBy([], on: "Candidate", alias: "t0") == "t0.\"id\" ASC")
        #expect(
            try f.compiler.orderBy([SortKey(keyPath: "id", ascending: false)], on: "Candidate", alias: "t0")
                == "t0.\"id\" DESC")
        #expect(
            try f.compiler.orderBy([SortKey(keyPath: "name")], on: "Dog", alias: "d")
                == "d.\"name\" ASC, d.\"_id\" ASC")
        #expect(
            try f.compiler.orderBy([SortKey(keyPath: "party.acronym")], on: "Candidate", alias: "t0")
                == "(SELECT x1.\"acronym\" FROM \"Party\" x1 WHERE x1.\"id\" = t0.\"party\") ASC, t0.\"id\" ASC")
    }

    @Test func sortErrorsNameTheKeyPath() throws {
        let f = try QueryFixture()
        func message(_ keyPath: String) -> String {
            do {
                _ = try f.compiler.orderBy([SortKey(keyPath: keyPath)], on: "Candidate", alias: "t0")
                return ""
            } catch { return "\(error)" }
        }
        #expect(message("nmae") == "cannot sort by 'nmae': Candidate has no property 'nmae' (did you mean 'name'?)")
        #expect(message("goods.value") == "cannot sort by 'goods.value': it goes through a list, so it has many values")
        #expect(message("party") == "cannot sort by 'party', a link to Party: sort by one of its properties")
        #expect(message("address") == "cannot sort by 'address', an embedded object: sort by one of its properties")
        #expect(message("party.") == "cannot sort by 'party.': Party has no property ''")
    }

    // MARK: - SQL shape and safety

    @Test func valuesAreAlwaysBoundParameters() throws {
        let f = try QueryFixture()
        let p = try QueryPredicate.parse(
            "name == 'x' AND age > 5 AND party.acronym BEGINSWITH[c] 'P' AND ANY goods.value > 10.5")
        let (sql, bindings) = try f.compiler.compile(p, on: "Candidate")
        #expect(!sql.contains("'"))
        #expect(!sql.contains("5"))
        #expect(bindings == [.text("x"), .integer(5), .text("p*"), .integer(1050)])
        #expect(sql.components(separatedBy: "?").count - 1 == bindings.count)
    }

    @Test func toOneKeyPathIsACorrelatedScalarSubquery() throws {
        let f = try QueryFixture()
        let (sql, bindings) = try f.compiler.compile(
            try QueryPredicate.parse("party.acronym == 'PSTU'"), on: "Candidate")
        #expect(sql == "(SELECT x1.\"acronym\" FROM \"Party\" x1 WHERE x1.\"id\" = t0.\"party\") = ?")
        #expect(bindings == [.text("PSTU")])
        let nested = try f.compiler.compile(try QueryPredicate.parse("name == nil"), on: "Candidate", alias: "c")
        #expect(nested.sql == "c.\"name\" IS NULL")
    }

    @Test func listKeyPathIsAnExistsSubquery() throws {
        let f = try QueryFixture()
        let (sql, _) = try f.compiler.compile(try QueryPredicate.parse("ANY goods.value > 1000"), on: "Candidate")
        #expect(
            sql == "EXISTS (SELECT 1 FROM \"Candidate_goods\" x1 JOIN \"Good\" x2 ON x2.\"_id\" = x1.\"target\" "
                + "WHERE x1.\"owner\" = t0.\"id\" AND (x2.\"value\" > ?))")
        let count = try f.compiler.compile(try QueryPredicate.parse("goods.@count > 2"), on: "Candidate")
        #expect(count.sql == "(SELECT COUNT(*) FROM \"Candidate_goods\" x1 WHERE x1.\"owner\" = t0.\"id\") > ?")
    }

    @Test func injectionAttemptsStayValues() throws {
        let f = try QueryFixture()
        #expect(try f.keys("Candidate", "name == '; DROP TABLE \"Party\"; --'") == [])
        #expect(try f.keys("Candidate", "name == %@", ["x' OR '1'='1"]) == [])
        #expect(try f.keys("Candidate", "name == \"x\\\" OR 1=1 --\"") == [])
        #expect(try f.connection.tableExists("Party"))
        #expect(try f.connection.integer("SELECT count(*) FROM \"Party\"") == 4)
    }

    @Test func propertyNamesWithQuotesAreUnknown() throws {
        let f = try QueryFixture()
        let sneaky = QueryPredicate.comparison(
            PredicateComparison(.keyPath(PredicateKeyPath(["name\" = \"name\" OR 1=1 --"])), .equal, .value("x")))
        #expect(throws: QueryPredicateError(at: 0, "Candidate has no property 'name\" = \"name\" OR 1=1 --'")) {
            _ = try f.compiler.compile(sneaky, on: "Candidate")
        }
        #expect(
            f.error("Candidate", "%K == 'x'", [.keyPath("name\" OR 1=1 --")])
                == "at 1: argument 1 for %K is not a key path: 'name\" OR 1=1 --'")
        #expect(f.error("Candidate", "\"name\" == 'x'") != nil)
        #expect(throws: StoreError.unknownType("Party\"; DROP TABLE x; --")) {
            _ = try f.compiler.compile(.truePredicate, on: "Party\"; DROP TABLE x; --")
        }
        #expect(throws: QueryPredicateError.self) {
            _ = try f.compiler.compile(.truePredicate, on: "Party", alias: "t0; DROP")
        }
        #expect(try f.connection.tableExists("Party"))
    }

    // MARK: - Errors

    static let errors: [(String, String, String)] = [
        ("Candidate", "nmae == 'x'", "at 1: Candidate has no property 'nmae' (did you mean 'name'?)"),
        ("Candidate", "party.acronim == 'x'", "at 7: Party has no property 'acronim' (did you mean 'acronym'?)"),
        ("Candidate", "zzz == 1", "at 1: Candidate has no property 'zzz'"),
        ("Candidate", "note == 'x'", "at 1: Candidate.note is ignored (not stored), so queries cannot use it"),
        ("Candidate", "name == 5", "at 9: name is a string; compare it with a quoted value"),
        ("Candidate", "party.acronym == 1.5", "at 18: party.acronym is a string; compare it with a quoted value"),
        ("Candidate", "age == '5'", "at 8: age is a number; compare it with a number, not a quoted value"),
        ("Candidate", "age IN {1, '2'}", "at 8: age is a number; compare it with a number, not a quoted value"),
        ("Candidate", "age > %@", "at 7: age is a number; compare it with a number, not a quoted value"),
        ("Candidate", "age == true", "at 8: age is a number; compare it with a number, not true"),
        ("Candidate", "elected == 'yes'", "at 12: elected is a bool; compare it with true or false"),
        ("Candidate", "elected > false", "at 9: elected is a bool; only ==, != and IN apply to it"),
        (
            "Candidate", "born > 2000",
            "at 8: born is a date; compare it with a date argument (%@) or ISO-8601 text like '2016-10-02'"
        ),
        ("Candidate", "token == 'abc'", "at 10: token is a uuid; compare it with a uuid argument (%@) or its text"),
        (
            "Candidate", "party == 'PSTU'",
            "at 10: party is a link to Party; compare it with nil, a Party object or its int64 key"
        ),
        ("Candidate", "party > 1", "at 7: party is a link to Party; only ==, != and IN apply to it"),
        ("Candidate", "address == 'x'", "at 12: address is an embedded Address; it can only be compared with nil"),
        ("Candidate", "address.town == 'x'", "at 9: Address has no property 'town'"),
        ("Candidate", "age BEGINSWITH '1'", "at 5: BEGINSWITH needs a string; age is a number"),
        ("Candidate", "age ==[c] 5", "at 5: [c] and [d] only apply to strings; age is a number"),
        ("Candidate", "age > nil", "at 7: only == and != can compare with nil"),
        ("Candidate", "name.@count > 1", "at 6: @count needs a list or linkingObjects property; name is a string"),
        (
            "Candidate", "party.@count > 1",
            "at 7: @count needs a list or linkingObjects property; party is a link to Party"
        ),
        ("Candidate", "@count > 1", "at 1: @count needs a key path before it, like goods.@count"),
        ("Candidate", "goods.@count.value > 1", "at 14: nothing can follow @count"),
        ("Candidate", "goods.@sum > 1", "at 7: @sum needs the property to aggregate, like goods.@sum.value"),
        ("Candidate", "goods.@sum.detail > 1", "at 12: @sum needs a number property; detail is a string"),
        (
            "Candidate", "goods.@first.value > 1",
            "at 7: unknown collection operator '@first': use @count, @sum, @min, @max or @avg"
        ),
        ("Candidate", "name.first == 'x'", "at 6: name is a string; it has no property 'first'"),
        (
            "Candidate", "ANY name == 'x'",
            "at 5: ANY needs a key path through a list or linkingObjects; name is a string"
        ),
        (
            "Candidate", "ALL party.acronym == 'x'",
            "at 5: ALL needs a key path through a list or linkingObjects; party.acronym is a string"
        ),
        (
            "Candidate", "goods == nil",
            "at 10: goods is a list; compare goods.@count with 0 to find objects with an empty one"
        ),
        ("Candidate", "name == age", "at 9: cannot compare name (a string) with age (a number)"),
        (
            "Candidate", "age > goods.value",
            "at 7: goods.value goes through a list: put it on the left, after ANY, ALL or NONE"
        ),
        ("Candidate", "5 IN age", "at 6: IN needs age to be a list or linkingObjects key path, or a list of values"),
        ("Candidate", "'a' BEGINSWITH name", "at 1: put the key path on the left of BEGINSWITH"),
        ("Candidate", "1 == 1", "at 1: == needs a key path on one side; both sides are values"),
        ("Candidate", "name LIKE nickname", "at 11: LIKE needs values on its right, not the key path nickname"),
        ("Good", "value > 'x'", "at 9: value is a number; compare it with a number, not a quoted value"),
        ("Good", "holder.value > 1", "at 8: Candidate has no property 'value'"),
        (
            "Party", "members == 1 AND mebers.@count > 1",
            "at 18: Party has no property 'mebers' (did you mean 'members'?)"
        ),
    ]

    @Test(arguments: 0..<errors.count)
    func errorsSayWhereAndWhat(_ i: Int) throws {
        let (type, text, message) = Self.errors[i]
        let args: [QueryArgument] = text.contains("%@") ? ["5"] : []
        #expect(try QueryFixture().error(type, text, args) == message)
    }

    @Test func unknownTypeAndEmbeddedRoot() throws {
        let f = try QueryFixture()
        #expect(throws: StoreError.unknownType("Nope")) { _ = try f.compiler.compile(.truePredicate, on: "Nope") }
        #expect(throws: StoreError.unknownType("Address")) { _ = try f.compiler.compile(.truePredicate, on: "Address") }
    }

    // MARK: - Folding

    @Test func foldingMatchesTheSQLFunction() throws {
        let f = try QueryFixture()
        #expect(TextFolding.fold("JOSÉ", .diacriticInsensitive) == "JOSE")
        #expect(TextFolding.fold("JOSÉ", .caseInsensitive) == "josé")
        #expect(TextFolding.fold("Ênio Ávila", [.caseInsensitive, .diacriticInsensitive]) == "enio avila")
        #expect(TextFolding.fold("Jose\u{301}", .caseInsensitive) == "josé")  // decomposed in, composed out
        #expect(TextFolding.fold("ABC", []) == "ABC")
        #expect(try f.connection.scalar("SELECT urna_fold('SÃO Paulo', 3)") == .text("sao paulo"))
        #expect(try f.connection.scalar("SELECT urna_fold('SÃO Paulo', 1)") == .text("são paulo"))
        #expect(try f.connection.scalar("SELECT urna_fold(NULL, 3)") == .null)
    }

    @Test func foldingKeepsACharacterOutsideTheBasicPlaneBeforeAnAccent() throws {
        // Foundation's composition on Linux turned "e" + U+10055 + U+0301 into "e" + U+00DA.
        #expect(TextFolding.fold("E\u{10055}\u{301}", .caseInsensitive) == "e\u{10055}\u{301}")
        #expect(TextFolding.fold("e\u{E0102}\u{301}x", .caseInsensitive) == "e\u{E0102}\u{301}x")
        #expect(TextFolding.fold("\u{11099}\u{110BA}", .caseInsensitive) == "\u{1109A}")  // composes outside it too
        #expect(TextFolding.fold("e\u{301}\u{1D167}", .caseInsensitive) == "\u{E9}\u{1D167}")
    }

    @Test func decomposedTextMatchesUnderModifiers() throws {
        let f = try QueryFixture()
        try f.connection.execute("INSERT INTO \"Dog\" (\"_id\", \"name\", \"color\") VALUES (9, 'Jose\u{301}', 'tan')")
        #expect(try f.keys("Dog", "name ==[c] 'josé'") == ["9"])
        #expect(try f.keys("Dog", "name ==[d] 'Jose'") == ["9"])
    }
}

extension FilterCase {
    /// The same case with its expected keys in key order (for cases written in a reading order).
    var sorted: FilterCase {
        FilterCase(type, predicate, arguments, expected.compactMap { Int($0) }.sorted())
    }
}
