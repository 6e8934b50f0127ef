import Foundation
import Testing

@testable import UrnaRecords

/// Every record and reject of an in-memory XML document, read `chunk` bytes at a time.
private func readXML(_ bytes: [UInt8], chunk: Int = .max) throws -> [RecordOrReject] {
    let reader = try XMLRecordReader(
        source: MemoryByteSource(bytes, maximumChunk: chunk), name: "mem.xml", size: Int64(bytes.count))
    var items: [RecordOrReject] = []
    while let item = try reader.next() { items.append(item) }
    return items
}

private func records(_ items: [RecordOrReject]) -> [Record] {
    items.compactMap { if case .record(let r) = $0 { return r } else { return nil } }
}

/// The bytes `withEncodedRow` lends for each field (nil where it lends none).
private func viewFields(_ record: Record) -> [[UInt8]?] {
    record.withEncodedRow { view in
        (0..<record.fieldCount).map { i in view?.field(i).map { Array($0) } }
    }
}

/// Checks the byte view against `value(at:)`: every field with a value is lent as its UTF-8 bytes, and
/// a field without one is not lent at all.
private func expectViewMatchesValues(_ record: Record, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let encoding = record.withEncodedRow { $0?.encoding }
    #expect(encoding == .utf8, sourceLocation: sourceLocation)
    let lent = viewFields(record)
    for i in 0..<record.fieldCount {
        let value = record.value(at: i)
        #expect(lent[i] == value.map { Array($0.utf8) }, "field \(i)", sourceLocation: sourceLocation)
    }
    #expect(record.values == (0..<record.fieldCount).map { record.value(at: $0) }, sourceLocation: sourceLocation)
}

