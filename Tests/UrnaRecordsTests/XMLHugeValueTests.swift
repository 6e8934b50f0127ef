import Foundation
import Testing

@testable import UrnaRecords

/// A value past libxml2's 10,000,000-byte limit in an attribute (a fifth attacker's trial): the error named
/// file, line and column but read "internal error: Huge input lookup", as if urna had failed.
@Suite struct XMLHugeValueTests {
    @Test func hugeAttributeIsNamedAsTheFilesFault() throws {
        var text = "<?xml version=\"1.0\"?>\n<bens>\n<bem CD_ELEICAO=\"297\" DS_BEM_CANDIDATO=\""
        text += String(repeating: "A", count: 12_000_000)
        text += "\"/>\n</bens>\n"
        let bytes = Array(text.utf8)
        let reader = try XMLRecordReader(
            source: MemoryByteSource(bytes, maximumChunk: 1 << 16), name: "huge.xml", size: Int64(bytes.count),
            canonicalName: { $0 })
        var caught: XMLReadError?
        do {
            while try reader.next() != nil {}
        } catch let error as XMLReadError {
            caught = error
        }
        let error = try #require(caught, "a 12 MB attribute was accepted")
        #expect(error.location.file == "huge.xml")
        #expect(error.location.line == 3)
        #expect(error.message.contains("longer than 10,000,000 bytes (libxml2's limit"), "\(error.message)")
        #expect(!error.message.contains("internal error"), "\(error.message)")
    }
}
