import Foundation
import Testing

@testable import UrnaRecords

#if canImport(Glibc)
    import Glibc
#endif

/// Files made to hurt a reader: NUL bytes, a 100 MB field, a million columns, XML nested 100,000 deep,
/// bytes that are not UTF-8 in a UTF-8 file. Each must end in a reject or an error that names
/// file:line:column, with the reader's memory bounded. Large files are written at test time, streamed,
/// and read in a child process that measures its own peak memory.
@Suite("Hostile files")
struct HostileFileTests {
    /// What one huge input may add to the reader's peak resident memory (the field itself is 100 MB).
    static let memoryBoundMB = 200

    /// Starts a memory measurement: resets the process's peak resident memory (Linux `clear_refs`) and
    /// returns the memory resident now, in MiB. Without the reset an earlier, higher peak would hide
    /// what the reader uses.
    static func startMemoryMeasurement() -> Int {
        if let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") {
            handle.write(Data("5".utf8))
            try? handle.close()
        }
        return residentMB("VmRSS") ?? peakResidentMB()
    }

    /// How far the peak resident memory rose above `base` (from `startMemoryMeasurement()`), in MiB.
    static func memoryGrowthMB(since base: Int) -> Int {
        (residentMB("VmHWM") ?? peakResidentMB()) - base
    }

    /// A `Vm...:  1234 kB` line of /proc/self/status, in MiB.
    static func residentMB(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.filter(\.isNumber)
            return Int(digits).map { $0 / 1024 }
        }
        return nil
    }

    /// The process's peak resident memory so far, in MiB (where /proc is missing).
    static func peakResidentMB() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss / 1024  // KiB on Linux
    }

    /// A fresh path in a private temporary folder.
    static func temporaryPath(_ name: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("urna-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent(name).path
    }

    /// Writes `prefix`, then `repeating` repeated `count` times in 1 MiB pieces, then `suffix`: the file is
    /// never held in memory.
    static func writeLargeFile(
        _ path: String, prefix: String, repeating byte: UInt8, count: Int, suffix: String
    ) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(prefix.utf8)) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        let piece = Data(repeating: byte, count: 1 << 20)
        var left = count
        while left > 0 {
            let n = min(left, piece.count)
            try handle.write(contentsOf: n == piece.count ? piece : piece.prefix(n))
            left -= n
        }
        try handle.write(contentsOf: Data(suffix.utf8))
    }

    /// Every result of a CSV file.
    static func csvResults(_ path: String, options: CSVOptions = CSVOptions()) throws -> [CSVReadResult] {
        let reader = try CSVReader(path: path, options: options)
        var results: [CSVReadResult] = []
        while let result = try reader.next() { results.append(result) }
        return results
    }

    /// What a reader yielded, in one line per result, for failure messages.
    static func describe(_ results: [CSVReadResult]) -> String {
        results.map { result in
            switch result {
            case .row(let row): "row \(row.location): \(row.strings.map { String($0.prefix(20)) })"
            case .malformed(let bad): "reject \(bad.description.prefix(120)) (\(bad.rawBytes.count) raw bytes)"
            }
        }.joined(separator: "; ")
    }

    /// What an XML reader yielded, in one line per item, for failure messages.
    static func describe(_ items: [RecordOrReject], _ error: XMLReadError?) -> String {
        let listed = items.map { item in
            switch item {
            case .record(let record): "record \(record.location) (\(record.fieldCount) columns)"
            case .reject(let bad): "reject \(bad.description.prefix(120))"
            }
        }
        return (listed + (error.map { ["error \($0)"] } ?? [])).joined(separator: "; ")
    }

    /// The records read before an XML file's error, and the error (nil when it reads to the end).
    static func xmlItems(_ path: String) throws -> (items: [RecordOrReject], error: XMLReadError?) {
        let reader = try XMLRecordReader(path: path)
        var items: [RecordOrReject] = []
        do {
            while let item = try reader.next() { items.append(item) }
            return (items, nil)
        } catch let error as XMLReadError {
            return (items, error)
        }
    }

    /// In a child process: notes a broken expectation on standard output, where the parent finds it.
    /// (A child that stops on `precondition` only tells the parent its exit status.)
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { print("\(failurePrefix)\(message())") }
    }

    static let failurePrefix = "hostile-file check failed: "

    /// The checks a child process noted as failed, each recorded as an issue of the calling test.
    static func expectChecksPassed(
        _ result: ExitTest.Result?, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let result else { return }  // the child crashed: #expect(processExitsWith:) has said so
        let output = String(decoding: result.standardOutputContent, as: UTF8.self)
        for line in output.split(separator: "\n") where line.hasPrefix(failurePrefix) {
            Issue.record(Comment(rawValue: String(line.dropFirst(failurePrefix.count))), sourceLocation: sourceLocation)
        }
    }

    // MARK: - NUL bytes

    @Test("A NUL byte in a CSV row rejects that row with file:line:column, and the next row is read")
    func nulByteInCSV() throws {
        let path = try Self.temporaryPath("nul.csv")
        try Data("\"A\";\"B\";\"C\"\n\"a\";\"b\u{0}x\";\"c\"\nd;e\u{0};f\ng;h;i\n".utf8).write(
            to: URL(fileURLWithPath: path))
        let results = try Self.csvResults(path)
        #expect(results.count == 4)
        #expect(results.map(\.line) == [1, 2, 3, 4])
        let quoted = try #require(results[1].malformed)
        #expect(quoted.location == SourceLocation(file: "nul.csv", line: 2, column: 2))
        #expect(quoted.description.hasPrefix("nul.csv:2:2: field 2: contains a NUL byte"))
        let unquoted = try #require(results[2].malformed)
        #expect(unquoted.location == SourceLocation(file: "nul.csv", line: 3, column: 2))
        #expect(results[3].fields == ["g", "h", "i"])
    }

    @Test("A NUL byte in XML refuses the file with line and column")
    func nulByteInXML() throws {
        let path = try Self.temporaryPath("nul.xml")
        let text =
            "<candidatos>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n<candidato><NM_CANDIDATO>a\u{0}b</NM_CANDIDATO></candidato>\n</candidatos>\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let (_, error) = try Self.xmlItems(path)
        let refused = try #require(error)
        #expect(refused.location.file == "nul.xml")
        #expect(refused.location.line == 3)
        #expect(refused.location.column > 0)
    }

    // MARK: - 100 MB in one field

    @Test("A 100 MB quoted field is rejected at file:line:column with bounded memory, and the next row is read")
    func hundredMegabyteQuotedCSVField() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let path = try HostileFileTests.temporaryPath("huge-field.csv")
            try HostileFileTests.writeLargeFile(
                path, prefix: "\"a\";\"", repeating: UInt8(ascii: "x"), count: 100 << 20,
                suffix: "\";\"b\"\r\n\"c\";\"d\";\"e\"\r\n")
            let before = HostileFileTests.startMemoryMeasurement()
            let results = try HostileFileTests.csvResults(path)
            let grown = HostileFileTests.memoryGrowthMB(since: before)
            var expected = false
            if results.count == 2, case .malformed(let bad) = results[0] {
                expected =
                    bad.location == SourceLocation(file: "huge-field.csv", line: 1, column: 2)
                    && bad.reason.contains("16 MiB field limit") && bad.rawBytes.count <= 64 * 1024
                    && results[1].fields == ["c", "d", "e"] && results[1].line == 2
            }
            HostileFileTests.check(expected, "read \(HostileFileTests.describe(results))")
            HostileFileTests.check(
                grown < HostileFileTests.memoryBoundMB, "reading grew the peak memory by \(grown) MB")
        }
        Self.expectChecksPassed(result)
    }

    @Test("A 100 MB unquoted field is rejected with bounded memory, and the next row is read")
    func hundredMegabyteUnquotedCSVField() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let path = try HostileFileTests.temporaryPath("huge-unquoted.csv")
            try HostileFileTests.writeLargeFile(
                path, prefix: "a;b\nc;", repeating: UInt8(ascii: "y"), count: 100 << 20, suffix: ";d\ne;f\n")
            let before = HostileFileTests.startMemoryMeasurement()
            let results = try HostileFileTests.csvResults(path)
            let grown = HostileFileTests.memoryGrowthMB(since: before)
            var expected = false
            if results.count == 3, case .malformed(let bad) = results[1] {
                expected =
                    bad.location == SourceLocation(file: "huge-unquoted.csv", line: 2, column: 2)
                    && bad.reason.contains("16 MiB field limit") && results[0].fields == ["a", "b"]
                    && results[2].fields == ["e", "f"] && results[2].line == 3
            }
            HostileFileTests.check(expected, "read \(HostileFileTests.describe(results))")
            HostileFileTests.check(
                grown < HostileFileTests.memoryBoundMB, "reading grew the peak memory by \(grown) MB")
        }
        Self.expectChecksPassed(result)
    }

    @Test("A 100 MB XML text node is refused or rejected with its line, with bounded memory")
    func hundredMegabyteXMLText() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let path = try HostileFileTests.temporaryPath("huge-text.xml")
            try HostileFileTests.writeLargeFile(
                path,
                prefix:
                    "<candidatos>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n<candidato><NM_CANDIDATO>",
                repeating: UInt8(ascii: "z"), count: 100 << 20,
                suffix:
                    "</NM_CANDIDATO></candidato>\n<candidato><SQ_CANDIDATO>3</SQ_CANDIDATO></candidato>\n</candidatos>\n"
            )
            let before = HostileFileTests.startMemoryMeasurement()
            let (items, error) = try HostileFileTests.xmlItems(path)
            let grown = HostileFileTests.memoryGrowthMB(since: before)
            // Either the file is refused at the huge text, or that candidato alone is rejected.
            let rejects = items.compactMap { if case .reject(let r) = $0 { r } else { nil } }
            let refused = error.map { $0.location.file == "huge-text.xml" && $0.location.line == 3 } ?? false
            let rejected = error == nil && items.count == 3 && rejects.count == 1 && rejects[0].location.line == 3
            HostileFileTests.check(refused || rejected, "read \(HostileFileTests.describe(items, error))")
            HostileFileTests.check(
                grown < HostileFileTests.memoryBoundMB, "reading grew the peak memory by \(grown) MB")
        }
        Self.expectChecksPassed(result)
    }

    // MARK: - A million columns

    @Test("A row of 10^6 columns is rejected at its line and the reader goes on")
    func millionColumnsCSV() throws {
        let path = try Self.temporaryPath("wide.csv")
        let wide = String(repeating: "a;", count: 999_999) + "a"
        try Data("x;y\n\(wide)\nz;w\n".utf8).write(to: URL(fileURLWithPath: path))
        let before = Self.startMemoryMeasurement()
        let results = try Self.csvResults(path)
        #expect(Self.memoryGrowthMB(since: before) < Self.memoryBoundMB)
        #expect(results.count == 3)
        let bad = try #require(results[1].malformed)
        #expect(bad.location.file == "wide.csv")
        #expect(bad.location.line == 2)
        #expect(bad.reason.contains("more than 4096 fields"))
        #expect(results[2].fields == ["z", "w"])
    }

    @Test("A record of 10^6 XML columns is rejected, with bounded memory")
    func millionColumnsXML() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let path = try HostileFileTests.temporaryPath("wide.xml")
            // 10^6 column elements under 19,000 names (within the names a file may have): twice the 10,000 columns a
            // record may have.
            var text = "<candidatos>\n<candidato>"
            for i in 0..<1_000_000 { text += "<C\(i % 19_000)>v</C\(i % 19_000)>" }
            text += "</candidato>\n<candidato><SQ_CANDIDATO>2</SQ_CANDIDATO></candidato>\n</candidatos>\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            text = ""
            let before = HostileFileTests.startMemoryMeasurement()
            let (items, error) = try HostileFileTests.xmlItems(path)
            let grown = HostileFileTests.memoryGrowthMB(since: before)
            var expected = false
            if error == nil, items.count == 2, case .reject(let bad) = items[0] {
                expected =
                    bad.location == SourceLocation(file: "wide.xml", line: 2)
                    && bad.reason.contains("more than 10000 columns")
            }
            HostileFileTests.check(expected, "read \(HostileFileTests.describe(items, error))")
            HostileFileTests.check(
                grown < HostileFileTests.memoryBoundMB, "reading grew the peak memory by \(grown) MB")
        }
        Self.expectChecksPassed(result)
    }

    @Test("Memory does not grow with the number of distinct element names in an XML file")
    func distinctXMLNamesAreBounded() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardOutputContent]) {
            let path = try HostileFileTests.temporaryPath("names.xml")
            // 150,000 different column names in one record: past its first 10,000 columns the record is a
            // reject anyway, yet every name is interned and kept until the reader is released.
            var text = "<candidatos>\n<candidato>"
            for i in 0..<150_000 { text += "<C\(i)/>" }
            text += "</candidato>\n</candidatos>\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            text = ""
            let before = HostileFileTests.startMemoryMeasurement()
            let (items, error) = try HostileFileTests.xmlItems(path)
            let grown = HostileFileTests.memoryGrowthMB(since: before)
            // Refusing the file at some name limit is as good as rejecting the record.
            let refused = error.map { $0.location.line == 2 && $0.location.column > 0 } ?? false
            let rejected = error == nil && items.count == 1
            HostileFileTests.check(refused || rejected, "read \(HostileFileTests.describe(items, error))")
            // libxml2's own name dictionary needs a few MB for these names; the rest is ours.
            HostileFileTests.check(grown < 24, "150,000 distinct names grew the peak memory by \(grown) MB")
        }
        Self.expectChecksPassed(result)
    }

    // MARK: - Deep nesting

    @Test("XML nested 100,000 deep is refused with line and column after the records before it")
    func deeplyNestedXML() throws {
        let path = try Self.temporaryPath("deep.xml")
        let depth = 100_000
        let text =
            "<candidatos>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n<candidato>"
            + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</candidato>\n</candidatos>\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let (items, error) = try Self.xmlItems(path)
        #expect(items.count == 1)
        let refused = try #require(error)
        #expect(refused.kind == .malformed)
        #expect(refused.location.file == "deep.xml")
        #expect(refused.location.line == 3)
        #expect(refused.location.column > 0)
        #expect(refused.message.contains("deeper than 256 levels"))
    }

    // MARK: - Invalid UTF-8

    @Test("Invalid UTF-8 in a UTF-8 CSV (byte-order mark) rejects the row at file:line:column")
    func invalidUTF8InCSV() throws {
        let path = try Self.temporaryPath("bad-utf8.csv")
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF] + Array("NM;DS\n\"José\";ok\n".utf8) + [0x4A, 0x6F, 0x73, 0xE9] + Array(";x\nA;\"".utf8)
            + [0xC3, 0x28] + Array("\"\nB;C\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let results = try Self.csvResults(path)
        #expect(results.map(\.line) == [1, 2, 3, 4, 5])
        #expect(results[1].fields == ["José", "ok"])
        let first = try #require(results[2].malformed)
        #expect(first.location == SourceLocation(file: "bad-utf8.csv", line: 3, column: 1))
        #expect(first.reason.contains("byte 0xE9 is not valid UTF-8"))
        let second = try #require(results[3].malformed)
        #expect(second.location == SourceLocation(file: "bad-utf8.csv", line: 4, column: 2))
        #expect(results[4].fields == ["B", "C"])
    }

    @Test("Invalid UTF-8 past the 64 KiB the encoding is detected from still rejects its row")
    func invalidUTF8AfterDetectionWindow() throws {
        let path = try Self.temporaryPath("late-bad-utf8.csv")
        var bytes = Array("NM;DS\n".utf8)
        for _ in 0..<5_000 { bytes += Array("\"João\";\"São Paulo\"\n".utf8) }  // ~115 KB of valid UTF-8
        bytes += Array("\"Jo".utf8) + [0xE3] + Array("o\";x\nlast;row\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let results = try Self.csvResults(path)
        #expect(results.count == 5_003)
        let bad = try #require(results[5_001].malformed)
        #expect(bad.location == SourceLocation(file: "late-bad-utf8.csv", line: 5_002, column: 1))
        #expect(results[5_002].fields == ["last", "row"])
    }

    @Test("UTF-8 rows after 64 KiB of Latin-1 are refused at file:line:column, not garbled; Latin-1 letters pass")
    func utf8RowsInALatin1File() throws {
        let path = try Self.temporaryPath("mixed.csv")
        var bytes = Array("NM;DS\n".utf8)
        // JOÃO, CONCEIÇÃO, SÃO JOSÉ in Latin-1 (0xC3 then an ASCII letter is Latin-1 'Ã' before a letter).
        let latin1: [UInt8] = Array("\"JO".utf8) + [0xC3] + Array("O\";\"CONCEI".utf8) + [0xC7, 0xC3] + Array("O S".utf8)
            + [0xC3] + Array("O JOS".utf8) + [0xC9] + Array("\"\n".utf8)
        for _ in 0..<3_000 { bytes += latin1 }  // ~100 KB: detected as Latin-1
        bytes += Array("\"JO".utf8) + [0xC3, 0x83] + Array("O\";x\n".utf8)  // JOÃO in UTF-8
        bytes += latin1
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let results = try Self.csvResults(path)
        #expect(results.count == 3_003)
        #expect(results[1].fields == ["JOÃO", "CONCEIÇÃO SÃO JOSÉ"])
        let bad = try #require(results[3_001].malformed)
        #expect(bad.location == SourceLocation(file: "mixed.csv", line: 3_002, column: 1))
        #expect(bad.reason.contains("bytes 0xC3 0x83 are the UTF-8 character 'Ã'") && bad.reason.contains("mixes encodings"), "\(bad.reason)")
        #expect(results[3_002].fields == ["JOÃO", "CONCEIÇÃO SÃO JOSÉ"])
        // Three-byte characters (an en dash) are caught too; Latin-1 'Ã' or 'Â' before a no-break space is text.
        var more = bytes
        more += Array("\"APARTAMENTO ".utf8) + [0xE2, 0x80, 0x93] + Array(" CENTRO\";x\n".utf8)
        more += Array("\"RUA IRM".utf8) + [0xC3, 0xA0] + Array("DULCE\";\"".utf8) + [0xC2, 0xA0] + Array("\"\n".utf8)
        more += Array("\"VOTE 13 ".utf8) + [0xF0, 0x9F, 0x97, 0xB3] + Array("\";x\n".utf8)  // a ballot-box emoji
        try Data(more).write(to: URL(fileURLWithPath: path))
        let again = try Self.csvResults(path)
        let dash = try #require(again[3_003].malformed)
        #expect(dash.reason.contains("bytes 0xE2 0x80 0x93 are the UTF-8 character '–'"), "\(dash.reason)")
        #expect(again[3_004].fields == ["RUA IRMÃ\u{A0}DULCE", "Â\u{A0}"])
        #expect(again[3_005].malformed?.reason.contains("bytes 0xF0 0x9F 0x97 0xB3 are the UTF-8 character") == true)
    }

    @Test("A UTF-8 file whose first 64 KiB are plain ASCII is read as UTF-8 from its first accented row, not refused")
    func utf8AfterAnASCIIStart() throws {
        // A TSE file converted with iconv whose first rows carry no accent (2004-style "ELEICOES 2004" rows).
        let path = try Self.temporaryPath("ascii-then-utf8.csv")
        var bytes = Array("NM;DS\n".utf8)
        for _ in 0..<5_000 { bytes += Array("\"JOAO DA SILVA\";\"SAO PAULO\"\n".utf8) }  // ~140 KB of ASCII
        for _ in 0..<3 { bytes += Array("\"JOÃO\";\"CONCEIÇÃO\"\n".utf8) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let results = try Self.csvResults(path)
        #expect(results.count == 5_004)
        #expect(results[5_001].malformed == nil, "\(results[5_001].malformed?.reason ?? "")")
        #expect(results[5_001].fields == ["JOÃO", "CONCEIÇÃO"])
        #expect(results[5_003].fields == ["JOÃO", "CONCEIÇÃO"])
        // The same start followed by Latin-1 rows stays Latin-1, and a UTF-8 row after those is still refused.
        var latin = Array("NM;DS\n".utf8)
        for _ in 0..<5_000 { latin += Array("\"JOAO DA SILVA\";\"SAO PAULO\"\n".utf8) }
        latin += Array("\"JO".utf8) + [0xC3] + Array("O\";\"CONCEI".utf8) + [0xC7, 0xC3] + Array("O\"\n".utf8)
        latin += Array("\"JOÃO\";x\n".utf8)
        try Data(latin).write(to: URL(fileURLWithPath: path))
        let again = try Self.csvResults(path)
        #expect(again[5_001].fields == ["JOÃO", "CONCEIÇÃO"])
        #expect(again[5_002].malformed?.reason.contains("mixes encodings") == true)
    }

    @Test("Invalid UTF-8 in an XML file without an encoding declaration is refused with line and column")
    func invalidUTF8InXML() throws {
        let path = try Self.temporaryPath("bad-utf8.xml")
        let bytes =
            Array(
                "<candidatos>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n<candidato><NM_CANDIDATO>Jos".utf8
            )
            + [0xE9] + Array("</NM_CANDIDATO></candidato>\n</candidatos>\n".utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (_, error) = try Self.xmlItems(path)
        let refused = try #require(error)
        #expect(refused.kind == .unsupportedEncoding)
        #expect(refused.location.file == "bad-utf8.xml")
        #expect(refused.location.line == 3)
        #expect(refused.location.column > 0)
        #expect(refused.description.hasPrefix("bad-utf8.xml:3:"))
    }
}
