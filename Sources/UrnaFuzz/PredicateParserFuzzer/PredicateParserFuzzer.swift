// libFuzzer target for `QueryPredicate.parse`, followed through `QueryCompiler` and SQLite: every
// predicate that parses is compiled against a small schema and run on a store that holds a few
// objects, which must be exactly as they were afterwards. Built by Sources/UrnaFuzz/run-fuzzers.sh
// into the UrnaStore module; not part of any SwiftPM target.
//
// Input: byte 0 = queried type (bits 0-1: Person, Party, Good, or a name no schema has) and bit 2 =
// also sort by the first key path; byte 1 = which arguments fill %@ / %K / %d / %f; rest = the predicate.
//
// Invariants, besides "no crash": errors are QueryPredicateError or StoreError with a position inside
// the text; the SQL holds no literal but the compiler's own JSON paths, and one `?` per bound value
// (values never reach SQL as text); SQLite accepts what the compiler wrote; no table, row or schema
// object changes.

import Foundation

/// The store every input runs against, built on the first input.
private final class PredicateFixture {
    static let schema = try! Schema(
        family: "fuzz", version: 1,
        types: [
            ObjectSchema(
                "Person",
                [
                    Property("name", .string, default: "", indexed: true),
                    Property("age", .int64, optional: true),
                    Property("score", .double, optional: true),
                    Property("born", .date, optional: true),
                    Property("flag", .bool, default: false),
                    Property("amount", .decimal(scale: 2), default: 0),
                    Property("photo", .data, optional: true),
                    Property("token", .uuid, optional: true),
                    Property("party", .link("Party")),
                    Property("goods", .list("Good")),
                    Property("address", .embedded("Address"), optional: true),
                ]),
            ObjectSchema(
                "Party",
                [
                    Property("acronym", .string, primaryKey: true),
                    Property("number", .int64, default: 0),
                    Property("members", .linkingObjects(type: "Person", property: "party")),
                ]),
            ObjectSchema(
                "Good",
                [Property("description", .string, default: ""), Property("value", .decimal(scale: 2), default: 0)]),
            ObjectSchema(
                "Address", embedded: true,
                [Property("city", .string, default: ""), Property("zip", .string, optional: true)]),
        ])

    let store: Store
    let counts: [String: Int]
    let schemaObjects: String

    init() {
        do {
            let store = try Store.inMemory(schema: Self.schema)
            try store.write {
                try store.create("Party", value: ["acronym": "PT", "number": 13])
                try store.create("Party", value: ["acronym": "PSTU", "number": 16])
                try store.create(
                    "Person",
                    value: [
                        "name": "Ada", "age": 36, "score": 1.5, "flag": true, "amount": 10,
                        "party": ["acronym": "PT", "number": 13],
                        "goods": [["description": "house", "value": 100], ["description": "car", "value": 7]],
                        "address": ["city": "Rio Branco", "zip": "69900"],
                    ] as [String: Any], update: .modified)
                try store.create("Person", value: ["name": "Bob'; DROP TABLE \"Person\"; --", "age": 40])
                try store.create("Person", value: ["name": "José"])
                try store.create("Good", value: ["description": "loose", "value": 1])
            }
            self.store = store
            counts = try store.counts()
            schemaObjects = try Self.schemaObjects(store)
        } catch {
            fatalError("the fuzz fixture could not be built: \(error)")
        }
    }

    /// Every table, index and trigger SQLite knows, with its SQL.
    static func schemaObjects(_ store: Store) throws -> String {
        try store.connection.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name").map { "\($0)" }.joined(
            separator: "\n")
    }
}

nonisolated(unsafe) private var fixture: PredicateFixture?

private let keyPathArguments = [
    "name", "age", "party.acronym", "goods.@count", "goods.value", "address.city", "party.members.name", "nope",
    "name\"; DROP TABLE Person; --", "a..b", "", "@count",
]

