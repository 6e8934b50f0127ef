import Foundation
import PostgresTestSupport
import Testing
import UrnaImport
import UrnaStore

@testable import UrnaPostgres

@Suite("Binary COPY of a refill stores exactly what the text COPY stores, or falls back to it", .serialized)
struct BinaryCopyTests {
    static let schema = try! Schema(
        family: "stamps", version: 1,
        types: [
            ObjectSchema(
                "Stamp",
                [
                    Property("code", .string, primaryKey: true),
                    Property("flag", .bool, default: false),
                    Property("tiny", .int8, default: 0),
                    Property("small", .int16, default: 0),
                    Property("medium", .int32, default: 0),
                    Property("big", .int64, default: 0),
                    Property("cents", .decimal(scale: 2), default: 0),
                    Property("whole", .decimal(scale: 0), optional: true),
                    Property("fine", .decimal(scale: 5), optional: true),
                    Property("when", .date, optional: true),
                    Property("note", .string, optional: true),
                ])
        ])

    static let integers: [Int64] = [
        0, 1, -1, 5, -5, 9, 10, 99, 100, 9_999, 10_000, 10_001, 12_345, -12_345, 100_000_000, 1_000_000,
        Int64(Int32.max), Int64(Int32.min), Int64.max, Int64.min, Int64.min + 1,
    ]
    static let dates = [
        "2000-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z", "2024-02-29T12:00:00.001Z",
        "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1600-03-01T00:00:00.000Z", "2018-09-27T19:04:45.000Z",
    ]

    /// A file with every kind the binary copy writes, at its edges, in `stamps.sqlite` under `dir`.
    static func makeFile(in dir: URL) throws -> Connection {
        let path = dir.appendingPathComponent("stamps.sqlite").path
        _ = try Store(path: path, schema: schema)
        let c = try Connection(path: path)
        let insert = try c.prepare(
            "INSERT INTO Stamp(code, flag, tiny, small, medium, big, cents, whole, fine, \"when\", note) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for (i, n) in integers.enumerated() {
            insert.reset()
            let values: [SQLValue] = [
                .text("k\(i)"), .integer(n & 1), .integer(n % 128), .integer(n % 32_768),
                .integer(n % Int64(Int32.max)), .integer(n), .integer(n), .integer(n), i % 3 == 0 ? .null : .integer(n),
                .text(dates[i % dates.count]), i % 4 == 0 ? .null : .text("tab\there \\ ção ☃ \(n)"),
            ]
            try insert.bind(values)
            try insert.runToCompletion()
        }
        return c
    }

    /// Every row of every Urna table in the database, as the server prints it, table by table.
    static func contents(_ url: String, tables: [String], cluster: PostgresTestCluster) throws -> [String] {
        try tables.map { t in
            try cluster.psql(
                "SELECT count(*) || ' ' || coalesce(md5(string_agg(x::text, E'\\n' ORDER BY x::text)), '') "
                    + "FROM \"\(t)\" x", url: url)
        }
    }

    /// Pushes the file into two new databases, by binary COPY and by text COPY, and returns both contents.
    static func pushBothWays(_ source: Connection, prefix: String, cluster: PostgresTestCluster) throws -> (
        binary: [String], text: [String]
    ) {
        var results: [[String]] = []
        for binary in [true, false] {
            let url = try cluster.createDatabase(prefix: prefix)
            let conn = try PostgresConnection(url)
            try conn.execute("BEGIN")
            let counts = try PostgresTransfer.push(from: source, to: conn, replacing: nil, binaryCopy: binary)
            try conn.execute("COMMIT")
            let tables = counts.map(\.table) + ["_urna_schema"]
            results.append(try contents(url, tables: tables, cluster: cluster))
        }
        return (results[0], results[1])
    }

    static func temporaryFolder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-bin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("Dates: the store's own ISO-8601 text to PostgreSQL's microseconds; any other text is refused")
    func dates() {
        func micros(_ s: String) -> Int64? {
            Array(s.utf8).withUnsafeBytes { CopyBinaryEncoder.microseconds(isoUTC: $0) }
        }
        #expect(micros("2000-01-01T00:00:00.000Z") == 0)
        #expect(micros("1970-01-01T00:00:00.000Z") == -946_684_800_000_000)
        #expect(micros("2000-03-01T00:00:00.001Z") == Int64(5_184_000_001_000))  // Jan + a leap Feb, 1 ms
        #expect(micros("2018-09-27T19:04:45.000Z") == Int64(591_390_285_000_000))
        for refused in [
            "2019-02-29T00:00:00.000Z", "2018-09-27 19:04:45", "2018-09-27T19:04:45Z", "2018-09-27T24:00:00.000Z",
            "2018-13-01T00:00:00.000Z", "0000-01-01T00:00:00.000Z", "2018-09-27T19:04:60.000Z",
            "2018-09-27T19:04:45.000+00", "+018-09-27T19:04:45.000Z", "",
        ] {
            #expect(micros(refused) == nil, "\(refused)")
        }
    }

