import Foundation
import Testing

@testable import UrnaRecords

/// A zip whose download stopped has its start but not its table of contents (which is at the end): it was refused
/// as "damaged or not a zip archive: no end-of-central-directory record", which said nothing of what to do
/// (seventh real-files trial, the national 2018 zip cut in half). Now the refusal says it was cut short.
@Suite struct ZipCutShortTests {
    typealias S = RecordsTestSupport

    static func refusal(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = try S.temporaryFile(name, bytes)
        do {
            _ = try TSEFileReader(path: path)
            return ""
        } catch let error as RecordFileError {
            return "\(error)"
        }
    }

    @Test func aZipCutShortSaysSo() throws {
        let whole = Array(try Data(contentsOf: URL(fileURLWithPath: S.fixture("zip_deflated_2016_AC.zip"))))
        for cut in [100, whole.count / 2, whole.count - 23] {
            let message = try Self.refusal(Array(whole.prefix(cut)), "cut\(cut).zip")
            #expect(message.contains("ends before its table of contents"), "\(message)")
            #expect(message.contains("cut short (a download or copy that stopped); download it again"))
        }
    }

    @Test func somethingElseNamedZipIsNotCalledCutShort() throws {
        let message = try Self.refusal(Array("not a zip at all, only text".utf8), "other.zip")
        #expect(!message.contains("cut short"), "\(message)")
    }
}
