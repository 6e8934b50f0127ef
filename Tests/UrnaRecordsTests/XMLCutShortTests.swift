import Foundation
import Testing

@testable import UrnaRecords

/// An XML dump cut short (a download or copy that stopped) was refused with libxml2's words alone ("Couldn't find
/// end of Start Tag VR_BEM_"), which read as a typo to look for (seventh real-files trial, an export of 2016 AC
/// cut in half). The refusal now says the file ends inside an element and what to do; other errors keep their text.
@Suite struct XMLCutShortTests {
    static func error(reading bytes: [UInt8], chunk: Int) throws -> XMLReadError? {
        let reader = try XMLRecordReader(
            source: MemoryByteSource(bytes, maximumChunk: chunk), name: "cut.xml", size: Int64(bytes.count),
            canonicalName: { $0 })
        do {
            while try reader.next() != nil {}
            return nil
        } catch let error as XMLReadError {
            return error
        }
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let path = try #require(Bundle.module.path(forResource: name, ofType: nil, inDirectory: "Fixtures/xml"))
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(arguments: [Int.max, 64])
    func aDumpCutShortSaysSo(chunk: Int) throws {
        let whole = try Self.fixture("candidates-nested.xml")
        for cut in [whole.count / 3, whole.count / 2, whole.count - 20] {
            let error = try #require(try Self.error(reading: Array(whole.prefix(cut)), chunk: chunk), "cut at \(cut)")
            #expect(error.message.contains("the file ends inside an element that is never closed"), "\(error)")
            #expect(error.message.contains("download or export it again"))
        }
    }

    @Test func otherErrorsKeepTheirWords() throws {
        let error = try #require(try Self.error(reading: Self.fixture("malformed.xml"), chunk: .max))
        #expect(!error.message.contains("never closed"), "\(error)")
    }
}
