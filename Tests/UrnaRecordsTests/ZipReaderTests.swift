import Foundation
import Testing

@testable import UrnaRecords

/// Fixture zips were made with /usr/bin/zip (-0 stored, -9 deflated) from the real samples plus a
/// fake leiame.pdf; zip64_end_records.zip is a one-member zip whose end records were rewritten the
/// Zip64 way with Python.
@Suite("Zip archives")
struct ZipReaderTests {
    typealias S = RecordsTestSupport

    @Test("a stored zip: the PDF is skipped, the CSV member reads like the plain file")
    func storedZip() throws {
        let (reader, records, rejects) = try S.readAll(S.fixture("zip_stored_cand_2018.zip"))
        #expect(reader.isZip)
        #expect(reader.dataMembers == ["consulta_cand_2018_BRASIL.58col.csv"])
        #expect(reader.skippedMembers == ["leiame.pdf"])
        #expect(reader.layoutName == "consulta_cand 58 columns (2014/2018)")
        #expect(records.count == 56)
        #expect(rejects.isEmpty)
        let plain = try S.readAll(S.fixture("consulta_cand_2018_BRASIL.58col.csv")).records
        #expect(records.map(\.values) == plain.map(\.values))
        #expect(
            records[0].location
                == SourceLocation(file: "zip_stored_cand_2018.zip:consulta_cand_2018_BRASIL.58col.csv", line: 2))
        #expect(reader.bytesRead == reader.fileSize)
    }

    @Test("a deflated zip with two data members reads each in turn, each with its own layout and kind")
    func deflatedZipTwoMembers() throws {
        var options = CSVOptions()
        options.chunkSize = 4096  // many reads per member: inflate output crosses chunk boundaries
        let reader = try TSEFileReader(path: S.fixture("zip_deflated_2016_AC.zip"), options: options)
        #expect(reader.layoutName == "consulta_cand original 46 columns (2014/2016, no header)")
        #expect(reader.skippedMembers == ["leiame.pdf"])
        var byFile: [String: Int] = [:]
        var kinds: [String: RecordKind] = [:]
        var lastLine: [String: Int] = [:]
        var progress: [Int64] = []
        while let item = try reader.next() {
            guard case .record(let record) = item else {
                Issue.record("unexpected reject \(item)")
                continue
            }
            byFile[record.location.file, default: 0] += 1
            kinds[record.location.file] = record.kind
            lastLine[record.location.file] = record.location.line
            progress.append(reader.bytesRead)
        }
        let cand = "zip_deflated_2016_AC.zip:consulta_cand_2016_AC.original-noheader.txt"
        let legend = "zip_deflated_2016_AC.zip:consulta_legendas_2016_AC.original-noheader.txt"
        #expect(byFile == [cand: 190, legend: 47])
        #expect(kinds == [cand: .candidate, legend: .coalition])
        #expect(lastLine == [cand: 190, legend: 47])
        #expect(reader.layoutName == "consulta_legendas original 18 columns (2016, no header)")
        #expect(progress == progress.sorted(), "progress never goes backwards")
        #expect(reader.bytesRead == reader.fileSize)
    }

    @Test("the deflated member's values equal the plain file's")
    func deflatedValues() throws {
        let zipped = try S.readAll(S.fixture("zip_deflated_2016_AC.zip")).records.filter { $0.kind == .candidate }
        let plain = try S.readAll(S.fixture("consulta_cand_2016_AC.original-noheader.txt")).records
        #expect(zipped.map(\.values) == plain.map(\.values))
        #expect(zipped.map(\.rawBytes) == plain.map(\.rawBytes))
    }

    @Test("the central directory lists every member with its method and sizes")
    func centralDirectory() throws {
        let archive = try ZipArchive(path: S.fixture("zip_deflated_2016_AC.zip"))
        #expect(
            archive.entries.map(\.name) == [
                "consulta_cand_2016_AC.original-noheader.txt", "leiame.pdf",
                "consulta_legendas_2016_AC.original-noheader.txt",
            ])
        #expect(archive.entries.map(\.method) == [8, 0, 8])
        #expect(archive.entries[0].uncompressedSize == 104_242)
        #expect(archive.entries.map(\.isDataFile) == [true, false, true])
    }

    @Test("a member that is not a TSE file stops reading with an error naming archive:member")
    func unknownMember() throws {
        let reader = try TSEFileReader(path: S.fixture("zip_with_unknown_member.zip"))
        var records = 0
        #expect {
            while let item = try reader.next() { if case .record = item { records += 1 } }
        } throws: { error in
            guard case .unrecognized(let file, _, _)? = error as? RecordFileError else { return false }
            return file == "zip_with_unknown_member.zip:notes.csv"
        }
        #expect(records == 47, "the good member before it was read in full")
    }

    @Test("a for-in loop reports a failing member as a final reject and keeps the error")
    func sequenceFailure() throws {
        let reader = try TSEFileReader(path: S.fixture("zip_with_unknown_member.zip"))
        var items: [RecordOrReject] = []
        for item in reader { items.append(item) }
        #expect(items.count == 48)
        guard case .reject(let last)? = items.last else {
            Issue.record("expected a final reject")
            return
        }
        #expect(last.reason.hasPrefix("reading stopped:"))
        #expect(reader.failure is RecordFileError)
    }

    @Test("a Zip64 archive is refused with a clear error, not a crash")
    func zip64() throws {
        #expect {
            _ = try TSEFileReader(path: S.fixture("zip64_end_records.zip"))
        } throws: { error in
            guard case .zip(let file, let reason)? = error as? RecordFileError else { return false }
            return file == "zip64_end_records.zip" && reason.contains("Zip64") && reason.contains("unzip it")
        }
    }

    @Test("a truncated or corrupted zip is an error, not a crash")
    func damagedZip() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: S.fixture("zip_deflated_2016_AC.zip"))))
        let cut = try S.temporaryFile("cut.zip", Array(bytes.prefix(bytes.count / 2)))
        #expect(throws: RecordFileError.self) { _ = try TSEFileReader(path: cut) }

        var flipped = bytes
        for i in 2000..<2100 { flipped[i] ^= 0x5A }  // inside the first member's deflate stream
        let corrupt = try S.temporaryFile("corrupt.zip", flipped)
        #expect(throws: RecordFileError.self) {
            let reader = try TSEFileReader(path: corrupt)
            while try reader.next() != nil {}
        }
    }

    @Test("a zip with no data member is refused")
    func noDataMember() throws {
        // Built in memory: the stored zip minus its CSV member is not needed; a zip of just the PDF suffices.
        let source = try ZipArchive(path: S.fixture("zip_stored_cand_2018.zip"))
        #expect(source.entries.filter(\.isDataFile).count == 1)
        let onlyPDF = try S.temporaryFile(
            "only.zip", Self.storedZip(name: "LEIAME.pdf", content: Array("%PDF-1.4".utf8)))
        #expect {
            _ = try TSEFileReader(path: onlyPDF)
        } throws: { error in
            guard case .zip(_, let reason)? = error as? RecordFileError else { return false }
            return reason.contains("no data member")
        }
    }

    @Test("a zipped XML dump is said to be one: urna reads XML as a file, not inside a zip")
    func zippedXMLIsNamed() throws {
        let xml = Array("<?xml version=\"1.0\"?><candidatos></candidatos>".utf8)
        let zip = try S.temporaryFile("candidatos.zip", Self.storedZip(name: "candidatos_2004.xml", content: xml))
        #expect {
            _ = try TSEFileReader(path: zip)
        } throws: { error in
            guard case .zip(_, let reason)? = error as? RecordFileError else { return false }
            // It said only "the archive has no data member (.csv or .txt); nothing to import" (sixth trial).
            return reason.contains("no data member")
                && reason.hasSuffix(
                    "but XML (candidatos_2004.xml): urna reads an XML dump as a file, not inside a zip; extract it and "
                        + "import the .xml")
        }
    }

    /// A minimal one-member stored zip (local header, data, central directory, end record).
    static func storedZip(name: String, content: [UInt8]) -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in content {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let nameBytes = Array(name.utf8)
        let size = le32(UInt32(content.count))
        let local =
            le32(0x0403_4B50) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc) + size + size
            + le16(nameBytes.count) + le16(0) + nameBytes + content
        let central =
            le32(0x0201_4B50) + le16(20) + le16(20) + le16(0) + le16(0) + le16(0) + le16(0) + le32(crc)
            + size + size + le16(nameBytes.count) + le16(0) + le16(0) + le16(0) + le16(0) + le32(0) + le32(0)
            + nameBytes
        let end =
            le32(0x0605_4B50) + le16(0) + le16(0) + le16(1) + le16(1) + le32(UInt32(central.count))
            + le32(UInt32(local.count)) + le16(0)
        return local + central + end
    }

    @Test("an end record claiming a central directory of 1 GiB for one member is refused before it is read")
    func hugeClaimedDirectory() throws {
        // A sparse file: 1 GiB long, a few KB on disk. The directory was read into memory whole (1 GiB here;
        // 3 GiB and 27 s for a 3 GiB file) before its first entry was found missing.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sparse-\(UUID().uuidString).zip").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size: UInt64 = 1 << 30
        FileManager.default.createFile(atPath: path, contents: Data("PK\u{3}\u{4}".utf8))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: size)
        try handle.seek(toOffset: size)
        var end = Data([0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0])
        for v in [UInt32(size - 4), 4] { withUnsafeBytes(of: v.littleEndian) { end.append(contentsOf: $0) } }
        end.append(contentsOf: [0, 0])
        try handle.write(contentsOf: end)
        try handle.close()
        #expect {
            _ = try ZipArchive(path: path)
        } throws: { error in
            "\(error)".contains("its central directory claims 1073741820 bytes for 1 member, more than one can take")
        }
    }
}
