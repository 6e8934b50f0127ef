import Foundation
import Testing
import UrnaStore

@testable import UrnaPostgres

@Suite("COPY lines straight from SQLite's bytes: the same text the value conversion gives")
struct CopyRowEncoderTests {
    /// Every kind, each column holding values of every storage class the storage contract writes there.
    static let columns: [(name: String, kind: PostgresColumnKind)] = [
        ("t", .text), ("j", .json), ("u", .uuid), ("d", .timestamp), ("i2", .integer("smallint")),
        ("i8", .integer("bigint")), ("m0", .numeric(scale: 0)), ("m2", .numeric(scale: 2)), ("m4", .numeric(scale: 4)),
        ("b", .boolean), ("r", .real("double precision")), ("f", .real("real")), ("x", .bytea),
    ]

    static let texts = [
        "", "plain", "tab\there", "new\nline", "cr\rhere", "back\\slash", "\\N", "\u{1}\u{8}\u{b}\u{c}\u{e}", "ção ☃ 🗳",
        "\\\t\n\r",
    ]
    static let integers: [Int64] = [
        0, 1, -1, 5, -5, 9, 10, 99, 100, 12_345, -12_345, 1_000_000, Int64(Int32.max), Int64.max, Int64.min,
        Int64.min + 1,
    ]

    /// What the copy wrote before the encoder: each value through `postgresText`, escaped by `CopyText`.
    static func expectedLine(_ values: [SQLValue]) throws -> [UInt8] {
        var out: [UInt8] = []
        let fields = try zip(columns, values).map { try $0.0.kind.postgresText($0.1, column: "T.\($0.0.name)") }
        CopyText.encodeLine(fields, into: &out)
        return out
    }

    static func encodedLines(_ rows: [[SQLValue]]) throws -> [[UInt8]] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Connection(path: dir.appendingPathComponent("rows.sqlite").path)
        // No declared types: every value keeps the storage class it was bound with.
        try c.execute("CREATE TABLE T (n, " + columns.map { Identifier.quoted($0.name) }.joined(separator: ", ") + ")")
        let insert = try c.prepare(
            "INSERT INTO T VALUES (?" + String(repeating: ", ?", count: columns.count) + ")")
        for (n, row) in rows.enumerated() {
            insert.reset()
            try insert.bind(.integer(Int64(n)), at: 1)
            for (i, v) in row.enumerated() { try insert.bind(v, at: Int32(i + 2)) }
            try insert.runToCompletion()
        }
        let select = try c.prepare(
            "SELECT " + columns.map { Identifier.quoted($0.name) }.joined(separator: ", ") + " FROM T ORDER BY n")
        let encoder = CopyRowEncoder(PostgresTable.plain("T", columns))
        var lines: [[UInt8]] = []
        var buffer = CopyBuffer(capacity: 8)  // small: growing is exercised too
        while try select.step() {
            buffer.removeAll()
            try encoder.encodeRow(of: select, into: &buffer)
            lines.append(buffer.withBytes { Array($0) })
        }
        return lines
    }

    @Test("text with every escape, whole numbers at their limits, money at scales 0, 2 and 4, NULL in every kind")
    func sameBytesAsTheConversion() throws {
        var rows: [[SQLValue]] = []
        rows.append(Array(repeating: .null, count: Self.columns.count))
        for (k, text) in Self.texts.enumerated() {
            let n = Self.integers[k % Self.integers.count]
            rows.append([
                .text(text), .text("{\"k\":\"\(k)\"}"), .text("6f9619ff-8b86-d011-b42d-00c04fc964ff"),
                .text("2018-08-15T12:34:56.789Z"), .integer(Int64(k) - 5), .integer(n), .integer(n), .integer(n),
                .integer(n),
                .integer(Int64(k % 3)), .real(Double(k) / 3), .integer(n), .blob([0, 9, 10, 92, 255]),
            ])
        }
        for n in Self.integers {
            rows.append([
                .integer(n), .text("[]"), .null, .null, .integer(1), .integer(n), .integer(n), .integer(n), .integer(n),
                .integer(n), .integer(n), .real(-0.0), .null,
            ])
        }
        let lines = try Self.encodedLines(rows)
        #expect(lines.count == rows.count)
        for (line, row) in zip(lines, rows) {
            let expected = try Self.expectedLine(row)
            #expect(
                line == expected,
                "\(String(decoding: line, as: UTF8.self)) against \(String(decoding: expected, as: UTF8.self))")
        }
        // Spot checks against the text itself, not only against the conversion.
        let money = try Self.encodedLines([
            [
                .null, .null, .null, .null, .null, .null, .integer(-5), .integer(-5), .integer(12_345), .null, .null,
                .null, .null,
            ]
        ])
        #expect(
            String(decoding: money[0], as: UTF8.self)
                == "\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t-5\t-0.05\t1.2345\t\\N\t\\N\t\\N\t\\N\n")
    }

    @Test("a value of the wrong kind is refused naming its table and column, as before")
    func wrongKindIsRefused() throws {
        var row = Array(repeating: SQLValue.null, count: Self.columns.count)
        row[5] = .text("lots")  // text in a bigint column
        #expect {
            _ = try Self.encodedLines([row])
        } throws: { error in
            "\(error)".contains("T.i8") && "\(error)".contains("lots")
        }
    }
}
