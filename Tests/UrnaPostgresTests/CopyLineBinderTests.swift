import Foundation
import Testing
import UrnaStore

@testable import UrnaPostgres

@Suite("COPY lines from the server bound straight from their bytes: the values decodeLine + sqliteValue give")
struct CopyLineBinderTests {
    static let columns: [(name: String, kind: PostgresColumnKind)] = [
        ("t", .text), ("i", .integer("bigint")), ("m", .numeric(scale: 2)), ("b", .boolean),
        ("r", .real("double precision")),
        ("d", .timestamp),
    ]

    /// Stores each line twice, through the binder and through the old decoding, and returns both tables' rows
    /// (or the error each way gave, as text).
    static func bothWays(_ lines: [String]) throws -> (fast: [String], slow: [String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-bind-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let c = try Connection(path: dir.appendingPathComponent("rows.sqlite").path)
        let names = columns.map { Identifier.quoted($0.name) }.joined(separator: ", ")
        try c.execute("CREATE TABLE F (\(names)); CREATE TABLE S (\(names))")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        let fastInsert = try c.prepare("INSERT INTO F VALUES (\(marks))")
        let slowInsert = try c.prepare("INSERT INTO S VALUES (\(marks))")
        let binder = CopyLineBinder(PostgresTable.plain("T", columns))
        var fast: [String] = []
        var slow: [String] = []
        for line in lines {
            var bytes = Array((line + "\n").utf8)
            do {
                fastInsert.reset()
                try bytes.withUnsafeMutableBytes { try binder.bind(UnsafeRawBufferPointer($0), to: fastInsert) }
                try fastInsert.runToCompletion()
            } catch { fast.append("error: \(error)") }
            do {
                let fields = bytes.withUnsafeBytes { CopyText.decodeLine($0) }
                guard fields.count == columns.count else {
                    throw PostgresTransferError.badValue(
                        column: "T", value: "\(fields.count) fields", expected: "\(columns.count) fields")
                }
                slowInsert.reset()
                for (i, c) in columns.enumerated() {
                    try slowInsert.bind(c.kind.sqliteValue(fields[i], column: "T.\(c.name)"), at: Int32(i + 1))
                }
                try slowInsert.runToCompletion()
            } catch { slow.append("error: \(error)") }
        }
        let select = "SELECT " + columns.map { "quote(\(Identifier.quoted($0.name)))" }.joined(separator: " || '|' || ")
        fast += try c.rows(select + " FROM F ORDER BY rowid").map { "\($0)" }
        slow += try c.rows(select + " FROM S ORDER BY rowid").map { "\($0)" }
        return (fast, slow)
    }

    @Test("escapes, NULL, empty text, whole numbers at their limits and past them, a sign the fast path leaves alone")
    func sameValues() throws {
        let lines = [
            "plain\t1\t12345\t1\t0.5\t2018-08-15T12:34:56.789Z",
            "tab\\there\\nnew\\rcr\\\\back\\b\\f\\v\\q\t-1\t-5\t0\t-0\t\\N",
            "\t0\t0\t0\tInfinity\t\\N",
            "\\N\t\\N\t\\N\t\\N\t\\N\t\\N",
            "ção ☃\t9223372036854775807\t-9223372036854775808\t1\t1e300\t\\N",
            "x\t+5\t007\t1\t1\t\\N",
            "trailing\\\t1\t1\t1\t1\t\\N",
            "over\t9223372036854775808\t1\t1\t1\t\\N",
            "letters\t12a\t1\t1\t1\t\\N",
            "dash\t-\t1\t1\t1\t\\N",
            "too\tfew",
            "too\tmany\t1\t1\t1\t\\N\textra",
            "date\t1\t1\t1\t1\turna-unrepresentable:infinity",
        ]
        let (fast, slow) = try Self.bothWays(lines)
        #expect(fast == slow)
        #expect(fast.filter { $0.hasPrefix("error: ") }.count == 7)  // overflow, letters, dash, three counts, the date
    }
}
