import Testing

@testable import UrnaRecords

/// Record lines are where each `<candidato>`/`<bem>` start tag begins (its `<`, even when the tag spans
/// lines), as libxml2 counts lines, whatever the chunking and however far past line 65535.
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

    @Test func lineFeedCountIsExactNextToAnyByte() throws {
        // Record start lines when line feeds sit next to bytes that differ from LF in one bit (0x8A, 0x2A...),
        // in runs, inside column text, between records and inside multi-line attribute values of the
        // record's own start tag, whatever the chunking.
        var generator = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = [0x0A, 0x0A, 0x0A, 0x8A, 0x2A, 0x4A, 0x0D, 0x09, 0x20, 0xFF, 0x41, 0xC3, 0x3E]
        func noise(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in alphabet.randomElement(using: &generator)! }
        }
        for _ in 0..<20 {
            var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<candidatos>".utf8)
            var expected: [Int] = []
            for _ in 0..<(1 + Int.random(in: 0..<40, using: &generator)) {
                bytes += noise(Int.random(in: 0..<200, using: &generator)).map { $0 == 0x3E ? 0x20 : $0 }
                expected.append(1 + bytes.filter { $0 == 0x0A }.count)
                let multiline = Bool.random(using: &generator)
                bytes += Array((multiline ? "<candidato\n SQ_CANDIDATO=\"" : "<candidato NM=\"").utf8)
                bytes += noise(Int.random(in: 0..<80, using: &generator)).map { $0 == 0x3E ? 0x20 : $0 }
                bytes += Array("\"\n><NM_UE>".utf8)
                bytes += noise(Int.random(in: 0..<300, using: &generator))
                bytes += Array("</NM_UE></candidato>".utf8)
            }
            bytes += Array("</candidatos>\n".utf8)
            for chunk in [1, 7, 64, 4096, Int.max] {
                let reader = try XMLRecordReader(source: MemoryByteSource(bytes, maximumChunk: chunk), name: "m.xml")
                var lines: [Int] = []
                while let item = try reader.next() {
                    if case .record(let r) = item { lines.append(r.location.line) }
                }
                #expect(lines == expected, "chunk \(chunk)")
            }
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
