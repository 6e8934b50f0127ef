/// A .zip archive read through its central directory, members opened one at a time as byte streams.
///
/// Supports the stored (0) and deflate (8) methods, which is what TSE and common zip tools write.
/// Not supported, each with a clear `RecordFileError.zip` rather than a crash: Zip64 archives
/// (over 4 GiB or 65,535 members), archives split over several files, encrypted members, and other
/// compression methods.
///
/// ```swift
/// let archive = try ZipArchive(path: "consulta_cand_2018.zip")
/// for entry in archive.entries where entry.isDataFile {
///     let csv = try CSVReader(source: try archive.open(entry), name: entry.name)
/// }
/// ```
public final class ZipArchive {
    /// One member as the central directory describes it.
    public struct Entry: Sendable, Equatable {
        /// Path inside the archive.
        public let name: String
        /// 0 stored, 8 deflate.
        public let method: UInt16
        /// General-purpose flags (bit 0: encrypted; bit 3: sizes in a data descriptor; bit 11: UTF-8 name).
        public let flags: UInt16
        /// CRC-32 of the uncompressed bytes.
        public let crc32: UInt32
        /// Size in the archive.
        public let compressedSize: Int64
        /// Size once inflated.
        public let uncompressedSize: Int64
        /// Where the member's local header starts.
        public let localHeaderOffset: Int64

        /// True for a folder entry.
        public var isDirectory: Bool { name.hasSuffix("/") }

        /// True for a member worth reading as data: a `.csv` or `.txt` file that is not a read-me
        /// (`LEIAME*`) nor macOS metadata (`__MACOSX/`). PDFs and everything else are skipped.
        public var isDataFile: Bool {
            if isDirectory || name.hasPrefix("__MACOSX/") { return false }
            let base = (name.split(separator: "/").last.map(String.init) ?? name).lowercased()
            if base.hasPrefix("leiame") || base.hasPrefix("readme") || base.hasPrefix(".") { return false }
            return base.hasSuffix(".csv") || base.hasSuffix(".txt")
        }
    }

    /// The name used in messages and locations.
    public let name: String
    /// Every member, in central-directory order.
    public let entries: [Entry]
    /// Size of the archive in bytes.
    public var size: Int64 { file.size }
    let file: FileByteSource

    /// Opens an archive and reads its central directory; `name` defaults to the file name.
    public convenience init(path: String, name: String? = nil) throws {
        try self.init(file: FileByteSource(path: path), name: name ?? CSVReader.fileName(of: path))
    }

    init(file: FileByteSource, name: String) throws {
        self.file = file
        self.name = name
        self.entries = try ZipArchive.readCentralDirectory(file, name: name)
    }

    /// True when the file starts like a zip archive ("PK\u{3}\u{4}", or "PK\u{5}\u{6}" when empty).
    static func looksLikeZip(_ file: FileByteSource) throws -> Bool {
        var magic = [UInt8](repeating: 0, count: 4)
        let n = try magic.withUnsafeMutableBytes { try file.read(at: 0, into: $0) }
        guard n == 4, magic[0] == 0x50, magic[1] == 0x4B else { return false }
        return (magic[2] == 3 && magic[3] == 4) || (magic[2] == 5 && magic[3] == 6)
    }

    /// A stream of the member's uncompressed bytes, inflated chunk by chunk and checked against its CRC-32.
    public func open(_ entry: Entry) throws -> ZipEntryByteSource {
        let member = "\(name):\(CSVReader.shownName(entry.name))"
        if entry.flags & 1 != 0 {
            throw RecordFileError.zip(file: member, reason: "the member is encrypted; unzip it with its password first")
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw RecordFileError.zip(
                file: member,
                reason: "the member uses compression method \(entry.method), which this reader does not support "
                    + "(only stored and deflate); unzip it, or re-zip it with deflate")
        }
        var header = [UInt8](repeating: 0, count: 30)
        let got = try header.withUnsafeMutableBytes { try file.read(at: entry.localHeaderOffset, into: $0) }
        guard got == 30, Self.uint32(header, 0) == 0x0403_4B50 else {
            throw RecordFileError.zip(
                file: member, reason: "the archive is damaged: no local header where the central directory points")
        }
        let dataStart = entry.localHeaderOffset + 30 + Int64(Self.uint16(header, 26)) + Int64(Self.uint16(header, 28))
        guard dataStart + entry.compressedSize <= file.size else {
            throw RecordFileError.zip(
                file: member, reason: "the archive is truncated: the member's data runs past the end of the file")
        }
        if entry.method == 0 && entry.compressedSize != entry.uncompressedSize {
            throw RecordFileError.zip(file: member, reason: "the archive is damaged: a stored member's sizes disagree")
        }
        try ZipBombCheck.checkRatio(entry, member: member)
        return try ZipEntryByteSource(file: file, entry: entry, dataStart: dataStart, displayName: member)
    }

    // MARK: - Central directory

