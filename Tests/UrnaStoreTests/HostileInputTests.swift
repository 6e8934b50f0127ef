import Foundation
import Testing

@testable import UrnaStore

/// Predicates, key paths and schema names written to break out of SQL: each is refused with an error
/// value or treated as plain data, and every test proves afterwards that the tables and their rows are
/// exactly as they were.
@Suite("Hostile input")
struct HostileInputTests {
    static let schema = try! Schema(
        family: "hostile", version: 1,
        types: [
            ObjectSchema(
                "Person",
                [
                    Property("name", .string, default: ""),
                    Property("age", .int64, default: 0),
                    Property("party", .link("Party")),
                ]),
            ObjectSchema("Party", [Property("acronym", .string, primaryKey: true)]),
        ])

    /// A value that closes a quote, ends the statement and drops a table if it ever reaches SQL as text.
    static let dropPerson = "'; DROP TABLE \"Person\"; --"

    /// A store with two parties and three people, one of whom is named like an injection attempt.
    static func populatedStore() throws -> Store {
        let store = try Store.inMemory(schema: schema)
        try store.write {
            try store.create("Party", value: ["acronym": "PT"])
            try store.create("Party", value: ["acronym": "PSTU"])
            try store.create(
                "Person", value: ["name": "Ada", "age": 36, "party": ["acronym": "PT"]] as [String: Any],
                update: .modified)
            try store.create("Person", value: ["name": "Bob", "age": 40])
            try store.create("Person", value: ["name": dropPerson, "age": 7])
        }
        return store
    }

    /// Every table, index and trigger with its SQL: what an injected statement would change.
    static func schemaObjects(_ store: Store) throws -> [String] {
        try store.connection.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name").map { "\($0)" }
    }

    /// The store still has exactly the tables, objects and rows `populatedStore()` made.
    static func expectIntact(_ store: Store, _ before: [String], sourceLocation: SourceLocation = #_sourceLocation)
        throws
    {
        #expect(try store.counts() == ["Person": 3, "Party": 2], sourceLocation: sourceLocation)
        #expect(try schemaObjects(store) == before, sourceLocation: sourceLocation)
        let names = try store.connection.rows("SELECT name FROM \"Person\" ORDER BY \"_id\"").map { $0[0] }
        #expect(names == [.text("Ada"), .text("Bob"), .text(dropPerson)], sourceLocation: sourceLocation)
    }

    /// How many people a predicate selects.
    static func count(_ store: Store, _ predicate: String, _ arguments: QueryArgument...) throws -> Int {
        try store.objects("Person").filter(predicate, arguments: arguments).count
    }

    // MARK: - Values in predicates

    @Test("Injection attempts in predicate values are bound as data, never run")
    func injectionInValuesIsData() throws {
        let store = try Self.populatedStore()
        let before = try Self.schemaObjects(store)
        // The literal is found as a name (one person really is called that), not executed.
        #expect(try Self.count(store, #"name == "'; DROP TABLE \"Person\"; --""#) == 1)
        #expect(try Self.count(store, #"name == '\'; DROP TABLE "Person"; --'"#) == 1)
        #expect(try Self.count(store, #"name == '; DROP TABLE "Person"; --'"#) == 0)
        #expect(try Self.count(store, "name == %@", .string(Self.dropPerson)) == 1)
        #expect(try Self.count(store, #"name == "'); DELETE FROM Person; --""#) == 0)
        // A tautology only matches a person literally named so, which no one is.
        #expect(try Self.count(store, "name == %@", .string("x' OR '1'='1")) == 0)
        #expect(try Self.count(store, #"name BEGINSWITH "' OR 1=1 --""#) == 0)
        #expect(
            try Self.count(store, "name IN %@", .values([.string("Ada'); DROP TABLE Party; --"), .string("Bob")])) == 1)
        // SQL's LIKE wildcards are plain characters here (LIKE uses * and ?).
        #expect(try Self.count(store, "name LIKE '%'") == 0)
        #expect(try Self.count(store, "name LIKE '_da'") == 0)
        #expect(try Self.count(store, "name LIKE '?da'") == 1)
        #expect(try Self.count(store, "name CONTAINS[c] %@", .string("DROP TABLE")) == 1)
        try Self.expectIntact(store, before)
    }

