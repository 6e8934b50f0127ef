import Foundation
import Testing

import UrnaTestSupport

@testable import UrnaRecords

@Suite("CSV reader: quoting, line ends, limits")
struct CSVReaderTests {
    typealias S = RecordsTestSupport

    @Test("quoted and unquoted fields mix in one row; \"\" is one quote; separator and newline inside quotes")
    func quotingMix() throws {
        let text = "\"a\";b;\"c;d\";\"say \"\"hi\"\"\";;\"\"\n\"multi\nline\";2\n"
        let results = try S.csvResults(Array(text.utf8))
        #expect(results.count == 2)
        #expect(results[0].fields == ["a", "b", "c;d", "say \"hi\"", "", ""])
        #expect(results[1].fields == ["multi\nline", "2"])
        #expect(results.map(\.line) == [1, 2])
    }

    @Test("a row after a quoted newline starts on the right line")
    func lineNumbersCountQuotedNewlines() throws {
        let text = "\"x\r\ny\";1\r\nnext;2\r\n\"p\rq\";3\rlast;4"
        let results = try S.csvResults(Array(text.utf8))
        #expect(results.map(\.fields) == [["x\r\ny", "1"], ["next", "2"], ["p\rq", "3"], ["last", "4"]])
        #expect(results.map(\.line) == [1, 3, 4, 6])
    }

    @Test("LF, CRLF and CR line ends give the same rows", arguments: ["\n", "\r\n", "\r"])
    func lineEnds(ending: String) throws {
        let text = ["\"h1\";\"h2\"", "1;\"one\"", "", "2;\"two\""].joined(separator: ending) + ending
        let results = try S.csvResults(Array(text.utf8))
        #expect(results.map(\.fields) == [["h1", "h2"], ["1", "one"], ["2", "two"]])
        #expect(results.map(\.line) == [1, 2, 4], "the empty line 3 is skipped but counted")
    }

    @Test("a last line without a line end still yields its row")
    func truncatedLastLine() throws {
        let results = try S.csvResults(Array("a;b\n\"c\";\"d\"".utf8))
        #expect(results.map(\.fields) == [["a", "b"], ["c", "d"]])
        let unquoted = try S.csvResults(Array("a;b\nc;".utf8))
        #expect(unquoted.map(\.fields) == [["a", "b"], ["c", ""]])
    }

    @Test("rows split across tiny reads come out whole", arguments: [1, 2, 3, 7])
    func chunkBoundaries(chunk: Int) throws {
        let text = "\"a\"\"b\";\"c\r\nd\";e\r\n\"f\";g\rh;\"i\"\n"
        let results = try S.csvResults(Array(text.utf8), chunk: chunk)
        #expect(results.map(\.fields) == [["a\"b", "c\r\nd", "e"], ["f", "g"], ["h", "i"]])
        #expect(results.map(\.line) == [1, 3, 4])
    }

    @Test("text after a closing quote rejects the row with file:line:column and a fix, and reading goes on")
    func garbageAfterClosingQuote() throws {
        let text = "\"ok\";\"1\"\n\"ab\"c;\"2\"\n\"JOAO \"BIGODE\" SILVA\";\"3\"\n\"next\";\"4\"\n"
        let results = try S.csvResults(Array(text.utf8))
        #expect(results.count == 4)
        let bad = try #require(results[1].malformed)
        #expect(bad.location == SourceLocation(file: "test.csv", line: 2, column: 1))
        #expect(bad.reason.contains("'c' after the closing quote"))
        #expect(bad.reason.contains("doubled (\"\")"))
        #expect(bad.rawBytes == Array("\"ab\"c;\"2\"".utf8))
        let inner = try #require(results[2].malformed)
        #expect(inner.location.line == 3)
        #expect(inner.reason.contains("'B' after the closing quote"))
        #expect(results[3].fields == ["next", "4"])
        #expect(results[3].line == 4)
    }