    private static func readCentralDirectory(_ file: FileByteSource, name: String) throws -> [Entry] {
        func damaged(_ why: String) -> RecordFileError {
            .zip(file: name, reason: "the zip archive is damaged or not a zip archive: \(why)")
        }
        let zip64 = RecordFileError.zip(
            file: name,
            reason: "this is a Zip64 archive (over 4 GiB or 65,535 members), which this reader does not support; "
                + "unzip it and import the .csv files")
        // The end record is 22 bytes plus a comment of up to 65,535 bytes, at the very end.
        let tailLength = Int(min(file.size, 22 + 65_535))
        guard tailLength >= 22 else { throw damaged("it is shorter than the smallest zip archive") }
        var tail = [UInt8](repeating: 0, count: tailLength)
        let got = try tail.withUnsafeMutableBytes { try file.read(at: file.size - Int64(tailLength), into: $0) }
        guard got == tailLength else { throw damaged("it could not be read to its end") }
        var endRecord = -1
        var i = tailLength - 22
        while i >= 0 {
            if tail[i] == 0x50 && uint32(tail, i) == 0x0605_4B50 {
                endRecord = i
                break
            }
            i -= 1
        }
        guard endRecord >= 0 else {
            var head = [UInt8](repeating: 0, count: 4)
            let read = try head.withUnsafeMutableBytes { try file.read(at: 0, into: $0) }
            if read == 4 && uint32(head, 0) == 0x0403_4B50 {
                // A zip's table of contents is at its end: a download that stopped leaves a zip's start without
                // it, which "damaged or not a zip archive" did not say (seventh real-files trial).
                throw RecordFileError.zip(
                    file: name,
                    reason: "the zip archive begins as one but ends before its table of contents (no "
                        + "end-of-central-directory record): it was cut short (a download or copy that stopped); "
                        + "download it again")
            }
            throw damaged("no end-of-central-directory record")
        }
        if endRecord >= 20 && uint32(tail, endRecord - 20) == 0x0706_4B50 { throw zip64 }
        let disk = uint16(tail, endRecord + 4)
        let directoryDisk = uint16(tail, endRecord + 6)
        let count = Int(uint16(tail, endRecord + 10))
        let directorySize = Int64(uint32(tail, endRecord + 12))
        let directoryOffset = Int64(uint32(tail, endRecord + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF { throw zip64 }
        guard disk == 0 && directoryDisk == 0 else {
            throw RecordFileError.zip(
                file: name,
                reason:
                    "the archive is split over several files, which this reader does not support; join or unzip it first"
            )
        }
        let endOffset = file.size - Int64(tailLength) + Int64(endRecord)
        guard directoryOffset + directorySize <= endOffset else {
            throw damaged("the central directory lies outside the file")
        }
        // Checked before the directory is read into memory: a 3 GiB sparse file (8 KB on disk) whose end record
        // claimed a 3 GiB directory for one member had 3 GiB allocated and read (27 s) before it was refused.
        try ZipBombCheck.checkCount(count, archive: name)
        try ZipBombCheck.checkDirectorySize(directorySize, count: count, archive: name)
        var directory = [UInt8](repeating: 0, count: Int(directorySize))
        let read = try directory.withUnsafeMutableBytes { try file.read(at: directoryOffset, into: $0) }
        guard read == directory.count else { throw damaged("the central directory could not be read") }

        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var p = 0
        for index in 0..<count {
            guard p + 46 <= directory.count, uint32(directory, p) == 0x0201_4B50 else {
                throw damaged("central directory entry \(index + 1) of \(count) is missing or cut short")
            }
            let flags = uint16(directory, p + 8)
            let method = uint16(directory, p + 10)
            let crc = uint32(directory, p + 16)
            let compressed = uint32(directory, p + 20)
            let uncompressed = uint32(directory, p + 24)
            let nameLength = Int(uint16(directory, p + 28))
            let extraLength = Int(uint16(directory, p + 30))
            let commentLength = Int(uint16(directory, p + 32))
            let offset = uint32(directory, p + 42)
            guard p + 46 + nameLength + extraLength + commentLength <= directory.count else {
                throw damaged("central directory entry \(index + 1) of \(count) is cut short")
            }
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || offset == 0xFFFF_FFFF { throw zip64 }
            let nameBytes = directory[(p + 46)..<(p + 46 + nameLength)]
            entries.append(
                Entry(
                    name: decodeName(nameBytes), method: method, flags: flags, crc32: crc,
                    compressedSize: Int64(compressed), uncompressedSize: Int64(uncompressed),
                    localHeaderOffset: Int64(offset)))
            p += 46 + nameLength + extraLength + commentLength
        }
        try ZipBombCheck.checkOverlaps(entries, directoryOffset: directoryOffset, archive: name)
        return entries
    }

    /// Member names are UTF-8 when flagged or valid as such; otherwise read as Latin-1 (close to the
    /// CP437 the format names, and exact for the ASCII names TSE uses).
    private static func decodeName(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            let encoding: TextEncoding = TextEncoding.firstInvalidUTF8(in: buffer) == nil ? .utf8 : .latin1
            return encoding.decode(buffer)
        }
    }

    static func uint16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) | UInt16(b[i + 1]) << 8 }

    static func uint32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }
}