    @Test("The compiled SQL of a hostile predicate holds only placeholders for its values")
    func compiledSQLHasNoValueText() throws {
        let compiler = QueryCompiler(schema: Self.schema)
        let p = try QueryPredicate.parse(
            "name == %@ OR name BEGINSWITH[c] %@ OR party.acronym IN %@",
            arguments: [.string(Self.dropPerson), .string("\"; --"), .values([.string("'); DROP TABLE x; --")])])
        let (sql, bindings) = try compiler.compile(p, on: "Person")
        #expect(!sql.contains("DROP"))
        #expect(!sql.contains(";"))
        #expect(!sql.contains("'"))
        #expect(sql.filter { $0 == "?" }.count == bindings.count)
        #expect(bindings.contains(.text(Self.dropPerson)))
    }

    /// How many people a predicate selects, or nil when it is refused with a predicate or store error.
    static func countOrRefusal(_ store: Store, _ predicate: String, _ arguments: [QueryArgument] = []) throws -> Int? {
        do {
            return try store.objects("Person").filter(predicate, arguments: arguments).count
        } catch is QueryPredicateError {
            return nil
        } catch is StoreError {
            return nil
        }
    }

    @Test("A NUL inside a string value is a character or a refusal, never the end of the text")
    func nulInStringValues() throws {
        let store = try Self.populatedStore()
        let before = try Self.schemaObjects(store)
        // "Ada\0..." must not be taken for "Ada": SQLite must get the whole text, or the query be refused.
        for (predicate, arguments) in [
            ("name == %@", [QueryArgument.string("Ada\u{0}; DROP TABLE Person")]),
            (#"name == 'Ada\0x'"#, []),
            ("name BEGINSWITH %@", [.string("Ad\u{0}")]),
            ("name IN %@", [.values([.string("Bob\u{0}"), .string("x")])]),
        ] as [(String, [QueryArgument])] {
            let count = try Self.countOrRefusal(store, predicate, arguments)
            #expect(count == nil || count == 0, "\(predicate) with \(arguments) matched \(count ?? 0) people")
        }
        try Self.expectIntact(store, before)

        // Stored text keeps its NUL (or the write is refused), on the dictionary path and the fast path.
        for value in [
            ["name": "Eve\u{0}evil", "age": 1] as Any, [Value.string("Eve\u{0}evil"), .int(1)] as Any,
        ] {
            let other = try Store.inMemory(schema: Self.schema)
            do {
                try other.write {
                    if let ordered = value as? [Value] {
                        try other.create("Person", value: ordered)
                    } else {
                        try other.create("Person", value: value)
                    }
                }
            } catch is StoreError {
                continue
            }
            let stored = try other.connection.rows("SELECT name FROM \"Person\"").map { $0[0] }
            #expect(stored == [.text("Eve\u{0}evil")], "stored through \(type(of: value))")
            #expect(try Self.countOrRefusal(other, "name == %@", [.string("Eve\u{0}evil")]) == 1)
            #expect(try Self.countOrRefusal(other, "name == 'Eve'") == 0)
        }
    }

    // MARK: - Key paths and type names

    @Test(
        "Quotes, backticks and NUL in key paths are parse or compile errors with a position",
        arguments: [
            "`name` == 'Ada'", "name` == 'Ada'", "\"name\" == 'Ada'", "name\" == 'Ada'", "[name] == 'Ada'",
            "n\u{0}ame == 'Ada'", "name; DROP TABLE Person == 1", "name == 'Ada'; DROP TABLE \"Person\"",
            "name == 'Ada' -- ' OR 1 == 1", "party.\"acronym\" == 'PT'", "party.acronym\"; DROP TABLE Party; -- == 1",
        ])
    func hostileKeyPathsAreErrors(_ text: String) throws {
        let store = try Self.populatedStore()
        let before = try Self.schemaObjects(store)
        #expect {
            _ = try store.objects("Person").filter(text).count
        } throws: { error in
            guard let error = error as? QueryPredicateError else { return false }
            return error.position >= 1 && error.position <= text.count + 1 && !error.message.isEmpty
        }
        try Self.expectIntact(store, before)
    }