    @Test("a quote that never closes is a reject naming the field, not a hang or a crash")
    func unterminatedQuote() throws {
        let text = "a;b\n1;\"never closed\n2;x\n3;y"
        let results = try S.csvResults(Array(text.utf8))
        #expect(results.count == 2)
        #expect(results[0].fields == ["a", "b"])
        let bad = try #require(results[1].malformed)
        #expect(bad.location == SourceLocation(file: "test.csv", line: 2, column: 2))
        #expect(bad.reason.contains("never closed"))
        #expect(bad.reason.contains("add the closing quote"))
        #expect(bad.rawBytes == Array("1;\"never closed\n2;x\n3;y".utf8))
    }

    @Test("NUL bytes reject the row by default, and are kept when asked")
    func nulBytes() throws {
        let bytes: [UInt8] = Array("a;b\n\"x".utf8) + [0] + Array("y\";z\nc;d\n".utf8)
        let rejected = try S.csvResults(bytes)
        #expect(rejected.count == 3)
        let bad = try #require(rejected[1].malformed)
        #expect(bad.location.line == 2 && bad.location.column == 1)
        #expect(bad.reason.contains("NUL byte"))
        #expect(rejected[2].fields == ["c", "d"])

        var keep = CSVOptions()
        keep.nulBytes = .keep
        let kept = try S.csvResults(bytes, options: keep)
        #expect(kept.map(\.fields) == [["a", "b"], ["x\u{0}y", "z"], ["c", "d"]])
    }

    @Test("a 10 MB field is read under the default limit and rejected, without being buffered, under a 1 MiB one")
    func hugeField() throws {
        let big = [UInt8](repeating: UInt8(ascii: "x"), count: 10_000_000)
        let bytes = Array("h1;h2\n1;\"".utf8) + big + Array("\"\n2;after\n".utf8)

        let accepted = try S.csvResults(bytes)
        #expect(accepted.count == 3)
        if case .row(let row) = accepted[1] {
            #expect(row.count == 2)
            #expect(row[1].utf8.count == 10_000_000)
        } else {
            Issue.record("the 10 MB field should be within the 16 MiB default")
        }

        var small = CSVOptions()
        small.maxFieldBytes = 1 << 20
        small.chunkSize = 64 * 1024
        let reader = try CSVReader(source: MemoryByteSource(bytes), name: "big.csv", encoding: .latin1, options: small)
        var results: [CSVReadResult] = []
        while let result = try reader.next() { results.append(result) }
        #expect(results.count == 3)
        let bad = try #require(results[1].malformed)
        #expect(bad.location == SourceLocation(file: "big.csv", line: 2, column: 2))
        #expect(bad.reason.contains("longer than the 1 MiB field limit"))
        #expect(bad.rawBytes.count == CSVReader.rejectPrefixBytes, "only a prefix of the huge row is kept")
        #expect(results[2].fields == ["2", "after"])
        #expect(results[2].line == 3)
    }

    @Test("an unclosed quote that swallows many lines stops at the row limit and the count of lines stays right")
    func rowLimit() throws {
        var options = CSVOptions()
        options.maxRecordBytes = 5000
        options.chunkSize = 4096
        var text = "1;\"open\n"
        for i in 0..<10_000 { text += "filler line \(i)\n" }  // ~170 KB: past the first 64 KiB buffer
        text += "closing\";x\nlast;row\n"
        let results = try S.csvResults(Array(text.utf8), options: options)
        #expect(results.count == 2)
        let bad = try #require(results[0].malformed)
        #expect(bad.reason.contains("row limit"))
        #expect(results[1].fields == ["last", "row"])
        #expect(results[1].line == 10_003)
        #expect(bad.location.line == 1)
    }

    @Test("too many fields is a reject, not an unbounded allocation")
    func fieldCountLimit() throws {
        var options = CSVOptions()
        options.maxFieldCount = 10
        let results = try S.csvResults(Array((String(repeating: "a;", count: 20) + "a\nok;1\n").utf8), options: options)
        #expect(results[0].malformed?.reason.contains("more than 10 fields") == true)
        #expect(results[0].malformed?.location.column == 11, "the first field past the limit, not 0")
        #expect(results[1].fields == ["ok", "1"])
    }

