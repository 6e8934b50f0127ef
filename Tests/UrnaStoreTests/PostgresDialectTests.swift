import Foundation
import PostgresTestSupport
import Testing
import UrnaPostgres

@testable import UrnaStore

/// The query suite's fixture pushed to a real PostgreSQL server (the storage contract's types there), or the
/// test reports itself skipped with the reason (a failure under URNA_REQUIRE_POSTGRES=1, as `make test` sets).
final class PostgresQueryFixture {
    let sqlite: QueryFixture
    let pg: PostgresConnection
    let compiler = QueryCompiler(schema: QueryFixture.schema, dialect: .postgres)

    init() throws {
        let (cluster, reason) = try PostgresTestCluster.sharedIfAvailable()
        guard let cluster else { try Test.cancel(Comment(rawValue: reason)) }
        sqlite = try QueryFixture()
        try Store.recordSchema(QueryFixture.schema, in: sqlite.connection)
        pg = try PostgresConnection(try cluster.createDatabase(prefix: "dialect"))
        try pg.execute("BEGIN")
        try PostgresTransfer.push(from: sqlite.connection, to: pg, replacing: nil)
        try pg.execute("COMMIT")
    }

    /// The keys `predicate` selects on the server, in `sorts` order (key order when none).
    func keys(_ type: String, _ predicate: QueryPredicate, sortedBy sorts: [SortKey] = []) throws -> [String] {
        let (condition, bindings) = try compiler.compile(predicate, on: type)
        let order = try compiler.orderBy(sorts, on: type, alias: "t0")
        let key = Identifier.quoted(QueryFixture.schema[type: type]!.keyColumn)
        let sql = "SELECT t0.\(key) FROM \(Identifier.quoted(type)) t0 WHERE \(condition) ORDER BY \(order)"
        return try pg.query(sql, bindings.map(SQLDialect.postgresText)).rows.map { $0[0] ?? "NULL" }
    }
}

@Suite("The query suite on SQLite and on PostgreSQL: the same answers from one compiler's two dialects", .serialized)
struct PostgresDialectTests {
    @Test func everyFilterCaseGivesTheSameKeysOnBothBackends() throws {
        let f = try PostgresQueryFixture()
        var compared = 0
        for c in QueryCompilerTests.comparisons {
            let predicate = try QueryPredicate.parse(c.predicate, arguments: c.arguments)
            let onFile = try f.sqlite.keys(c.type, predicate)
            let onServer = try f.keys(c.type, predicate)
            #expect(onServer == onFile, "\(c.type): \(c.predicate)")
            #expect(onServer == c.expected, "\(c.type): \(c.predicate)")
            compared += 1
        }
        #expect(compared == QueryCompilerTests.comparisons.count && compared > 100)
    }

