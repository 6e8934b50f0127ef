import Foundation
import Testing

@testable import UrnaRecords

/// One start tag with very many attributes is quadratic inside libxml2 2.9 (each attribute is compared with
/// every earlier one) before any callback runs: 100,000 attributes took 8.9 s and 200,000 took 35 s, a 2.4 MB
/// file (an attacker's trial). The reader refuses such a tag before libxml2 sees it, at the tag's `<`.
@Suite struct XMLTagLimitTests {
    private static func attributes(_ count: Int, from first: Int = 0) -> String {
        (first..<(first + count)).map { " a\($0)=\"\($0 % 10)\"" }.joined()
    }

    /// Reads everything; returns the records' lines, the error and the reader.
    private static func read(_ text: String, chunk: Int = 1 << 16) throws -> (
        lines: [Int], error: XMLReadError?, reader: XMLRecordReader
    ) {
        try read(bytes: Array(text.utf8), chunk: chunk)
    }

    private static func read(bytes: [UInt8], chunk: Int = 1 << 16) throws -> (
        lines: [Int], error: XMLReadError?, reader: XMLRecordReader
    ) {
        let reader = try XMLRecordReader(
            source: MemoryByteSource(bytes, maximumChunk: chunk), name: "tag.xml", size: Int64(bytes.count))
        var lines: [Int] = []
        do {
            while let item = try reader.next() {
                if case .record(let r) = item { lines.append(r.location.line) }
            }
        } catch let error as XMLReadError {
            return (lines, error, reader)
        }
        return (lines, nil, reader)
    }

    /// Filler after the hostile tag, so that refusing it before the end of the file can be seen.
    private static let filler = String(
        repeating: "<candidato><SQ_CANDIDATO>9</SQ_CANDIDATO></candidato>\n", count: 20_000)

    @Test("A start tag past the attribute limit is refused at its <, before the rest of the file is read")
    func tooManyAttributesAreRefused() throws {
        let text =
            "<candidatos>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n  <candidato"
            + Self.attributes(5 * XMLTagLimit.maximumAttributes) + ">\n</candidato>\n" + Self.filler
            + "</candidatos>\n"
        let (lines, failure, reader) = try Self.read(text)
        #expect(lines == [2], "the record before the tag is still read")
        let error = try #require(failure, "a tag with 5,000 attributes was accepted")
        #expect(error.kind == .malformed)
        #expect(error.location.file == "tag.xml")
        #expect(error.location.line == 3)
        #expect(error.location.column == 3)
        #expect(error.message.contains("more than 1,000 attributes"), "\(error.message)")
        #expect(reader.bytesRead < reader.fileSize / 2, "read \(reader.bytesRead) of \(reader.fileSize) bytes")
    }

    @Test("The limit itself is accepted; one more is refused, however the input is cut into chunks")
    func limitIsExactAtAnyChunking() throws {
        for chunk in [1, 7, 4096, 1 << 16] {
            let limit = XMLTagLimit.maximumAttributes
            let accepted = "<bens>\n<bem" + Self.attributes(limit) + "/>\n</bens>\n"
            let ok = try Self.read(accepted, chunk: chunk)
            #expect(ok.error == nil, "chunk \(chunk): \(String(describing: ok.error))")
            #expect(ok.lines == [2])
            // Markup that holds quotes and `>` but is no start tag must not be counted, nor throw the scan off.
            let tricky =
                "<?xml version=\"1.0\"?>\n<?pi a=\"1\" '>' ?><bens><!-- a=\"1\" > - -->\n"
                + "<bem A=\"x>y\" B='\"'><C><![CDATA[ <bem a=\"1\"> ]] ]]></C></bem>\n<bem\n"
                + Self.attributes(limit, from: 1) + " A='>' />\n</bens>\n"
            let refused = try Self.read(tricky, chunk: chunk)
            let error = try #require(refused.error, "chunk \(chunk): 1,001 attributes were accepted")
            #expect(refused.lines == [3], "chunk \(chunk)")
            #expect(error.location.line == 4, "chunk \(chunk)")
            #expect(error.location.column == 1, "chunk \(chunk)")
            #expect(error.message.contains("more than 1,000 attributes"), "\(error.message)")
        }
    }

    @Test("A start tag longer than the byte limit is refused at its <, with few attributes")
    func tooLongTagIsRefused() throws {
        // Through the reader libxml2's own 10,000,000-byte lookup limit refuses such a tag first
        // (XMLHugeValueTests); the scan's limit is the backstop, seen here on its own.
        let value = String(repeating: "v", count: XMLTagLimit.maximumBytes / 4)
        let text = "<bens>\n<bem/>\n<x/><bem" + (0..<5).map { " A\($0)=\"\(value)\"" }.joined() + "/>\n</bens>\n"
        let bytes = Array(text.utf8)
        var scan = XMLTagLimit()
        var refusal: XMLTagLimit.Refusal?
        var offset = 0
        while refusal == nil && offset < bytes.count {
            let end = min(offset + (1 << 16), bytes.count)
            refusal = bytes[offset..<end].withUnsafeBytes { scan.scan($0) }
            offset = end
        }
        let refused = try #require(refusal, "a start tag of \(bytes.count) bytes was accepted")
        #expect(refused.line == 3)
        #expect(refused.column == 5)
        #expect(refused.cut == 0, "the tag began in an earlier buffer")
        #expect(refused.message.contains("longer than 16,777,216 bytes"), "\(refused.message)")
        #expect(offset < bytes.count, "refused before the end of the tag")
    }

    @Test("Columns count characters, as libxml2's do")
    func columnsCountCharacters() throws {
        let text = "<bens><bem A=\"José\"/>ção<bem" + Self.attributes(2000) + "/></bens>"
        let error = try #require(try Self.read(text, chunk: 3).error)
        #expect(error.location.line == 1)
        #expect(error.location.column == 25)
    }

    @Test("Every XML fixture reads the same, whole or a byte at a time")
    func fixturesAreNotRefused() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/xml")
        var paths = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".xml") }
            .map { directory.appendingPathComponent($0).path }
        #expect(paths.count >= 6)
        paths.append(
            directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("UrnaImportTests/Fixtures/export/utf8_candidato.xml").path)
        for name in paths {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: name)))
            let whole = try Self.read(bytes: bytes)
            let byByte = try Self.read(bytes: bytes, chunk: 1)
            #expect(whole.lines == byByte.lines, "\(name)")
            #expect(whole.error?.kind == byByte.error?.kind, "\(name)")
            for error in [whole.error, byByte.error] {
                #expect(error?.message.hasPrefix("a start tag ") != true, "\(name): \(String(describing: error))")
            }
        }
    }
}