    @Test("Latin-1 bytes decode to the right characters")
    func latin1Decoding() throws {
        let results = try S.csvResults(S.latin1("\"Eleições\";\"SÃO JOSÉ\";\"ÿ\"\n"))
        #expect(results[0].fields == ["Eleições", "SÃO JOSÉ", "ÿ"])
    }

    @Test("raw bytes of a row exclude the line end and keep the original bytes")
    func rawBytes() throws {
        let bytes = S.latin1("\"Jo\u{E3}o\";1\r\n")
        let results = try S.csvResults(bytes)
        guard case .row(let row) = results[0] else {
            Issue.record("expected a row")
            return
        }
        #expect(row.rawBytes == Array(bytes.dropLast(2)))
        #expect(row.withFieldBytes(at: 0) { Array($0) } == [0x4A, 0x6F, 0xE3, 0x6F])
    }

    @Test(
        "random well-formed CSV round-trips through any chunking, with the right line numbers",
        arguments: [11, 12, 13, 14])
    func randomRoundTrip(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        // Tabs and other control bytes below CR matter too: the scanner's word-at-a-time test stops at them
        // and must step over them. Fields run up to 23 characters, past one 8-byte word.
        let alphabet: [String] = [
            "a", "b", "Z", "0", " ", "é", "\"", ";", "\n", "\r", "\r\n", "ç", "\t", "\u{0B}", "\u{01}", "abcdefgh",
        ]
        let endings = ["\n", "\r\n", "\r"]
        var text = ""
        var expected: [[String]] = []
        var lines: [Int] = []
        var line = 1
        for _ in 0..<200 {
            let fieldCount = Int(rng.next() % 6) + 1
            var fields: [String] = []
            var encoded: [String] = []
            for _ in 0..<fieldCount {
                let length = Int(rng.next() % 24)
                let value = (0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }.joined()
                fields.append(value)
                // By scalars: "\r\n" is one Character, which equals neither "\r" nor "\n".
                let mustQuote =
                    value.unicodeScalars.contains { "\";\n\r".unicodeScalars.contains($0) }
                    || (fieldCount == 1 && value.isEmpty)
                encoded.append(
                    mustQuote || rng.next() % 2 == 0
                        ? "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : value)
            }
            expected.append(fields)
            lines.append(line)
            let row = encoded.joined(separator: ";")
            text += row + endings[Int(rng.next() % 3)]
            // Newlines inside the row: CR, LF, and CRLF counted once.
            var previousWasCR = false
            for scalar in row.unicodeScalars {
                if scalar == "\r" || (scalar == "\n" && !previousWasCR) { line += 1 }
                previousWasCR = scalar == "\r"
            }
            line += 1
        }
        let bytes = Array(text.utf8)
        for chunk in [1, 5, 64, 4096] {
            let results = try S.csvResults(bytes, encoding: .utf8, chunk: chunk)
            #expect(results.map(\.fields) == expected.map { Optional($0) }, "chunk \(chunk)")
            #expect(results.map(\.line) == lines, "chunk \(chunk)")
        }
    }

    @Test("random bytes never crash the reader, and lines only move forward", arguments: [1, 2, 3, 4, 5])
    func randomGarbage(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let pieces: [[UInt8]] = [[0x22], [0x3B], [0x0A], [0x0D], [0x00], [0x61], [0xE9], [0xC3, 0xA9], [0x22, 0x22]]
        var bytes: [UInt8] = []
        for _ in 0..<5000 { bytes += pieces[Int(rng.next() % UInt64(pieces.count))] }
        var options = CSVOptions()
        options.maxRecordBytes = 300
        options.chunkSize = 4096
        for encoding in [TextEncodingChoice.latin1, .utf8] {
            let results = try S.csvResults(bytes, encoding: encoding, options: options, chunk: 97)
            #expect(!results.isEmpty)
            let lines = results.map(\.line)
            #expect(lines == lines.sorted())
            #expect(lines.allSatisfy { $0 >= 1 })
        }
    }
}
