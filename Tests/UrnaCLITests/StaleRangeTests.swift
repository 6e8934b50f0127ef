import Foundation
import Testing

@testable import UrnaDownload

/// A resumed download whose server answers 206 for another version of the file than the partial one holds (its
/// ETag no longer the If-Range validator sent): the rest was appended anyway, the zip kept half of each version
/// (its member's CRC-32 failed at import) and the new ETag was recorded, so later runs got 304 and kept it.
@Suite struct StaleRangeTests {
    static func answer(ifRange: HTTPTransfer.Validator, headers: [String]) throws -> (
        accepted: Bool, context: TransferContext
    ) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("urna-range-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent(".x.zip.partial").path
        FileManager.default.createFile(atPath: file, contents: Data(repeating: 1, count: 100))
        var request = HTTPTransfer.Request(url: "http://127.0.0.1:9/x.zip", file: file)
        request.resumeFrom = 100
        request.ifRange = ifRange
        let context = TransferContext(request: request, progress: nil)
        var accepted = true
        for line in ["HTTP/1.1 206 Partial Content"] + headers + [""] {
            accepted = accepted && context.header(line + "\r\n")
        }
        context.close()
        return (accepted, context)
    }

    @Test("A 206 carrying another ETag than If-Range is refused before a byte is appended")
    func otherETagRefused() throws {
        let (accepted, context) = try Self.answer(
            ifRange: .etag("\"a\""), headers: ["Content-Range: bytes 100-199/200", "ETag: \"b\""])
        #expect(!accepted)
        #expect(context.staleRange)
        #expect(context.localError?.contains("another version") == true, "\(context.localError ?? "-")")
    }

    @Test("A 206 carrying another Last-Modified than If-Range is refused; the same validator is accepted")
    func lastModified() throws {
        let old = "Mon, 07 Dec 2026 10:00:00 GMT"
        let refused = try Self.answer(
            ifRange: .lastModified(old),
            headers: ["Content-Range: bytes 100-199/200", "Last-Modified: Tue, 08 Dec 2026 10:00:00 GMT"])
        #expect(!refused.accepted)
        #expect(refused.context.staleRange)
        let same = try Self.answer(
            ifRange: .etag("\"a\""), headers: ["Content-Range: bytes 100-199/200", "ETag: \"a\""])
        #expect(same.accepted, "\(same.context.localError ?? "-")")
        #expect(!same.context.staleRange)
        let unsaid = try Self.answer(ifRange: .lastModified(old), headers: ["Content-Range: bytes 100-199/200"])
        #expect(unsaid.accepted, "\(unsaid.context.localError ?? "-")")
    }

    @Test("An unquoted ETag sent as If-Range is compared with the answer's ETag, not taken for a date")
    func unquotedETag() throws {
        // A real server's `ETag: abc123`: every resume was refused as "another version" (its Last-Modified was
        // compared with the ETag sent), so the download failed after two tries.
        let same = try Self.answer(
            ifRange: .etag("abc123"),
            headers: [
                "Content-Range: bytes 100-199/200", "ETag: abc123", "Last-Modified: Mon, 07 Dec 2026 10:00:00 GMT",
            ])
        #expect(same.accepted, "\(same.context.localError ?? "-")")
        #expect(!same.context.staleRange)
        let other = try Self.answer(
            ifRange: .etag("abc123"),
            headers: [
                "Content-Range: bytes 100-199/200", "ETag: def456", "Last-Modified: Mon, 07 Dec 2026 10:00:00 GMT",
            ])
        #expect(!other.accepted)
        #expect(other.context.staleRange)
        #expect(other.context.localError?.contains("another version") == true, "\(other.context.localError ?? "-")")
        // A date that looks like a quoted string is still a date: compared with Last-Modified only.
        let date = try Self.answer(
            ifRange: .lastModified("\"odd\""), headers: ["Content-Range: bytes 100-199/200", "ETag: \"other\""])
        #expect(date.accepted, "\(date.context.localError ?? "-")")
    }
}