    @Test("Key paths, type and property names given as arguments are checked against the schema")
    func hostileNamesOutsideThePredicateText() throws {
        let store = try Self.populatedStore()
        let before = try Self.schemaObjects(store)
        #expect(throws: QueryPredicateError.self) {
            _ = try store.objects("Person").filter("%K == 1", .keyPath("name\"; DROP TABLE \"Person\"; --"))
        }
        #expect(throws: QueryPredicateError.self) {
            _ = try store.objects("Person").sorted(byKeyPath: "name\" DESC; DROP TABLE \"Person\"; --").count
        }
        #expect(throws: StoreError.unknownType("Person\"; DROP TABLE \"Person\"; --")) {
            _ = try store.objects("Person\"; DROP TABLE \"Person\"; --")
        }
        #expect(throws: StoreError.self) {
            try store.write {
                try store.objects("Person").setValue(.int(1), forKey: "age\" = 0; DROP TABLE \"Person\"; --")
            }
        }
        #expect(throws: StoreError.self) {
            try store.write { try store.create("Person", value: ["name\"); DROP TABLE \"Person\"; --": "x"]) }
        }
        #expect(throws: StoreError.self) {
            _ = try store.object(ofType: "Party\" WHERE 1; DROP TABLE \"Party\"; --", forPrimaryKey: .string("PT"))
        }
        // A primary key value is a value like any other.
        #expect(try store.object(ofType: "Party", forPrimaryKey: .string("PT' OR '1'='1")) == nil)
        try Self.expectIntact(store, before)
    }

    @Test("A 100,000-character name or string is an ordinary error or value")
    func veryLongNames() throws {
        let store = try Self.populatedStore()
        let before = try Self.schemaObjects(store)
        let long = String(repeating: "a", count: 100_000)
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            _ = try store.objects("Person").filter("\(long) == 1")
        } throws: { error in
            (error as? QueryPredicateError)?.message.hasPrefix("Person has no property") == true
        }
        #expect(throws: QueryPredicateError.self) { _ = try store.objects("Person").filter("party.\(long) == 1") }
        #expect(try Self.count(store, "name == '\(long)'") == 0)
        #expect(try Self.count(store, "name == %@", .string(long + Self.dropPerson)) == 0)
        #expect(throws: StoreError.unknownType(long)) { _ = try store.objects(long) }
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(5), "long names must not make the parser or its suggestions slow")
        try Self.expectIntact(store, before)
    }

    // MARK: - Deep nesting

    @Test("Parentheses nested 100,000 deep are parsed or refused without overflowing the stack")
    func deeplyNestedParentheses() async {
        // In a child process: a stack overflow would otherwise take the whole test run down with it.
        await #expect(processExitsWith: .success) {
            let depth = 100_000
            let text = String(repeating: "(", count: depth) + "age == 1" + String(repeating: ")", count: depth)
            do {
                let nested = try QueryPredicate.parse(text)
                let plain = try QueryPredicate.parse("age == 1")
                precondition(nested == plain, "parentheses changed the predicate")
            } catch let error as QueryPredicateError {
                precondition(error.position >= 1, "the error has no position: \(error)")
            }
        }
    }

    @Test("NOT nested 100,000 deep is parsed and compiled or refused without overflowing the stack")
    func deeplyNestedNegations() async {
        await #expect(processExitsWith: .success) {
            let schema = try! Schema(
                family: "hostile", version: 1, types: [ObjectSchema("Person", [Property("age", .int64, default: 0)])])
            let store = try! Store.inMemory(schema: schema)
            for text in [
                String(repeating: "NOT ", count: 100_000) + "age == 1",
                String(repeating: "!(", count: 100_000) + "age == 1" + String(repeating: ")", count: 100_000),
            ] {
                do {
                    _ = try store.objects("Person").filter(text).count
                } catch is QueryPredicateError {
                } catch let error as SQLiteError {
                    // SQLite's own parser limit, reached only if the predicate got that far: still an error value.
                    precondition(error.message.contains("stack overflow") || error.message.contains("too large"))
                } catch {
                    preconditionFailure("unexpected error \(error)")
                }
            }
        }
    }

    @Test("Nesting deeper than SQLite's parser can take is refused by the predicate parser, with a position")
    func nestingLimitIsOurs() throws {
        // 300 negations compile to 300 nested "(...) IS NOT 1": SQLite's parser gives up ("parser stack
        // overflow", SQLiteError with the whole statement); the predicate parser should refuse first.
        let store = try Self.populatedStore()
        let text = String(repeating: "NOT ", count: 300) + "age == 1"
        #expect {
            _ = try store.objects("Person").filter(text).count
        } throws: { error in
            error is QueryPredicateError
        }
    }

    @Test("A flat chain of 1,001 ANDs or ORs is refused with a position, or runs: never SQLite's depth error")
    func longConjunctions() throws {
        // SQLite parses "a AND b AND c ..." into a tree as deep as the chain; past 1,000 it refuses the whole
        // statement ("Expression tree is too large"), at the first read, without a position in the predicate.
        let store = try Self.populatedStore()
        for joiner in [" AND ", " OR "] {
            let text = Array(repeating: "age == 1", count: 1_001).joined(separator: joiner)
            do {
                #expect(try store.objects("Person").filter(text).count == 0)
            } catch let error as QueryPredicateError {
                #expect(error.position > 0)
            }
        }
    }

    // MARK: - Schema names

    @Test(
        "Type names that try injection are refused by validation",
        arguments: [
            "Person\"; DROP TABLE \"Person\"; --", "`Person`", "Person`; DROP TABLE Person; --", "[Person]",
            "Per son", "Person\u{0}", "Per\u{0}son", "'Person'", "Person--", "1Person", "", "Pérson", "Person;",
            String(repeating: "P", count: 65), String(repeating: "P", count: 100_000),
        ])
    func hostileTypeNames(_ name: String) {
        #expect(throws: SchemaError.self) {
            _ = try Schema(family: "hostile", version: 1, types: [ObjectSchema(name, [Property("a", .string)])])
        }
        let json =
            #"{"family": "hostile", "version": 1, "types": [{"name": \#(Self.jsonString(name)), "properties": []}]}"#
        #expect(throws: SchemaError.self) { _ = try SchemaDescriptor.decode(json) }
    }

    @Test(
        "Property names and link targets that try injection are refused by validation",
        arguments: [
            "a\"); DROP TABLE \"Person\"; --", "`a`", "a b", "a\u{0}", "\"", "'", "a.b", "@count", "_urna_x\"",
            String(repeating: "a", count: 100_000),
        ])
    func hostilePropertyNames(_ name: String) {
        #expect(throws: SchemaError.self) {
            _ = try Schema(family: "hostile", version: 1, types: [ObjectSchema("T", [Property(name, .string)])])
        }
        #expect(throws: SchemaError.self) {
            _ = try Schema(family: "hostile", version: 1, types: [ObjectSchema("T", [Property("l", .link(name))])])
        }
        #expect(throws: SchemaError.self) {
            _ = try Schema(
                family: "hostile", version: 1,
                types: [
                    ObjectSchema("T", [Property("l", .linkingObjects(type: "T", property: name))])
                ])
        }
    }

    @Test("A hostile family name and default value are stored as data")
    func hostileFamilyAndDefault() throws {
        let schema = try Schema(
            family: Self.dropPerson, version: 1,
            types: [ObjectSchema("T", [Property("s", .string, default: DefaultValue.string(Self.dropPerson))])])
        let store = try Store.inMemory(schema: schema)
        try store.write { try store.create("T", value: [String: Any]()) }
        #expect(try store.objects("T").first?["s"] == .string(Self.dropPerson))
        #expect(try Store.recordedSchema(in: store.connection)?.family == Self.dropPerson)
        #expect(try store.counts() == ["T": 1])
    }

    /// Found by the schema fuzzer (Sources/UrnaFuzz, target schema): a recorded descriptor whose string
    /// default held "\u0000" passed validation, and CREATE TABLE failed with "unrecognized token" because
    /// SQLite reads the statement only up to the NUL. Minimised to one property.
    static let nulDefaultDescriptor = #"""
        {"family": "fuzz", "version": 1, "types": [
          {"name": "T", "properties": [{"name": "s", "type": "string", "default": "a\u0000b"}]}
        ]}
        """#

    @Test("A NUL in a string default is refused by validation or stored intact, never an SQL error (fuzz finding)")
    func nulInStringDefault() throws {
        do {
            let schema = try SchemaDescriptor.decode(Self.nulDefaultDescriptor)
            // Accepted: then the table must be created and the default must keep its NUL.
            let store = try Store.inMemory(schema: schema)
            try store.write { try store.create("T", value: [String: Any]()) }
            #expect(try store.objects("T").first?["s"] == .string("a\u{0}b"))
        } catch is SchemaError {
            // Refused by validation, with a message: as good.
        }
    }

    @Test("A file whose recorded descriptor was tampered with is refused, and its tables are untouched")
    func tamperedDescriptorIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "urna-hostile-\(UUID().uuidString).sqlite"
        ).path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do {
            let store = try Store(path: path, schema: Self.schema)
            try store.write {
                try store.create("Party", value: ["acronym": "PT"])
                try store.create("Person", value: ["name": "Ada"])
            }
            let tampered = SchemaDescriptor.encode(Self.schema).replacingOccurrences(
                of: "\"Party\"", with: #""Party\\\"; DROP TABLE \\\"Person\\\"; --""#)
            try store.connection.run("UPDATE _urna_schema SET descriptor = ?", [.text(tampered)])
        }
        #expect(throws: SchemaError.self) { _ = try Store.openExisting(path: path) }
        let raw = try Connection(path: path, readOnly: true, create: false)
        #expect(try raw.integer("SELECT count(*) FROM \"Person\"") == 1)
        #expect(try raw.integer("SELECT count(*) FROM \"Party\"") == 1)
    }

    @Test(
        "Names SQLite cannot tell apart are refused by validation, not by CREATE TABLE",
        arguments: [
            ("two types differing in case", [ObjectSchema("Person", []), ObjectSchema("person", [])]),
            (
                "two properties differing in case",
                [ObjectSchema("Person", [Property("name", .string), Property("Name", .string)])]
            ),
            ("SQLite's reserved prefix in capitals", [ObjectSchema("SQLITE_stat1", [])]),
            ("the store's metadata table in capitals", [ObjectSchema("_URNA_SCHEMA", [])]),
            (
                "a type named like another type's list table",
                [
                    ObjectSchema("A", [Property("b", .list("B"))]), ObjectSchema("B", []), ObjectSchema("A_b", []),
                ]
            ),
            (
                "a type named like another type's index",
                [ObjectSchema("A", [Property("b", .string, indexed: true)]), ObjectSchema("A_b_idx", [])]
            ),
        ] as [(String, [ObjectSchema])])
    func namesSQLiteCannotTellApart(_ what: String, _ types: [ObjectSchema]) throws {
        let problems = Schema(unchecked: "hostile", version: 1, types: types).problems()
        #expect(!problems.isEmpty, "validation accepts \(what)")
        if problems.isEmpty {
            // What happens today: the schema is accepted and the store fails half-way through creating it.
            #expect(throws: SchemaError.self) {
                _ = try Store.inMemory(schema: try Schema(family: "hostile", version: 1, types: types))
            }
        }
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        let data = try! JSONEncoder().encode(text)
        return String(decoding: data, as: UTF8.self)
    }
}