private func argument(_ placeholder: Character, _ selector: Int) -> QueryArgument {
    switch placeholder {
    case "K": return .keyPath(keyPathArguments[selector % keyPathArguments.count])
    case "d": return .value(.int(Int64(selector) - 3))
    case "f": return .value(.double(Double(selector) / 4))
    default:
        let values: [QueryArgument] = [
            .value(.string("'; DROP TABLE \"Person\"; --")), .value(.int(Int64.max)), .value(.double(-0.5)),
            .value(.bool(true)), .value(.null), .values([.string("PT"), .int(1), .null]),
            .value(.date(Date(timeIntervalSince1970: 1e9))),
            .value(.uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5, 6)))),
            .value(.data(Data([0, 0x27, 0x3B]))), .value(.decimal(Decimal(string: "12.345")!)),
            .values([]), .value(.string("a\u{0}b")), .keyPath("name"), .value(.double(.nan)),
            .value(.link(LinkTarget(type: "Party", key: .string("PT")))), .values([.string("x"), .string("y")]),
        ]
        return values[selector % values.count]
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicateParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if fixture == nil { fixture = PredicateFixture() }
    let fixture = fixture!
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let selector = Int(input.byte())
    let text = String(decoding: input.rest(), as: UTF8.self)
    let typeName = ["Person", "Party", "Good", "Nobody\"; DROP TABLE \"Person"][Int(mode & 3)]

    // As many arguments as the text has placeholders, so the parser gets past the count check.
    let placeholders =
        (try? PredicateLexer.tokenize(text))?.compactMap { token -> Character? in
            if case .placeholder(let letter) = token.kind { return letter }
            return nil
        } ?? []
    let arguments = placeholders.enumerated().map { argument($0.element, selector &+ 7 &* $0.offset) }

    let predicate: QueryPredicate
    do {
        predicate = try QueryPredicate.parse(text, arguments: arguments)
    } catch let error as QueryPredicateError {
        fuzzInvariant(
            error.position >= 0 && error.position <= text.count + 1, "error position \(error.position): \(error)")
        return 0
    } catch {
        fuzzInvariant(false, "parse threw \(type(of: error)): \(error)")
        return 0
    }

    do {
        let compiled = try fixture.store.compiler.compile(predicate, on: typeName)
        checkSQL(compiled.sql, bindings: compiled.bindings.count)
        var results = try fixture.store.objects(typeName).filter(predicate)
        if mode & 4 != 0, let path = firstKeyPath(predicate) {
            results = try results.sorted(byKeyPath: path.description, ascending: mode & 8 == 0)
        }
        _ = try results.count
        for object in results.prefix(3) { _ = object.storedKey }
    } catch is QueryPredicateError {
    } catch is StoreError {
    } catch let error as SQLiteError {
        // The parser's nesting limit (PredicateParser.maximumNesting) keeps compiled SQL within SQLite's
        // parser stack and expression depth; only the LIKE pattern length limit is left to SQLite.
        fuzzInvariant(error.message.contains("too complex"), "SQLite refused the compiled SQL: \(error)")
    } catch {
        fuzzInvariant(false, "compile or run threw \(type(of: error)): \(error)")
    }

    // Nothing a query does may change the store.
    fixture.store.connection.clearStatementCache()  // one cached statement per distinct SQL otherwise
    do {
        let counts = try fixture.store.counts()
        fuzzInvariant(counts == fixture.counts, "row counts changed: \(counts) (were \(fixture.counts))")
        let objects = try PredicateFixture.schemaObjects(fixture.store)
        fuzzInvariant(objects == fixture.schemaObjects, "schema objects changed:\n\(objects)")
    } catch {
        fuzzInvariant(false, "the store cannot be read after the query: \(error)")
    }
    fixture.store.connection.clearStatementCache()
    return 0
}

/// The first key path of a predicate, depth first (for the sort the input may ask for).
private func firstKeyPath(_ predicate: QueryPredicate) -> PredicateKeyPath? {
    switch predicate {
    case .truePredicate, .falsePredicate: return nil
    case .comparison(let c):
        if case .keyPath(let k) = c.left { return k }
        if case .keyPath(let k) = c.right { return k }
        return nil
    case .and(let parts), .or(let parts): return parts.lazy.compactMap(firstKeyPath).first
    case .not(let inner): return firstKeyPath(inner)
    }
}

/// The compiled SQL may quote identifiers and write JSON paths (`'$.city'`), nothing else: any other
/// literal would be a value that reached SQL as text. And it has one `?` per bound value.
private func checkSQL(_ sql: String, bindings: Int) {
    let chars = Array(sql.utf8)
    var i = 0
    var parameters = 0
    while i < chars.count {
        let c = chars[i]
        if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
            var j = i + 1
            var content: [UInt8] = []
            while j < chars.count {
                if chars[j] == c {
                    if j + 1 < chars.count && chars[j + 1] == c {
                        content.append(c)
                        j += 2
                        continue
                    }
                    break
                }
                content.append(chars[j])
                j += 1
            }
            fuzzInvariant(j < chars.count, "unterminated quote in compiled SQL: \(sql)")
            if c == UInt8(ascii: "'") {
                fuzzInvariant(
                    isJSONPath(content), "a literal in compiled SQL: \(String(decoding: content, as: UTF8.self))")
            } else {
                fuzzInvariant(
                    Identifier.isValid(String(decoding: content, as: UTF8.self)),
                    "a quoted identifier that is not a schema name: \(String(decoding: content, as: UTF8.self))")
            }
            i = j + 1
            continue
        }
        if c == UInt8(ascii: "?") { parameters += 1 }
        fuzzInvariant(c != 0 && c != UInt8(ascii: ";"), "a NUL or ';' in compiled SQL: \(sql)")
        i += 1
    }
    fuzzInvariant(parameters == bindings, "\(parameters) parameters for \(bindings) bound values in \(sql)")
}

/// `$.name` or `$.name.name`, names being plain identifiers.
private func isJSONPath(_ bytes: [UInt8]) -> Bool {
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.hasPrefix("$.") else { return false }
    return text.dropFirst(2).split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
        Identifier.isValid(String($0))
    }
}
