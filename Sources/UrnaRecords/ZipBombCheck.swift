/// Refusals that keep a hostile archive from costing more than reading its honest members would: too many
/// members, members that share or overlap their bytes (one 50 MB member listed 2,000 times), and members
/// whose declared sizes promise a compression ratio no TSE file comes near. A member inflating past its
/// declared size is stopped by `ZipEntryByteSource` at the first byte too many.
enum ZipBombCheck {
    /// Most members an archive may list. TSE's zips hold about 30 (one per state, BRASIL, a read-me).
    static let maxEntries = 10_000
    /// Most uncompressed bytes per compressed byte a member may declare. TSE's CSV files deflate about
    /// 6-12 to 1; deflate itself cannot pass 1,032 to 1, so anything above this is a bomb or damage.
    static let maxRatio: Int64 = 200
    /// Members smaller than this are never refused for their ratio (a small, very repetitive file).
    static let ratioFloor: Int64 = 16 << 20

    static func checkCount(_ count: Int, archive: String) throws {
        guard count <= maxEntries else {
            throw RecordFileError.zip(
                file: archive,
                reason: "the archive lists \(count) members, more than the \(maxEntries) this reader opens "
                    + "(TSE's hold about 30); unzip it and import the .csv files")
        }
    }

    /// Most bytes one central-directory entry can take: 46 fixed, then a name, an extra field and a comment
    /// of up to 65,535 bytes each.
    static let maxEntryBytes: Int64 = 46 + 3 * 65_535
    /// Most bytes of central directory read into memory, whatever the count: TSE's take about 100 bytes a
    /// member, and 10,000 members with long names and extras stay far below it.
    static let maxDirectoryBytes: Int64 = 64 << 20

    static func checkDirectorySize(_ size: Int64, count: Int, archive: String) throws {
        guard size <= min(Int64(count) * maxEntryBytes, maxDirectoryBytes) else {
            throw RecordFileError.zip(
                file: archive,
                reason: "the zip archive is damaged or not a zip archive: its central directory claims \(size) bytes "
                    + "for \(count) member\(count == 1 ? "" : "s"), more than \(count == 1 ? "one" : "that many") "
                    + "can take (or over \(maxDirectoryBytes >> 20) MiB); it was not read")
        }
    }

    static func checkRatio(_ entry: ZipArchive.Entry, member: String) throws {
        guard entry.method == 8, entry.uncompressedSize > ratioFloor else { return }
        guard entry.uncompressedSize <= max(entry.compressedSize, 1) * maxRatio else {
            throw RecordFileError.zip(
                file: member,
                reason: "the member declares \(entry.uncompressedSize) bytes from \(entry.compressedSize) compressed, "
                    + "a ratio over \(maxRatio) to 1 that no TSE file has (a zip bomb or a damaged archive); "
                    + "it was not inflated")
        }
    }

    /// Members must not share bytes: each one's local header and data end before the next one starts and
    /// before the central directory. (The local header's name may be longer than the central one's; the
    /// 30 fixed bytes and the data are what is counted here, the rest is checked when a member is opened.)
    static func checkOverlaps(_ entries: [ZipArchive.Entry], directoryOffset: Int64, archive: String) throws {
        let sorted = entries.enumerated().sorted { $0.element.localHeaderOffset < $1.element.localHeaderOffset }
        for (k, item) in sorted.enumerated() {
            let e = item.element
            let end = e.localHeaderOffset + 30 + e.compressedSize
            let limit = k + 1 < sorted.count ? sorted[k + 1].element.localHeaderOffset : directoryOffset
            if end > limit {
                let other = k + 1 < sorted.count ? "the member \(sorted[k + 1].element.name)" : "the central directory"
                throw RecordFileError.zip(
                    file: archive,
                    reason: "the members overlap: \(e.name) runs into \(other) (archives that reuse one member's "
                        + "bytes many times are zip bombs); unzip it with a tool you trust, or ask for a clean copy")
            }
        }
    }
}