@Suite("XML records as bytes")
struct XMLRecordBytesTests {
    @Test func columnTextsAreLentAsUTF8Bytes() throws {
        let xml = """
            <candidatos><candidato CD_ELEICAO="297" SG_UF="">
            <SQ_CANDIDATO>130000614380</SQ_CANDIDATO><NM_EMAIL/><NM_CANDIDATO>FULANO &amp; CIA</NM_CANDIDATO>
            <DS_CARGO></DS_CARGO><NM_UE><![CDATA[BELO]]> HORIZONTE</NM_UE>
            </candidato></candidatos>
            """
        let all = records(try readXML(Array(xml.utf8)))
        let r = try #require(all.first)
        #expect(
            r.columns.names == ["CD_ELEICAO", "SG_UF", "SQ_CANDIDATO", "NM_EMAIL", "NM_CANDIDATO", "DS_CARGO", "NM_UE"])
        #expect(r.values == ["297", nil, "130000614380", nil, "FULANO & CIA", nil, "BELO HORIZONTE"])
        #expect(
            viewFields(r) == [
                Array("297".utf8), nil, Array("130000614380".utf8), nil, Array("FULANO & CIA".utf8), nil,
                Array("BELO HORIZONTE".utf8),
            ])
        expectViewMatchesValues(r)
    }

    @Test func textInPiecesGivesTheSameRecords() throws {
        let xml = """
            <candidatos><candidato><SQ_CANDIDATO>1</SQ_CANDIDATO><NM_CANDIDATO>JOS\u{C9} DA CONCEI\u{C7}\u{C3}O</NM_CANDIDATO>
            <bens><bem><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO><DS_BEM_CANDIDATO>CASA &lt;A&gt; &#233;</DS_BEM_CANDIDATO></bem></bens>
            </candidato></candidatos>
            """
        let whole = records(try readXML(Array(xml.utf8)))
        for chunk in [1, 3, 7, 64] {
            let pieces = records(try readXML(Array(xml.utf8), chunk: chunk))
            #expect(pieces.map(\.values) == whole.map(\.values), "chunk \(chunk)")
            #expect(pieces.map(\.rawBytes) == whole.map(\.rawBytes), "chunk \(chunk)")
            for record in pieces { expectViewMatchesValues(record) }
        }
        #expect(whole[0]["NM_CANDIDATO"] == "JOS\u{C9} DA CONCEI\u{C7}\u{C3}O")
        #expect(whole[1]["DS_BEM_CANDIDATO"] == "CASA <A> \u{E9}")
    }

    @Test func latin1TextIsLentAsUTF8() throws {
        let xml =
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"
            + "<candidatos><candidato><SQ_CANDIDATO>7</SQ_CANDIDATO><NM_UE>MARANH\u{C3}O</NM_UE>"
            + "<DS_ELEICAO>Elei\u{E7}\u{F5}es Gerais</DS_ELEICAO></candidato></candidatos>\n"
        let r = try #require(records(try readXML(RecordsTestSupport.latin1(xml), chunk: 5)).first)
        #expect(r["NM_UE"] == "MARANH\u{C3}O")
        #expect(viewFields(r)[1] == Array("MARANH\u{C3}O".utf8))
        #expect(r["DS_ELEICAO"] == "Elei\u{E7}\u{F5}es Gerais")
        expectViewMatchesValues(r)
    }

    @Test func inheritedKeysAreLentToo() throws {
        let xml = """
            <candidatos><candidato SQ_CANDIDATO="130000614380"><SG_UF>MG</SG_UF><SG_UE></SG_UE>
            <bem><SG_UE/><SG_UF>SP</SG_UF><NR_ORDEM_CANDIDATO>2</NR_ORDEM_CANDIDATO></bem>
            </candidato></candidatos>
            """
        let all = records(try readXML(Array(xml.utf8)))
        #expect(all.count == 2)
        let bem = all[1]
        #expect(bem.columns.names == ["SG_UE", "SG_UF", "NR_ORDEM_CANDIDATO", "SQ_CANDIDATO"])
        #expect(bem.values == [nil, "SP", "2", "130000614380"])
        #expect(String(decoding: bem.rawBytes, as: UTF8.self).hasPrefix("<bem><SG_UE/><SG_UF>SP</SG_UF>"))
        for record in all { expectViewMatchesValues(record) }
    }

    @Test func aRepeatedColumnFillsAnEmptyOneAndAgreeingRepeatsAreKept() throws {
        let xml = """
            <candidatos><candidato><NM_UE/><SQ_CANDIDATO>5</SQ_CANDIDATO><NM_UE>RIO</NM_UE>
            <SQ_CANDIDATO>5</SQ_CANDIDATO><SQ_CANDIDATO/><DS_CARGO>PREFEITO</DS_CARGO></candidato></candidatos>
            """
        let r = try #require(records(try readXML(Array(xml.utf8))).first)
        #expect(r.columns.names == ["NM_UE", "SQ_CANDIDATO", "DS_CARGO"])
        #expect(r.values == ["RIO", "5", "PREFEITO"])
        #expect(
            String(decoding: r.rawBytes, as: UTF8.self)
                == "<candidato><NM_UE>RIO</NM_UE><SQ_CANDIDATO>5</SQ_CANDIDATO><DS_CARGO>PREFEITO</DS_CARGO></candidato>"
        )
        expectViewMatchesValues(r)
    }

    @Test func repeatsThatDifferOnlyInUnicodeNormalisationAgree() throws {
        // "É" precomposed, then as E + combining acute: the same text, so no conflict; the later one is kept.
        let xml = "<candidatos><candidato><NM_UE>\u{C9}</NM_UE><NM_UE>E\u{301}</NM_UE></candidato></candidatos>"
        let items = try readXML(Array(xml.utf8))
        let r = try #require(records(items).first)
        #expect(r.value(at: 0).map { Array($0.utf8) } == Array("E\u{301}".utf8))
        expectViewMatchesValues(r)
    }

    @Test func aConflictingRepeatRejectsWithTheFirstValueRendered() throws {
        let xml =
            "<candidatos><candidato><SQ_CANDIDATO>1</SQ_CANDIDATO><SQ_CANDIDATO>2</SQ_CANDIDATO><NM_UE>X</NM_UE></candidato></candidatos>"
        let items = try readXML(Array(xml.utf8))
        guard case .reject(let bad) = try #require(items.first) else {
            Issue.record("expected a reject")
            return
        }
        #expect(bad.reason.contains("appears twice with different values"))
        #expect(
            String(decoding: bad.rawBytes, as: UTF8.self)
                == "<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO><NM_UE>X</NM_UE></candidato>")
    }

    @Test func aColumnWithChildElementsLeavesNoTextBehind() throws {
        let xml = """
            <candidatos><candidato><SQ_CANDIDATO>9</SQ_CANDIDATO>
            <endereco>RUA <numero>12</numero> CENTRO</endereco><NM_UE>UBA</NM_UE></candidato></candidatos>
            """
        let r = try #require(records(try readXML(Array(xml.utf8), chunk: 4)).first)
        #expect(r.columns.names == ["SQ_CANDIDATO", "NM_UE"])
        #expect(r.values == ["9", "UBA"])
        expectViewMatchesValues(r)
    }

    @Test func recordsBuiltFromStringsLendNoBytes() {
        let record = Record(
            kind: .candidate, columns: ColumnIndex(names: ["SQ_CANDIDATO"]), values: ["1"],
            location: UrnaRecords.SourceLocation(file: "a.xml", line: 1), rawBytes: [])
        #expect(record.withEncodedRow { $0 == nil })
    }
}
