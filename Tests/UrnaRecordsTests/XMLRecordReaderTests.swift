import Foundation
import Testing

@testable import UrnaRecords

/// Path of a fixture under Fixtures/xml.
private func xmlFixture(_ name: String) -> String {
    Bundle.module.path(forResource: name, ofType: nil, inDirectory: "Fixtures/xml")!
}

private func readAll(_ reader: XMLRecordReader) throws -> [RecordOrReject] {
    var items: [RecordOrReject] = []
    while let item = try reader.next() { items.append(item) }
    return items
}

private func records(_ items: [RecordOrReject]) -> [Record] {
    items.compactMap { if case .record(let r) = $0 { return r } else { return nil } }
}

private func memoryReader(
    _ text: String, chunk: Int = .max, canonicalName: @escaping (String) -> String = { $0 }
) throws -> XMLRecordReader {
    let bytes = Array(text.utf8)
    return try XMLRecordReader(
        source: MemoryByteSource(bytes, maximumChunk: chunk), name: "mem.xml", size: Int64(bytes.count),
        canonicalName: canonicalName)
}

/// Reads to the end and returns the error that stopped it (nil when none did).
private func readError(_ reader: XMLRecordReader) -> XMLReadError? {
    do {
        _ = try readAll(reader)
        return nil
    } catch let error as XMLReadError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

@Suite("XMLRecordReader")
struct XMLRecordReaderTests {
    @Test func candidatesWithNestedBensComeInDocumentOrder() throws {
        let reader = try XMLRecordReader(path: xmlFixture("candidates-nested.xml"))
        let items = try readAll(reader)
        let all = records(items)
        #expect(items.count == 4)
        #expect(all.map(\.kind) == [.candidate, .asset, .asset, .candidate])
        #expect(all.map(\.location.line) == [4, 14, 19, 29])
        #expect(all.allSatisfy { $0.location.file == "candidates-nested.xml" })
        #expect(reader.bytesRead == reader.fileSize)
        #expect(reader.fileSize > 0)
    }

    @Test func columnsFromElementsAndAttributes() throws {
        let all = records(try readAll(XMLRecordReader(path: xmlFixture("candidates-nested.xml"))))
        let first = try #require(all.first)
        #expect(first["CD_ELEICAO"] == "297")  // attribute
        #expect(first["SG_UF"] == "MG")  // attribute
        #expect(first["ANO_ELEICAO"] == "2018")
        #expect(first["SQ_CANDIDATO"] == "130000614380")
        #expect(first["NM_URNA_CANDIDATO"] == "FULANO & CIA")
        #expect(first["DS_CARGO"] == "DEPUTADO <FEDERAL>")  // CDATA
        #expect(first["NM_CANDIDATO"] == "  JOSÉ  DA SILVA ")  // passed through, not trimmed
        #expect(first["NR_PARTIDO"] == "13")  // after <bens>
        #expect(first["DS_FUTURA_COLUNA"] == "nova")  // unknown name, still a column
        #expect(first.columns.position(of: "endereco") == nil)  // has child elements: not a column
        #expect(first.columns.position(of: "rua") == nil)
        #expect(first.columns.position(of: "bens") == nil)
        #expect(all[3]["CD_ELEICAO"] == "298")
        #expect(all[3]["NM_URNA_CANDIDATO"] == "BELTRANO")
    }

    @Test func emptyAndMissingElementsAreNil() throws {
        let first = try #require(records(try readAll(XMLRecordReader(path: xmlFixture("candidates-nested.xml")))).first)
        #expect(first.columns.position(of: "NM_SOCIAL_CANDIDATO") != nil)
        #expect(first["NM_SOCIAL_CANDIDATO"] == nil)  // <X/>
        #expect(first.columns.position(of: "NM_EMAIL") != nil)
        #expect(first["NM_EMAIL"] == nil)  // <X></X>
        #expect(first.columns.position(of: "NM_UE") == nil)
        #expect(first["NM_UE"] == nil)  // missing
    }

    @Test func nestedBemInheritsItsCandidatesKeysUnlessItHasItsOwn() throws {
        let all = records(try readAll(XMLRecordReader(path: xmlFixture("candidates-nested.xml"))))
        let bem1 = all[1]
        #expect(bem1["NR_ORDEM_CANDIDATO"] == "1")
        #expect(bem1["CD_TIPO_BEM_CANDIDATO"] == "12")
        #expect(bem1["VR_BEM_CANDIDATO"] == "3669,04")
        #expect(bem1["CD_ELEICAO"] == "297")
        #expect(bem1["ANO_ELEICAO"] == "2018")
        #expect(bem1["SQ_CANDIDATO"] == "130000614380")
        #expect(bem1["SG_UF"] == "MG")
        #expect(bem1["SG_UE"] == "MG")
        #expect(bem1["NR_PARTIDO"] == nil)  // only the keys are inherited
        let bem2 = all[2]
        #expect(bem2["NR_ORDEM_CANDIDATO"] == "2")  // attribute
        #expect(bem2["SG_UF"] == "SP")  // its own wins
        #expect(bem2["SG_UE"] == "MG")  // its own is empty: inherited
        #expect(bem2["SQ_CANDIDATO"] == "130000614380")
    }

    @Test func unknownElementsAreCountedByName() throws {
        let reader = try XMLRecordReader(path: xmlFixture("candidates-nested.xml"))
        _ = try readAll(reader)
        #expect(reader.unknownElementCounts == ["DS_FUTURA_COLUNA": 1, "endereco": 1, "metadados": 1])
    }

    @Test func rawBytesAreTheRecordReserialised() throws {
        let all = records(try readAll(XMLRecordReader(path: xmlFixture("candidates-nested.xml"))))
        let raw = String(decoding: all[0].rawBytes, as: UTF8.self)
        #expect(raw.hasPrefix("<candidato><CD_ELEICAO>297</CD_ELEICAO><SG_UF>MG</SG_UF>"))
        #expect(raw.contains("<NM_URNA_CANDIDATO>FULANO &amp; CIA</NM_URNA_CANDIDATO>"))
        #expect(raw.contains("<DS_CARGO>DEPUTADO &lt;FEDERAL&gt;</DS_CARGO>"))
        #expect(raw.contains("<NM_EMAIL/>"))
        #expect(raw.hasSuffix("</candidato>"))
        let bem = String(decoding: all[1].rawBytes, as: UTF8.self)
        #expect(bem.hasPrefix("<bem><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO>"))
        #expect(bem.contains("<SQ_CANDIDATO>130000614380</SQ_CANDIDATO>"))
    }

    @Test func standaloneBensAreAssets() throws {
        let reader = try XMLRecordReader(path: xmlFixture("assets-standalone.xml"))
        let all = records(try readAll(reader))
        #expect(all.count == 2)
        #expect(all.allSatisfy { $0.kind == .asset })
        #expect(all.map(\.location.line) == [3, 4])
        #expect(all[0]["SQ_CANDIDATO"] == "130000614380")
        #expect(all[0]["VR_BEM_CANDIDATO"] == "10,00")
        #expect(all[1]["SQ_CANDIDATO"] == "130000614381")  // attributes of an empty <bem/>
        #expect(all[1]["NR_ORDEM_CANDIDATO"] == "1")
        #expect(all[1].columns.names == ["CD_ELEICAO", "SQ_CANDIDATO", "NR_ORDEM_CANDIDATO"])
        #expect(reader.unknownElementCounts.isEmpty)
    }

    @Test func declaredISO88591IsDecoded() throws {
        let all = records(try readAll(XMLRecordReader(path: xmlFixture("latin1-declared.xml"))))
        #expect(all.count == 1)
        #expect(all[0]["NM_URNA_CANDIDATO"] == "ESPERANÇA")
        #expect(all[0]["NM_UE"] == "SÃO JOÃO DEL-REI")
    }

    @Test func declaredWindows1252IsDecoded() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"windows-1252\"?>\n<candidato><VR_BEM_CANDIDATO>".utf8)
        bytes += [0x80, 0x20, 0xC7]  // "€ Ç"
        bytes += Array("</VR_BEM_CANDIDATO></candidato>".utf8)
        let all = records(try readAll(XMLRecordReader(source: MemoryByteSource(bytes), name: "cp1252.xml")))
        #expect(all.count == 1)
        #expect(all.first?.kind == .candidate)  // a <candidato> root is a one-record file
        #expect(all.first?["VR_BEM_CANDIDATO"] == "€ Ç")
    }

    @Test func undeclaredLatin1IsRefused() throws {
        var bytes = Array("<candidatos><candidato><NM_UE>S".utf8)
        bytes += [0xC3, 0x4F]  // "ÃO" in Latin-1; 0xC3 then "O" is not UTF-8
        bytes += Array("</NM_UE></candidato></candidatos>".utf8)
        let reader = try XMLRecordReader(source: MemoryByteSource(bytes), name: "mem.xml")
        let error = try #require(readError(reader))
        #expect(error.kind == .unsupportedEncoding)
        #expect(error.location.line == 1)
        #expect(error.message.contains("declare the file's encoding"))
    }

    @Test func wellFormednessErrorNamesFileLineAndColumn() throws {
        let reader = try XMLRecordReader(path: xmlFixture("malformed.xml"))
        let error = try #require(readError(reader))
        #expect(error.kind == .malformed)
        #expect(error.location.file == "malformed.xml")
        #expect(error.location.line == 7)
        #expect(error.location.column > 0)
        #expect(error.message.contains("SQ_CANDIDATO"))
        #expect(error.description.hasPrefix("malformed.xml:7:"))
    }

    @Test func externalEntityIsRefusedAndNeverRead() throws {
        let passwd = (try? String(contentsOfFile: "/etc/passwd", encoding: .utf8)) ?? "root:x:0:0"
        let marker = String(passwd.prefix(while: { $0 != "\n" }))
        let reader = try XMLRecordReader(path: xmlFixture("xxe.xml"))
        var seen: [String] = []
        do {
            while let item = try reader.next() {
                if case .record(let r) = item {
                    seen += r.values.compactMap { $0 } + [String(decoding: r.rawBytes, as: UTF8.self)]
                }
                if case .reject(let bad) = item { seen.append(bad.reason) }
            }
            Issue.record("a file with an external entity was accepted")
        } catch let error as XMLReadError {
            #expect(error.kind == .dtdNotAccepted)
            #expect(error.location.line == 2)
            seen.append(error.description)
        }
        #expect(!marker.isEmpty)
        #expect(seen.allSatisfy { !$0.contains(marker) && !$0.contains("root:") })
    }

    @Test func billionLaughsFailsFast() throws {
        let reader = try XMLRecordReader(path: xmlFixture("billion-laughs.xml"))
        var longest = 0
        var failure: XMLReadError?
        do {
            while let item = try reader.next() {
                if case .record(let r) = item {
                    longest = max(longest, r.values.map { $0?.utf8.count ?? 0 }.max() ?? 0)
                }
            }
        } catch let error as XMLReadError {
            failure = error
        }
        #expect(failure?.kind == .dtdNotAccepted)
        #expect(longest < 1000)
        #expect(reader.bytesRead <= reader.fileSize)
    }

    @Test func anyDoctypeIsRefusedButOneInACommentIsNot() throws {
        let refused = readError(try memoryReader("<?xml version=\"1.0\"?>\n<!DOCTYPE candidatos>\n<candidatos/>"))
        #expect(refused?.kind == .dtdNotAccepted)
        #expect(refused?.location.line == 2)
        #expect(refused?.location.column == 1)
        #expect(refused?.message.contains("DTDs are not accepted") == true)
        let fine = try memoryReader(
            "<!-- <!DOCTYPE x> --><candidatos><candidato><A><![CDATA[<!DOCTYPE>]]></A></candidato></candidatos>")
        let all = records(try readAll(fine))
        #expect(all.count == 1)
        #expect(all.first?["A"] == "<!DOCTYPE>")
    }

    @Test func deepNestingErrorsCleanly() throws {
        let depth = 100_000
        let text =
            "<candidatos><candidato>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</candidato></candidatos>"
        let error = try #require(readError(try memoryReader(text)))
        #expect(error.kind == .malformed)
        #expect(error.location.line == 1)
        #expect(error.message.contains("deeper than 256 levels"))
    }

    @Test func unknownDeclaredEncodingIsRefused() throws {
        let error = try #require(
            readError(try memoryReader("<?xml version=\"1.0\" encoding=\"KLINGON\"?>\n<candidatos/>")))
        #expect(error.kind == .unsupportedEncoding)
        #expect(error.message.contains("KLINGON"))
    }

    @Test func namespaceErrorsRefuseTheFile() throws {
        let error = try #require(
            readError(try memoryReader("<candidatos>\n<candidato><x:A>1</x:A></candidato>\n</candidatos>")))
        #expect(error.kind == .malformed)
        #expect(error.location.line == 2)
    }

    @Test func utf16IsRefused() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "<candidatos/>".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let error = try #require(readError(XMLRecordReader(source: MemoryByteSource(bytes), name: "utf16.xml")))
        #expect(error.kind == .unsupportedEncoding)
    }

    @Test func inputWithoutElementsIsAnError() throws {
        do {
            _ = try readAll(try memoryReader(""))
            Issue.record("an empty input was accepted")
        } catch RecordFileError.empty(let file) {
            #expect(file == "mem.xml")
        }
        let blank = readError(try memoryReader("<?xml version=\"1.0\"?>\n  <!-- nada -->\n"))
        #expect(blank?.kind == .malformed)
        #expect(blank?.message.contains("no XML element") == true)
        #expect(readError(try memoryReader("SQ_CANDIDATO;NM_UE\n1;RIO\n"))?.kind == .malformed)
    }

    @Test func conflictingRepeatedColumnRejectsTheCandidateAndItsBens() throws {
        let text = """
            <candidatos>
            <candidato><SQ_CANDIDATO>1</SQ_CANDIDATO><SQ_CANDIDATO>2</SQ_CANDIDATO>\
            <bem><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO></bem></candidato>
            <candidato><SQ_CANDIDATO>3</SQ_CANDIDATO><SQ_CANDIDATO>3</SQ_CANDIDATO></candidato>
            </candidatos>
            """
        let items = try readAll(try memoryReader(text))
        #expect(items.count == 3)
        guard case .reject(let bad) = items[0], case .reject(let badBem) = items[1], case .record(let good) = items[2]
        else {
            Issue.record("expected reject, reject, record; got \(items)")
            return
        }
        #expect(bad.location.line == 2)
        #expect(bad.reason.contains("SQ_CANDIDATO"))
        #expect(String(decoding: bad.rawBytes, as: UTF8.self).hasPrefix("<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO>"))
        #expect(badBem.reason.contains("line 2"))
        #expect(good["SQ_CANDIDATO"] == "3")
        #expect(good.columns.names == ["SQ_CANDIDATO"])
    }

    @Test func tooManyNestedBensRejectTheCandidateInsteadOfGrowingMemory() throws {
        let limit = XMLRecordAssembler.maximumNestedAssets
        let bens = String(repeating: "<bem><VR_BEM_CANDIDATO>1</VR_BEM_CANDIDATO></bem>", count: limit + 5)
        let items = try readAll(
            try memoryReader("<candidatos><candidato><SQ_CANDIDATO>1</SQ_CANDIDATO>\(bens)</candidato></candidatos>"))
        #expect(items.count == 1 + limit)
        guard case .reject(let bad) = items.first else {
            Issue.record("the candidato was not rejected")
            return
        }
        #expect(bad.reason.contains("more than \(limit) <bem>"))
        #expect(items.allSatisfy { if case .reject = $0 { true } else { false } })
    }

    @Test func canonicalNamesAreUsedForColumnsAndInheritance() throws {
        let renames = ["SEQUENCIAL_CANDIDATO": "SQ_CANDIDATO", "SIGLA_UF": "SG_UF"]
        let text = """
            <candidatos><candidato><SEQUENCIAL_CANDIDATO>7</SEQUENCIAL_CANDIDATO><SIGLA_UF>AC</SIGLA_UF>\
            <bens><bem><VALOR_BEM>1,00</VALOR_BEM></bem></bens></candidato></candidatos>
            """
        let reader = try memoryReader(text, canonicalName: { renames[$0] ?? $0 })
        let all = records(try readAll(reader))
        #expect(all.count == 2)
        #expect(all[0]["SQ_CANDIDATO"] == "7")
        #expect(all[0]["SEQUENCIAL_CANDIDATO"] == nil)
        #expect(all[1]["SQ_CANDIDATO"] == "7")
        #expect(all[1]["SG_UF"] == "AC")
        #expect(all[1]["VALOR_BEM"] == "1,00")
        #expect(
            String(decoding: all[0].rawBytes, as: UTF8.self).contains("<SEQUENCIAL_CANDIDATO>7</SEQUENCIAL_CANDIDATO>"))
        #expect(reader.unknownElementCounts.isEmpty)
    }

    @Test func recordsWithTheSameColumnsShareOneColumnIndex() throws {
        let one = "<candidato><CD_ELEICAO>297</CD_ELEICAO><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>"
        let other = "<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>"
        let all = records(try readAll(try memoryReader("<candidatos>\(one)\(one)\(other)\(one)</candidatos>")))
        #expect(all.count == 4)
        #expect(all[0].columns === all[1].columns)
        #expect(all[0].columns !== all[2].columns)
        #expect(all[0].columns === all[3].columns)
    }

    @Test func namespacedElementsAndForeignAttributes() throws {
        let text = """
            <x:candidatos xmlns:x="urn:x" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
            <x:candidato xsi:type="t" SQ_CANDIDATO="9"><x:NM_UE>RIO</x:NM_UE></x:candidato>
            </x:candidatos>
            """
        let reader = try memoryReader(text)
        let all = records(try readAll(reader))
        #expect(all.count == 1)
        #expect(all.first?.location.line == 2)
        #expect(all.first?["SQ_CANDIDATO"] == "9")
        #expect(all.first?["NM_UE"] == "RIO")
        #expect(all.first?.columns.position(of: "type") == nil)
        #expect(reader.unknownElementCounts == ["type": 1])
    }

    @Test func strayTextBetweenColumnsIsCounted() throws {
        let reader = try memoryReader(
            "<candidatos>x<candidato>\n  solto\n  <NM_UE>RIO</NM_UE>\n</candidato></candidatos>")
        let all = records(try readAll(reader))
        #expect(all.first?.columns.names == ["NM_UE"])
        #expect(reader.unknownElementCounts == ["#text": 2])
    }

    @Test func coligacaoRecordsWithChildrenAreCoalitionRecords() throws {
        let text = """
            <?xml version="1.0"?>
            <candidatos>
              <candidato><SQ_CANDIDATO>1</SQ_CANDIDATO><SQ_COLIGACAO>77</SQ_COLIGACAO></candidato>
              <coligacoes>
                <coligacao><SQ_COLIGACAO>77</SQ_COLIGACAO><NM_COLIGACAO>A &amp; B</NM_COLIGACAO>\
            <DS_COMPOSICAO_COLIGACAO>PT / PV</DS_COMPOSICAO_COLIGACAO><NR_PARTIDO>13</NR_PARTIDO><SG_PARTIDO/></coligacao>
                <coligacao>
                  <SQ_COLIGACAO>77</SQ_COLIGACAO>
                  <NR_PARTIDO>43</NR_PARTIDO>
                </coligacao>
              </coligacoes>
              <coligacao><SQ_COLIGACAO>78</SQ_COLIGACAO></coligacao>
            </candidatos>
            """
        for chunk in [Int.max, 7] {
            let reader = try memoryReader(text, chunk: chunk)
            let all = records(try readAll(reader))
            #expect(all.map(\.kind) == [.candidate, .coalition, .coalition, .coalition])
            #expect(all.map(\.location.line) == [3, 5, 6, 11])
            let first = all[1]
            #expect(
                first.columns.names == [
                    "SQ_COLIGACAO", "NM_COLIGACAO", "DS_COMPOSICAO_COLIGACAO", "NR_PARTIDO", "SG_PARTIDO",
                ])
            #expect(first["SQ_COLIGACAO"] == "77")
            #expect(first["NM_COLIGACAO"] == "A & B")
            #expect(first["DS_COMPOSICAO_COLIGACAO"] == "PT / PV")
            #expect(first["NR_PARTIDO"] == "13")
            #expect(first["SG_PARTIDO"] == nil)
            #expect(first["SQ_CANDIDATO"] == nil)  // a <coligacao> inherits nothing
            #expect(all[2]["NR_PARTIDO"] == "43")
            #expect(all[3]["SQ_COLIGACAO"] == "78")
            #expect(all[3]["NR_PARTIDO"] == nil)
            let raw = String(decoding: first.rawBytes, as: UTF8.self)
            #expect(raw.hasPrefix("<coligacao><SQ_COLIGACAO>77</SQ_COLIGACAO><NM_COLIGACAO>A &amp; B</NM_COLIGACAO>"))
            #expect(raw.hasSuffix("<SG_PARTIDO/></coligacao>"))
            #expect(reader.unknownElementCounts.isEmpty)  // <coligacoes> is part of the shape
        }
    }

    @Test func coligacaoAttributesAreColumns() throws {
        let text = """
            <candidatos>
            <coligacoes><coligacao SQ_COLIGACAO="5" NR_PARTIDO="10" SG_PARTIDO="REP"><NM_COLIGACAO>X</NM_COLIGACAO>\
            </coligacao></coligacoes>
            <coligacao SQ_COLIGACAO="6" TP_AGREMIACAO="PARTIDO ISOLADO"/>
            </candidatos>
            """
        let all = records(try readAll(try memoryReader(text)))
        #expect(all.map(\.kind) == [.coalition, .coalition])
        #expect(all.map(\.location.line) == [2, 3])
        #expect(all[0].columns.names == ["SQ_COLIGACAO", "NR_PARTIDO", "SG_PARTIDO", "NM_COLIGACAO"])
        #expect(all[0]["SG_PARTIDO"] == "REP")
        #expect(all[0]["NM_COLIGACAO"] == "X")
        #expect(all[1]["SQ_COLIGACAO"] == "6")
        #expect(all[1]["TP_AGREMIACAO"] == "PARTIDO ISOLADO")
        #expect(
            String(decoding: all[1].rawBytes, as: UTF8.self)
                == "<coligacao><SQ_COLIGACAO>6</SQ_COLIGACAO><TP_AGREMIACAO>PARTIDO ISOLADO</TP_AGREMIACAO></coligacao>"
        )
    }

    @Test func unknownChildrenOfColigacaoAreCounted() throws {
        let text = """
            <candidatos><coligacoes>
            <coligacao><SQ_COLIGACAO>5</SQ_COLIGACAO><DS_NOVA>n</DS_NOVA><extra><a>1</a></extra>\
            <bem><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO></bem><bens/></coligacao>
            <resumo>2</resumo>
            </coligacoes>
            <candidato><SQ_CANDIDATO>1</SQ_CANDIDATO><coligacao><SQ_COLIGACAO>5</SQ_COLIGACAO></coligacao></candidato>
            </candidatos>
            """
        let reader = try memoryReader(text, canonicalName: TSELayouts.canonicalName)
        let items = try readAll(reader)
        let all = records(items)
        #expect(items.count == 2)
        #expect(all.map(\.kind) == [.coalition, .candidate])
        #expect(all[0].columns.names == ["SQ_COLIGACAO", "DS_NOVA"])  // an unknown name is still a column
        #expect(all[0]["NR_ORDEM_CANDIDATO"] == nil)  // a <bem> inside a <coligacao> is not read
        #expect(all[1].columns.names == ["SQ_CANDIDATO"])  // nor a <coligacao> inside a <candidato>
        #expect(
            reader.unknownElementCounts == ["DS_NOVA": 1, "extra": 1, "bem": 1, "bens": 1, "resumo": 1, "coligacao": 1])
    }

    @Test func malformedColigacaoNamesLineAndColumn() throws {
        let text = """
            <?xml version="1.0"?>
            <candidatos>
            <coligacoes>
            <coligacao><SQ_COLIGACAO>5</SQ_COLIGACAO><NR_PARTIDO>10</SG_PARTIDO></coligacao>
            </coligacoes>
            </candidatos>
            """
        let error = try #require(readError(try memoryReader(text)))
        #expect(error.kind == .malformed)
        #expect(error.location.file == "mem.xml")
        #expect(error.location.line == 4)
        #expect(error.location.column > 40)
        #expect(error.message.contains("NR_PARTIDO"))
        #expect(error.description.hasPrefix("mem.xml:4:"))
        let unclosed = try #require(readError(try memoryReader("<candidatos>\n<coligacao SQ_COLIGACAO=\"5\">\n")))
        #expect(unclosed.kind == .malformed)
        #expect(unclosed.location.line >= 2)
    }

    /// Without entity substitution libxml2's SAX2 parser hands every `&` of an attribute value over as `&#38;`;
    /// the reader must give back the value itself, as it does for element text.
    @Test func referencesInAttributeValuesAreResolved() throws {
        let text = """
            <candidatos><candidato NM_URNA_CANDIDATO="A &amp; B &#38; C &lt;&gt;&quot;&apos; &#233; &amp;#38;"\
             NM_CANDIDATO="" DS_CARGO="x	y"><NM_UE>P &amp; Q</NM_UE></candidato></candidatos>
            """
        let all = records(try readAll(try memoryReader(text)))
        #expect(all.first?["NM_URNA_CANDIDATO"] == "A & B & C <>\"' é &#38;")
        #expect(all.first?["NM_UE"] == "P & Q")
        #expect(all.first?.columns.position(of: "NM_CANDIDATO") != nil)
        #expect(all.first?["NM_CANDIDATO"] == nil)  // an empty attribute means no value
        #expect(all.first?["DS_CARGO"] == "x y")  // attribute-value normalisation
        let raw = String(decoding: try #require(all.first).rawBytes, as: UTF8.self)
        #expect(raw.contains("<NM_URNA_CANDIDATO>A &amp; B &amp; C &lt;&gt;\"' é &amp;#38;</NM_URNA_CANDIDATO>"))
    }

    @Test func looksLikeXML() {
        #expect(XMLRecordReader.looksLikeXML(firstBytes: Array("<?xml version=\"1.0\"?>".utf8)))
        #expect(XMLRecordReader.looksLikeXML(firstBytes: [0xEF, 0xBB, 0xBF] + Array(" \r\n<candidatos>".utf8)))
        #expect(XMLRecordReader.looksLikeXML(firstBytes: Array("<!-- c -->".utf8)))
        #expect(!XMLRecordReader.looksLikeXML(firstBytes: Array("\"DT_GERACAO\";\"HH_GERACAO\"".utf8)))
        #expect(!XMLRecordReader.looksLikeXML(firstBytes: Array("< 3".utf8)))
        #expect(!XMLRecordReader.looksLikeXML(firstBytes: []))
    }
}
