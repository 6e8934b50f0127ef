import Testing

@testable import UrnaRecords

/// Record lines come from `XMLMarkupScanner`, which must agree with libxml2 on where every
/// `<candidato>`/`<bem>` starts, whatever the chunking and however far past line 65535.
@Suite("XML record line numbers")
struct XMLLineNumberTests {
    /// A document exercising what could throw the scanner out of step, and the expected record lines.
    private static let tricky: (text: String, lines: [Int]) = {
        let text = """
            <?xml version="1.0"?>
            <?urna <candidato> ?>
            <candidatos>
            <!-- <candidato> <bem> <!DOCTYPE x> -->
            <candidato
              SQ_CANDIDATO="1"><NM><![CDATA[<bem>
            ]]></NM><bens>
            <bem/><bem
            ><A>1</A></bem></bens></candidato>
            <x:bem xmlns:x="urn:x"><A>2</A></x:bem><bemvindo/><candidatos2/>
            <ignorado><candidato><A>3</A></candidato></ignorado>
            <candidato><A>&lt;candidato&gt;</A></candidato>
            </candidatos>
            """
        return (text, [5, 8, 8, 10, 12])
    }()

    private func lines(_ text: String, chunk: Int) throws -> [Int] {
        let bytes = Array(text.utf8)
        let reader = try XMLRecordReader(source: MemoryByteSource(bytes, maximumChunk: chunk), name: "m.xml")
        var lines: [Int] = []
        while let item = try reader.next() {
            if case .record(let r) = item { lines.append(r.location.line) }
        }
        return lines
    }

    @Test(arguments: [1, 2, 3, 7, 64, 4096])
    func linesDoNotDependOnChunking(chunk: Int) throws {
        #expect(try lines(Self.tricky.text, chunk: chunk) == Self.tricky.lines)
    }

    @Test func candidateInsideAnIgnoredElementIsNotARecordButKeepsTheCount() throws {
        let bytes = Array(Self.tricky.text.utf8)
        let reader = try XMLRecordReader(source: MemoryByteSource(bytes), name: "m.xml")
        var kinds: [RecordKind] = []
        while let item = try reader.next() { if case .record(let r) = item { kinds.append(r.kind) } }
        #expect(kinds == [.candidate, .asset, .asset, .asset, .candidate])
        // NM and A are columns outside every TSE layout; what is inside <ignorado> is not counted.
        #expect(reader.unknownElementCounts == ["ignorado": 1, "bemvindo": 1, "candidatos2": 1, "NM": 1, "A": 3])
    }

    @Test func linesPastTheSixteenBitLimitAreExact() throws {
        var text = "<candidatos>\n"
        for i in 0..<40_000 {
            text += "<candidato>\n<SQ_CANDIDATO>\(i)</SQ_CANDIDATO>\n</candidato>\n"
        }
        text += "</candidatos>\n"
        let found = try lines(text, chunk: 4096)
        #expect(found.count == 40_000)
        #expect(found.first == 2)
        #expect(found.last == 2 + 3 * 39_999)
        #expect(found == (0..<40_000).map { 2 + 3 * $0 })
    }

    @Test func lineFeedCountIsExactNextToAnyByte() {
        // Bytes that differ from LF in one bit (0x8A, 0x0B, 0x08...) must not count; runs of LF must.
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x0A, 0x0A, 0x8A, 0x0B, 0x08, 0x0E, 0x1A, 0x2A, 0x4A, 0xFF, 0x00, 0x41, 0xC3, 0x3E]
        for _ in 0..<20 {
            let bytes =
                [0x41, 0x41, 0x41, 0x41]
                + (0..<(1 + Int.random(in: 0..<3000, using: &generator))).map { _ in
                    alphabet.randomElement(using: &generator)!
                }
            var scanner = XMLMarkupScanner()
            var offset = 0
            while offset < bytes.count {
                let n = min(bytes.count - offset, Int.random(in: 1...700, using: &generator))
                _ = bytes[offset..<(offset + n)].withUnsafeBytes { scanner.scan($0) }
                offset += n
            }
            #expect(scanner.line == 1 + bytes.filter { $0 == 0x0A }.count)
        }
    }

    @Test func crlfAndLoneCRCountLikeLibxml2() throws {
        // libxml2 counts line feeds only: CRLF is one line, a lone CR none.
        let text = "<candidatos>\r\n<candidato/>\r<candidato/>\r\n\r\n<candidato/></candidatos>"
        #expect(try lines(text, chunk: 1) == [2, 2, 4])
        #expect(try lines(text, chunk: 4096) == [2, 2, 4])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF] + Array("<candidatos>\n<candidato><A>é</A></candidato></candidatos>".utf8)
        for chunk in [1, 2, 4096] {
            let reader = try XMLRecordReader(source: MemoryByteSource(bytes, maximumChunk: chunk), name: "bom.xml")
            guard case .record(let r)? = try reader.next() else {
                Issue.record("no record with chunk \(chunk)")
                continue
            }
            #expect(r.location.line == 2)
            #expect(r["A"] == "é")
        }
    }
}