    @Test func sortsGiveTheSameOrderOnBothBackends() throws {
        let f = try PostgresQueryFixture()
        let sorts: [(String, [SortKey])] = [
            ("Candidate", [SortKey(keyPath: "elected")]),
            ("Candidate", [SortKey(keyPath: "elected", ascending: false)]),
            ("Candidate", [SortKey(keyPath: "party.acronym"), SortKey(keyPath: "name")]),
            ("Candidate", [SortKey(keyPath: "age", ascending: false)]), ("Candidate", [SortKey(keyPath: "age")]),
            ("Candidate", [SortKey(keyPath: "nickname")]), ("Candidate", [SortKey(keyPath: "name", ascending: false)]),
            ("Candidate", [SortKey(keyPath: "goods.@count", ascending: false)]),
            ("Candidate", [SortKey(keyPath: "goods.@sum.value")]), ("Candidate", [SortKey(keyPath: "address.city")]),
            ("Candidate", [SortKey(keyPath: "address.zip", ascending: false)]),
            ("Candidate", [SortKey(keyPath: "vice.party.coalition.name")]), ("Candidate", [SortKey(keyPath: "born")]),
            ("Candidate", [SortKey(keyPath: "score", ascending: false)]), ("Candidate", [SortKey(keyPath: "token")]),
            ("Good", [SortKey(keyPath: "value", ascending: false)]), ("Good", [SortKey(keyPath: "detail")]),
            ("Good", [SortKey(keyPath: "type.name"), SortKey(keyPath: "value")]),
            ("Dog", [SortKey(keyPath: "owner.name", ascending: false)]),
            ("Party", [SortKey(keyPath: "members.@count")]),
            ("GoodType", []), ("Task", [SortKey(keyPath: "due", ascending: false)]),
        ]
        for (type, keys) in sorts {
            let all = QueryPredicate.truePredicate
            #expect(
                try f.keys(type, all, sortedBy: keys) == f.sqlite.keys(type, all, sortedBy: keys), "\(type) \(keys)")
        }
    }

    /// PostgreSQL's `sum(real)` adds in single precision (16777216 + 1 + 1 stays 16777216); SQLite adds REALs as
    /// doubles. `@sum` of a float property must give the file's answer on the server too.
    @Test func floatSumsAddAsOnTheFile() throws {
        let (cluster, reason) = try PostgresTestCluster.sharedIfAvailable()
        guard let cluster else { try Test.cancel(Comment(rawValue: reason)) }
        let schema = try Schema(
            family: "floats", version: 0,
            types: [
                ObjectSchema("Reading", [Property("id", .int64, primaryKey: true), Property("v", .float, default: 0)]),
                ObjectSchema(
                    "Sensor", [Property("id", .int64, primaryKey: true), Property("readings", .list("Reading"))]),
            ])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("floats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try Store(path: dir.appendingPathComponent("f.sqlite").path, schema: schema)
        let c = store.connection
        try c.execute(
            "INSERT INTO Reading(id, v) VALUES (1, 16777216), (2, 1), (3, 1); INSERT INTO Sensor(id) VALUES (1); "
                + "INSERT INTO Sensor_readings(owner, position, target) VALUES (1, 0, 1), (1, 1, 2), (1, 2, 3)")
        let pg = try PostgresConnection(try cluster.createDatabase(prefix: "floats"))
        try pg.execute("BEGIN")
        try PostgresTransfer.push(from: c, to: pg, replacing: nil)
        try pg.execute("COMMIT")
        let predicate = try QueryPredicate.parse("readings.@sum.v > 16777216", arguments: [])
        let (onFileSQL, fileBindings) = try QueryCompiler(schema: schema).compile(predicate, on: "Sensor")
        let onFile = try c.rows("SELECT t0.id FROM Sensor t0 WHERE \(onFileSQL)", fileBindings).map {
            $0[0].description
        }
        let (onServerSQL, serverBindings) = try QueryCompiler(schema: schema, dialect: .postgres).compile(
            predicate, on: "Sensor")
        let onServer = try pg.query(
            "SELECT t0.\"id\" FROM \"Sensor\" t0 WHERE \(onServerSQL)", serverBindings.map(SQLDialect.postgresText)
        ).rows.map { $0[0] ?? "NULL" }
        #expect(onFile == ["1"])
        #expect(onServer == onFile)
    }

    @Test func errorsAreTheSameInBothDialects() throws {
        let schema = QueryFixture.schema
        let file = QueryCompiler(schema: schema)
        let server = QueryCompiler(schema: schema, dialect: .postgres)
        func message(_ compiler: QueryCompiler, _ type: String, _ text: String) -> String {
            let args: [QueryArgument] = text.contains("%@") ? ["5"] : []
            do {
                _ = try compiler.compile(try QueryPredicate.parse(text, arguments: args), on: type)
                return "compiled"
            } catch { return "\(error)" }
        }
        for (type, text, expected) in QueryCompilerTests.errors {
            #expect(message(server, type, text) == message(file, type, text), "\(text)")
            #expect(message(server, type, text) == expected, "\(text)")
        }
    }

    @Test func valuesAreNumberedParametersNeverText() throws {
        let compiler = QueryCompiler(schema: QueryFixture.schema, dialect: .postgres)
        let p = try QueryPredicate.parse(
            "name == %@ AND age > 5 AND elected == true AND ANY goods.value > 10.5 AND born < '2000-01-01' "
                + "AND token == nil AND name BEGINSWITH '50%_'",
            arguments: ["x'; DROP TABLE \"Party\"; --"])
        let (sql, bindings) = try compiler.compile(p, on: "Candidate")
        #expect(!sql.contains("DROP") && !sql.contains("?") && !sql.contains("50"))
        #expect(sql.contains("$1::text") && sql.contains("$2::bigint") && sql.contains("$3::boolean"))
        #expect(sql.contains("$4::numeric") && sql.contains("$5::timestamptz") && sql.contains("LIKE $6::text"))
        #expect(!sql.contains("$7"))
        #expect(
            bindings == [
                .text("x'; DROP TABLE \"Party\"; --"), .integer(5), .text("true"), .text("10.50"),
                .text("2000-01-01T00:00:00.000Z"), .text("50\\%\\_%"),
            ])
    }

    /// Every scalar the fold changes (lowercase mappings, nonspacing marks, canonical decompositions), every
    /// Latin-1 character, and some it leaves alone, alone and in company: the server's fold of each (through
    /// each of its three ways: ASCII, Latin-1, general) is `TextFolding.fold`'s.
    @Test func foldingOnTheServerIsTextFoldingForEveryMappedCharacter() throws {
        let f = try PostgresQueryFixture()
        let query = QueryCompiler(schema: QueryFixture.schema, dialect: .postgres)
        var samples: [String] = []
        for v in UInt32(1)...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            let p = u.properties
            switch p.generalCategory {
            case .unassigned, .privateUse, .surrogate: continue
            default: break
            }
            let s = String(u)
            let changes =
                v <= 0xFF || p.changesWhenLowercased || p.generalCategory == .nonspacingMark
                || ((v < 0x3400 || (v > 0x9FFF && v < 0xAC00) || (v > 0xD7A3 && v < 0x20000))
                    && s.decomposedStringWithCanonicalMapping != s)
            if changes || v % 211 == 0 {
                // Alone (its own way), after "ā" (the general way), in a Latin-1 word, after a capital.
                samples += [s, "ā" + s, "Ação" + s + "x", "E" + s + "\u{301}"]
            }
        }
        samples += [
            "ΟΔΟΣ", "İstanbul", "JOSÉ", "Jose\u{301}", "e\u{301}\u{323}", "\u{1100}\u{1161}\u{11A8}", "ǅungla", "ß",
            "ﬁ",
            "Å", "Å", "K", "ÿŸ", "µΜ", "¨´¸", "",
        ]
        #expect(samples.count > 15_000)
        var mismatches: [String] = []
        for options in [
            PredicateOptions.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive],
        ] {
            // In batches, each sample a bound parameter folded by the SQL a comparison uses.
            var i = 0
            while i < samples.count {
                let batch = Array(samples[i..<min(i + 400, samples.count)])
                i += batch.count
                var columns: [String] = []
                var parameters: [String?] = []
                for s in batch {
                    let fragment = query.foldedSQL(query.parameter(.text(s), as: .string), options, .string)
                    columns.append(SQLDialect.numbered(fragment.sql, from: parameters.count + 1))
                    parameters += fragment.bindings.map(SQLDialect.postgresText)
                }
                let row = try f.pg.query("SELECT " + columns.joined(separator: ", "), parameters).rows[0]
                for (k, s) in batch.enumerated() where row[k] != TextFolding.fold(s, options) {
                    mismatches.append("\(options.rawValue) \(s.unicodeScalars.map { String($0.value, radix: 16) })")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ, first: \(mismatches.prefix(20))")
    }

    @Test func thisServerPassesTheRuntimeFoldingCheck() throws {
        let (cluster, reason) = try PostgresTestCluster.sharedIfAvailable()
        guard let cluster else { try Test.cancel(Comment(rawValue: reason)) }
        let url = try cluster.createDatabase(prefix: "foldcheck")
        let query = try PostgresQuery(url: url)
        #expect(query.recorded == nil)
        #expect(try query.foldsExactly())
        #expect(PostgresQuery.folds(try QueryPredicate.parse("a == 1 OR NOT b ==[cd] 'x'")))
        #expect(!PostgresQuery.folds(try QueryPredicate.parse("a == 1 OR NOT b == 'x'")))
    }
}
