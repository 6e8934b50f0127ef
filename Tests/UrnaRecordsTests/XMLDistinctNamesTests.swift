import Foundation
import Testing

@testable import UrnaRecords

/// Every distinct element or attribute name goes into libxml2's name dictionary, whose lookups slow down as it
/// grows: 800,000 different names in one record took 54 s to read (2,000,000 over six minutes) although Urna kept
/// only the first 20,000. Past that many names the file is no candidate dump: reading stops there.
@Suite struct XMLDistinctNamesTests {
    @Test("A file past the distinct-name limit is refused at that name, and the rest is never parsed")
    func refusedAtTheLimit() throws {
        let path = try HostileFileTests.temporaryPath("names.xml")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let names = 4 * XMLNameTable.maximumDistinctNames
        var text = "<candidatos>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n<candidato>"
        for i in 0..<names { text += "<C\(i)/>\(i % 1000 == 999 ? "\n" : "")" }
        text += "</candidato>\n</candidatos>\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let reader = try XMLRecordReader(path: path)
        var items: [RecordOrReject] = []
        var failure: XMLReadError?
        do {
            while let item = try reader.next() { items.append(item) }
        } catch let error as XMLReadError {
            failure = error
        }
        #expect(items.count == 1, "the record before the names is still read")
        let error = try #require(failure)
        #expect(error.kind == .malformed)
        #expect(error.location.file == "names.xml")
        // candidatos, candidato and SQ_CANDIDATO come first, so name C(limit - 3) is the first past the limit, on
        // line 3 + (limit - 3) / 1000 (a line break every 1,000 names).
        #expect(error.location.line == 3 + (XMLNameTable.maximumDistinctNames - 3) / 1000)
        #expect(error.location.column > 0)
        #expect(error.message.contains("more than \(XMLNameTable.maximumDistinctNames) distinct"), "\(error.message)")
        #expect(reader.bytesRead < reader.fileSize / 2, "read \(reader.bytesRead) of \(reader.fileSize) bytes")
    }
    /// Reads a file whose names are `candidatos`, `candidato`, `SQ_CANDIDATO` and `own - 3` more, with stray text
    /// and a stray CDATA section beside the records; returns the items read and the error, if any.
    private func readOwnNames(_ own: Int) throws -> (items: Int, error: XMLReadError?) {
        let path = try HostileFileTests.temporaryPath("own\(own).xml")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        var text = "<candidatos>x<![CDATA[y]]>\n<candidato><SQ_CANDIDATO>1</SQ_CANDIDATO></candidato>\n<candidato>"
        for i in 0..<(own - 3) { text += "<C\(i)/>\(i % 1000 == 999 ? "\n" : "")" }
        text += "</candidato>\n</candidatos>\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let reader = try XMLRecordReader(path: path)
        var items = 0
        do {
            while try reader.next() != nil { items += 1 }
        } catch let error as XMLReadError {
            return (items, error)
        }
        return (items, nil)
    }

    /// The reader's own names for stray text (`#text`, `#cdata-section`) take no place among the file's names:
    /// before, a file with exactly the limit of its own names and stray text beside its records was refused as
    /// holding more than the limit (seventh session's review, D4).
    @Test("Exactly the limit of the file's own names is read, stray text or not; one more is refused")
    func theLimitCountsOnlyTheFilesOwnNames() throws {
        let limit = XMLNameTable.maximumDistinctNames
        let exact = try readOwnNames(limit)
        #expect(exact.error == nil, "\(exact.error.map { $0.message } ?? "")")
        #expect(exact.items == 2)
        let over = try readOwnNames(limit + 1)
        let error = try #require(over.error)
        #expect(error.message.contains("more than \(limit) distinct"), "\(error.message)")
        #expect(over.items == 1)
    }
}
