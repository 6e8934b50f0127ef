import Foundation
import Testing

@testable import UrnaRecords

@Suite("Text encodings: detection and byte-level decoding")
struct TextEncodingTests {
    typealias S = RecordsTestSupport

    private func resolve(_ bytes: [UInt8], _ choice: TextEncodingChoice = .auto) -> (TextEncoding, Int) {
        bytes.withUnsafeBufferPointer {
            let r = choice.resolve(prefix: $0, atEnd: true)
            return (r.encoding, r.bomLength)
        }
    }

    @Test("auto: a BOM means UTF-8, valid non-ASCII UTF-8 means UTF-8, Latin-1 bytes or pure ASCII mean Latin-1")
    func detection() {
        #expect(resolve([0xEF, 0xBB, 0xBF] + Array("a;b".utf8)) == (.utf8, 3))
        #expect(resolve(Array("José;São".utf8)) == (.utf8, 0))
        #expect(resolve(S.latin1("José;São")) == (.latin1, 0))
        #expect(resolve(Array("plain;ascii".utf8)) == (.latin1, 0))
    }

    @Test("a forced encoding wins over the bytes")
    func forced() {
        #expect(resolve(Array("José".utf8), .latin1) == (.latin1, 0))
        #expect(resolve(S.latin1("José"), .utf8) == (.utf8, 0))
        #expect(resolve([0xEF, 0xBB, 0xBF, 0x41], .utf8) == (.utf8, 3))
        #expect(resolve([0xEF, 0xBB, 0xBF, 0x41], .cp1252) == (.cp1252, 0))
    }

    @Test("only the first 64 KiB decide; a multi-byte sequence cut at the window edge does not count as invalid")
    func detectionWindow() {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: TextEncoding.detectionWindow - 1)
        bytes += Array("é".utf8)  // its second byte falls just outside the window
        bytes += S.latin1("ção")  // invalid UTF-8, but past the window
        #expect(resolve(bytes) == (.utf8, 0))
    }

    @Test("the real TSE samples are detected as Latin-1")
    func samplesAreLatin1() throws {
        for name in ["consulta_cand_2018_MG.58col.csv", "consulta_cand_2016_AC.original-noheader.txt"] {
            let reader = try CSVReader(path: S.fixture(name))
            #expect(reader.encoding == .latin1, "\(name)")
        }
    }

    @Test("Latin-1 maps every byte to the code point of the same value")
    func latin1AllBytes() {
        let all = (0...255).map { UInt8($0) }
        let decoded = all.withUnsafeBufferPointer { TextEncoding.latin1.decode($0) }
        #expect(decoded.unicodeScalars.map(\.value) == (0...255).map { UInt32($0) })
    }

    @Test("Windows-1252 maps 0x80-0x9F per its table and keeps its five undefined bytes as C1 controls")
    func cp1252() {
        let bytes: [UInt8] = [0x80, 0x93, 0x94, 0x96, 0x85, 0x8A, 0x81, 0x8D, 0x8F, 0x90, 0x9D, 0xE9]
        let decoded = bytes.withUnsafeBufferPointer { TextEncoding.cp1252.decode($0) }
        #expect(decoded == "€“”–…Š\u{81}\u{8D}\u{8F}\u{90}\u{9D}é")
    }

    @Test("a cp1252 file read with .cp1252 gets curly quotes and the euro sign")
    func cp1252File() throws {
        let bytes: [UInt8] =
            Array("\"nome\";\"valor\"\n\"".utf8) + [0x93, 0x41, 0x94] + Array("\";\"".utf8) + [0x80]
            + Array("5\"\n".utf8)
        let rows = try S.csvResults(bytes, encoding: .cp1252)
        #expect(rows.map(\.fields) == [["nome", "valor"], ["“A”", "€5"]])
        let asLatin1 = try S.csvResults(bytes, encoding: .auto)
        #expect(asLatin1[1].fields == ["\u{93}A\u{94}", "\u{80}5"], "auto picks Latin-1, which keeps C1 controls")
    }

    @Test("UTF-8 with and without BOM gives the same rows; the BOM is not part of the first field")
    func utf8WithAndWithoutBOM() throws {
        let body = Array("\"NOME\";\"CIDADE\"\n\"José\";\"São Paulo\"\n".utf8)
        let plain = try S.csvResults(body, encoding: .auto)
        let withBOM = try S.csvResults([0xEF, 0xBB, 0xBF] + body, encoding: .auto)
        #expect(plain.map(\.fields) == [["NOME", "CIDADE"], ["José", "São Paulo"]])
        #expect(withBOM.map(\.fields) == plain.map(\.fields))
    }

    @Test("invalid UTF-8 in a UTF-8 file rejects just that row, naming the field and the fix")
    func invalidUTF8Row() throws {
        let bytes = Array("a;b\n\"ok\";\"".utf8) + S.latin1("ção") + Array("\"\nc;d\n".utf8)
        let rows = try S.csvResults(bytes, encoding: .utf8)
        #expect(rows.count == 3)
        let bad = try #require(rows[1].malformed)
        #expect(bad.location == SourceLocation(file: "test.csv", line: 2, column: 2))
        #expect(bad.reason.contains("not valid UTF-8"))
        #expect(bad.reason.contains("latin1"))
        #expect(rows[2].fields == ["c", "d"])
    }

    @Test("decoding collapses doubled quotes in the same pass, in every encoding")
    func collapse() {
        let bytes = S.latin1("a\"\"b\"\"é")
        for encoding in [TextEncoding.latin1, .cp1252] {
            #expect(bytes.withUnsafeBufferPointer { encoding.decode($0, collapsingDoubled: 0x22) } == "a\"b\"é")
        }
        let utf8 = Array("a\"\"é".utf8)
        #expect(utf8.withUnsafeBufferPointer { TextEncoding.utf8.decode($0, collapsingDoubled: 0x22) } == "a\"é")
    }

    @Test("the UTF-8 validator rejects overlongs, surrogates and stray continuation bytes")
    func validator() {
        func invalidAt(_ b: [UInt8]) -> Int? { b.withUnsafeBufferPointer { TextEncoding.firstInvalidUTF8(in: $0) } }
        #expect(invalidAt(Array("ok é € 𝄞".utf8)) == nil)
        #expect(invalidAt([0x41, 0xC0, 0x80]) == 1)
        #expect(invalidAt([0xED, 0xA0, 0x80]) == 0)
        #expect(invalidAt([0x41, 0x42, 0x80]) == 2)
        #expect(invalidAt([0xF4, 0x90, 0x80, 0x80]) == 0)
        #expect(invalidAt([0xE2, 0x82]) == 0)
    }
}
