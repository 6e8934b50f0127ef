import Foundation
import Testing

@testable import UrnaRecords

private func declared(_ text: String) -> String? {
    Array(text.utf8).withUnsafeBytes { XMLLatin1Input.declaredEncoding(in: $0) }
}

/// Every item of an in-memory document, or the error that stopped it (with the items before it).
private func readXML(_ bytes: [UInt8], chunk: Int) -> (items: [String], error: String?) {
    var items: [String] = []
    do {
        let reader = try XMLRecordReader(source: MemoryByteSource(bytes, maximumChunk: chunk), name: "m.xml")
        while let item = try reader.next() {
            switch item {
            case .record(let r):
                items.append("\(r.kind) \(r.location) \(r.columns.names) \(r.values) \(r.rawBytes)")
            case .reject(let bad): items.append("reject \(bad) \(bad.rawBytes)")
            }
        }
        return (items, nil)
    } catch {
        return (items, "\(error)")
    }
}

@Suite("XML Latin-1 input converted before libxml2")
struct XMLLatin1InputTests {
    @Test func theDeclaredEncodingIsFoundOnlyInAWholeDeclarationAtTheStart() {
        #expect(declared("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a/>") == "ISO-8859-1")
        #expect(declared("<?xml version='1.0' encoding = 'latin1' standalone='yes'?><a/>") == "latin1")
        #expect(declared("<?xml version=\"1.0\"\n\tencoding=\"iso-8859-1\"?>") == "iso-8859-1")
        #expect(declared("<?xml version=\"1.0\"?><a encoding=\"ISO-8859-1\"/>") == nil)
        #expect(declared("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"") == nil)  // not closed in the window
        #expect(declared(" <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>") == nil)
        #expect(declared("<?xml-stylesheet encoding=\"ISO-8859-1\"?>") == nil)
        #expect(declared("<?xml version=\"1.0\" xencoding=\"ISO-8859-1\"?>") == nil)
        let latin1 = { (text: String) in Array(text.utf8).withUnsafeBytes { XMLLatin1Input.isDeclared(in: $0) } }
        #expect(latin1("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>"))
        #expect(!latin1("<?xml version=\"1.0\" encoding=\"windows-1252\"?>"))
        #expect(!latin1("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"))
    }

    @Test func transcodingMatchesLatin1DecodingAtEveryLengthAndOffset() {
        var generator = SystemRandomNumberGenerator()
        var inputs: [[UInt8]] = [Array(0...255), []]
        for length in 0..<40 {
            for _ in 0..<8 {
                inputs.append(
                    (0..<length).map { _ in Bool.random(using: &generator) ? 0x41 : UInt8.random(in: 0...255) })
            }
        }
        for input in inputs {
            let expected = Array(TextEncoding.latin1.decode(input[...]).utf8)
            var output = [UInt8](repeating: 0, count: XMLLatin1Input.capacity(for: input.count) + 1)
            let written = input.withUnsafeBytes { i in
                output.withUnsafeMutableBufferPointer { XMLLatin1Input.transcode(i, into: $0.baseAddress!) }
            }
            #expect(Array(output[..<written]) == expected, "\(input)")
        }
    }

    @Test func convertedInputReadsLikeLibxml2sOwnConversion() {
        // With one-byte chunks the declaration is not whole in the first bytes, so libxml2 converts; with
        // large chunks the reader does. Records, rejects, locations and errors must not differ.
        let head = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n"
        let documents: [String] = [
            head
                + "<candidatos>\n<candidato NM_UE=\"S\u{C3}O JO\u{C3}O\">\n<NM_CANDIDATO>ESPERAN\u{C7}A \u{FF}\u{80}</NM_CANDIDATO>\n"
                + "<bem><DS_BEM_CANDIDATO>CASA \u{E9} &amp; &#233;</DS_BEM_CANDIDATO></bem></candidato>\n</candidatos>\n",
            head + "<candidatos><candidato><NM_UE>\u{C1}\u{C9}</NM_UE><NM_UE>X</NM_UE></candidato></candidatos>",
            head + "<candidatos>\n<candidato><NM_UE>\u{C1}\u{C9}\u{CD}\u{D3}\u{DA}</NM_UE></candidatox>\n</candidatos>",
            head + "<candidatos>\n  <candidato><NM_UE>\u{E7}\u{E3}o</NM_UE>\u{01}</candidato></candidatos>",
            head + "<candidatos>\n\u{E9}\u{E9}\u{E9} <candidato><A>1</A></candidato>",
        ]
        for document in documents {
            let bytes = RecordsTestSupport.latin1(document)
            let byLibxml2 = readXML(bytes, chunk: 1)
            for chunk in [64, 4096, Int.max] {
                let converted = readXML(bytes, chunk: chunk)
                #expect(converted.items == byLibxml2.items, "chunk \(chunk): \(document)")
                #expect(converted.error == byLibxml2.error, "chunk \(chunk): \(document)")
            }
        }
    }

    @Test func aLatin1DeclarationInSmallChunksStillDecodes() throws {
        let bytes = RecordsTestSupport.latin1(
            "<?xml version=\"1.0\" encoding=\"latin1\"?><candidato><NM_UE>MARANH\u{C3}O</NM_UE></candidato>")
        for chunk in [1, 5, Int.max] {
            let (items, error) = readXML(bytes, chunk: chunk)
            #expect(error == nil)
            #expect(items.count == 1)
            #expect(items.first?.contains("MARANH\u{C3}O") == true)
        }
    }
}