    @Test("Every kind at its edges: the binary copy stores what the text copy stores")
    func edgesMatchText() throws {
        let cluster = try postgresClusterOrSkip()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.makeFile(in: dir)
        // The encoder takes every row of this file (no silent fallback to text).
        let table = try PostgresLayout.tables(for: Self.schema)[0]
        let encoder = try #require(CopyBinaryEncoder(table))
        let select = try source.prepare(
            "SELECT " + table.columns.map { Identifier.quoted($0.name) }.joined(separator: ", ") + " FROM Stamp")
        var buffer = CopyBuffer(capacity: 1024)
        var rows = 0
        while try select.step() {
            try encoder.encodeRow(of: select, into: &buffer)
            rows += 1
        }
        #expect(rows == Self.integers.count)
        let (binary, text) = try Self.pushBothWays(source, prefix: "binedge", cluster: cluster)
        #expect(binary == text)
        #expect(binary.first?.hasPrefix("\(Self.integers.count) ") == true)
    }

    @Test("A date in another form than the store's, or text in a number column, falls back to text: same rows")
    func oddValuesFallBack() throws {
        let cluster = try postgresClusterOrSkip()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.makeFile(in: dir)
        // Forms the server reads but the encoder does not vouch for (a file edited with sqlite3).
        try source.execute("UPDATE Stamp SET \"when\" = '2018-09-27 19:04:45+02' WHERE code = 'k3'")
        try source.execute("UPDATE Stamp SET big = '42' WHERE code = 'k4'")
        // The encoder refuses this file: the push below takes the fallback.
        let table = try PostgresLayout.tables(for: Self.schema)[0]
        let encoder = try #require(CopyBinaryEncoder(table))
        let select = try source.prepare(
            "SELECT " + table.columns.map { Identifier.quoted($0.name) }.joined(separator: ", ") + " FROM Stamp")
        var buffer = CopyBuffer(capacity: 1024)
        #expect(throws: CopyBinaryEncoder.Refusal.self) {
            while try select.step() { try encoder.encodeRow(of: select, into: &buffer) }
        }
        let (binary, text) = try Self.pushBothWays(source, prefix: "binodd", cluster: cluster)
        #expect(binary == text)
    }

    @Test("A value the server refuses gives the text copy's own error, and nothing is stored")
    func refusedValueSameError() throws {
        let cluster = try postgresClusterOrSkip()
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = try Self.makeFile(in: dir)
        try source.execute("UPDATE Stamp SET small = 70000 WHERE code = 'k2'")
        var messages: [String] = []
        let url = try cluster.createDatabase(prefix: "binbad")
        for binary in [true, false] {
            let conn = try PostgresConnection(url)
            try conn.execute("BEGIN")
            do {
                try PostgresTransfer.push(from: source, to: conn, replacing: nil, binaryCopy: binary)
                Issue.record("the push of smallint 70000 succeeded")
            } catch {
                messages.append("\(error)")
            }
            try conn.execute("ROLLBACK")
            #expect(try cluster.psql("SELECT to_regclass('\"Stamp\"') IS NULL", url: url) == "t\n")
        }
        #expect(messages.count == 2)
        #expect(messages.first == messages.last)
        #expect(messages.first?.contains("out of range for type smallint") == true)
    }

    @Test("An elections import (SampleData, MG 2018): binary and text refills store the same database")
    func electionsMatchText() throws {
        let cluster = try postgresClusterOrSkip()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let files = ["consulta_cand_2018_MG.csv", "bem_candidato_2018_MG.csv"].map {
            root.appendingPathComponent("SampleData").appendingPathComponent($0).path
        }
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("mg.sqlite").path
        let options = ImportOptions(dbPath: path, rejectsPath: dir.appendingPathComponent("rejects.csv").path)
        let summary = try Importer(options: options).run(files: files)
        let goods = summary.inserted["Good"] ?? 0
        #expect(summary.inserted["Candidate"] ?? 0 > 1000)
        #expect(goods > 1000)
        let source = try Connection(path: path)
        let schema = try #require(try Store.recordedSchema(in: source))
        // Candidacies, goods and the goods lists take the binary copy: every one of their rows is encodable.
        for table in try PostgresLayout.tables(for: schema) {
            guard let encoder = CopyBinaryEncoder(table) else { continue }
            let select = try source.prepare(
                "SELECT " + table.columns.map { Identifier.quoted($0.name) }.joined(separator: ", ") + " FROM "
                    + Identifier.quoted(table.name))
            var buffer = CopyBuffer(capacity: 1 << 16)
            while try select.step() {
                try encoder.encodeRow(of: select, into: &buffer)
                buffer.removeAll()
            }
        }
        let binaryTables = try PostgresLayout.tables(for: schema).filter { CopyBinaryEncoder($0) != nil }.map(\.name)
        #expect(Set(["Candidate", "Good", "Candidate_goods"]).isSubset(of: binaryTables))
        let (binary, text) = try Self.pushBothWays(source, prefix: "binmg", cluster: cluster)
        #expect(binary == text)
        #expect(binary.contains { $0.hasPrefix("\(goods) ") })
    }
}
