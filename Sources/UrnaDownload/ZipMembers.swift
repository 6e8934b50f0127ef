import Foundation
import UrnaRecords

/// Picks a state's members out of a whole-year TSE zip and writes them as plain files.
///
/// TSE's zips hold one member per state (`consulta_cand_2018_MG.csv`) and one for the whole country
/// (`..._BRASIL.csv`); `--state MG` keeps `_MG` members, `--state BR` the national one.
public enum ZipMembers {
    /// The data members of the archive at `path` whose name ends in `_<UF>` (before the extension).
    /// `expectedPrefix` (TSE's `consulta_cand_2018_`): a chosen member whose base name does not start with it
    /// (in any letter case) is refused, with nothing extracted. Written under its own name into the user's
    /// folder, a hostile zip's `notes_MG.csv` replaced the user's own file of that name.
    public static func members(of path: String, states: [String], expectedPrefix: String? = nil) throws
        -> [ZipArchive.Entry]
    {
        let archive = try ZipArchive(path: path)
        let wanted = Set(
            states.flatMap { s -> [String] in
                let uf = s.uppercased()
                return uf == "BR" || uf == "BRASIL" ? ["BR", "BRASIL"] : [uf]
            })
        let chosen = archive.entries.filter { e in
            guard e.isDataFile else { return false }
            let base = (baseName(e) as NSString).deletingPathExtension
            guard let underscore = base.lastIndex(of: "_") else { return false }
            return wanted.contains(base[base.index(after: underscore)...].uppercased())
        }
        // Two members in different folders of the zip would be written to one file: the second would replace the
        // first without a word. So would two names that differ only in letter case or in how an accent is encoded
        // (NFC, NFD), on the file systems that do not tell those apart (macOS, Windows, FAT and exFAT drives).
        // (Swift compares strings by canonical equivalence: the names are compared by their bytes.)
        for e in chosen {
            try checkFileName(e)
            if let expectedPrefix, !baseName(e).lowercased().hasPrefix(expectedPrefix.lowercased()) {
                throw DownloadError.localFile(
                    path: path,
                    reason: "its member \(e.name) is not named like the zip's own files (\(expectedPrefix)<UF>.csv): "
                        + "written under that name it could replace a file of yours; nothing was extracted: unzip it "
                        + "yourself if you trust it")
            }
        }
        var seen: [String: String] = [:]
        for e in chosen {
            let key = baseName(e).precomposedStringWithCanonicalMapping.lowercased()
            if let first = seen[key] {
                let how =
                    (first.split(separator: "/").last.map(String.init) ?? first).utf8.elementsEqual(baseName(e).utf8)
                    ? "would both be written as \(baseName(e))"
                    : "have names that differ only in letter case or accents, which many file systems (macOS, "
                        + "Windows, FAT and exFAT drives) take for one name: one would replace the other"
                throw DownloadError.localFile(
                    path: path,
                    reason: "its members \(first) and \(e.name) \(how); nothing was "
                        + "extracted: unzip it yourself and import the members one by one")
            }
            seen[key] = e.name
        }
        return chosen
    }

    /// Refuses a member whose base name cannot be a file name here. A NUL cuts the name short for the system
    /// calls: a member named `x_MG.csv\0..._MG.csv` had the file `x_MG.csv` (another zip's member) deleted. No
    /// control character, leading dot or backslash makes a file name here.
    static func checkFileName(_ entry: ZipArchive.Entry) throws {
        let base = baseName(entry)
        guard !base.isEmpty, !base.hasPrefix("."), !base.contains("\\"),
            !base.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw DownloadError.localFile(path: entry.name, reason: "the member's name cannot be a file name here")
        }
    }

    /// The member's file name, without the zip's folders.
    static func baseName(_ e: ZipArchive.Entry) -> String {
        e.name.split(separator: "/").last.map(String.init) ?? e.name
    }

    /// The hidden temporary file `extract` fills for `entry` in `folder` before renaming it into place.
    public static func temporaryPath(of entry: ZipArchive.Entry, in folder: String) -> String {
        (folder as NSString).appendingPathComponent(".\(baseName(entry)).extracting")
    }

    /// Inflates `entry` of the archive at `path` into `folder` under the member's own base name, through a
    /// temporary file renamed at the end (the CRC-32 is checked before the rename). Returns the file's path.
    /// `stop` is asked between blocks: when it says yes (a signal), the temporary file is removed and
    /// `CancellationError` thrown, so an interrupted run leaves no half member behind.
    public static func extract(
        _ entry: ZipArchive.Entry, of path: String, into folder: String, stop: () -> Bool = { false }
    ) throws -> String {
        let archive = try ZipArchive(path: path)
        let base = baseName(entry)
        try checkFileName(entry)
        let target = (folder as NSString).appendingPathComponent(base)
        let temporary = temporaryPath(of: entry, in: folder)
        let source = try archive.open(entry)
        // The declared size bounds what the member can inflate to (the reader stops at it): a member the disk
        // cannot hold is refused before a byte is written (it filled the disk, then failed with Foundation's
        // "Error Domain=NSCocoaErrorDomain Code=640", naming no file).
        if let free = PartialFile.freeBytes(in: folder) {
            guard entry.uncompressedSize <= free else {
                throw DownloadError.localFile(
                    path: target,
                    reason: "the member is \(Downloader.mib(entry.uncompressedSize)) and the disk holding \(folder) "
                        + "has \(Downloader.mib(free)) free; free space there (or give --dir a folder on another disk) "
                        + "and run again (nothing was extracted)")
            }
        }
        let output: Int32
        do { output = try PartialFile.openForWriting(temporary, at: 0) } catch {
            throw DownloadError.localFile(path: temporary, reason: "\(error)")
        }
        do {
            defer { PartialFile.closeDescriptor(output) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            var written: Int64 = 0
            while true {
                if stop() { throw CancellationError() }
                let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
                if n == 0 { break }
                var offset = 0
                while offset < n {
                    let w = buffer.withUnsafeBytes { write(output, $0.baseAddress! + offset, n - offset) }
                    if w < 0 && errno == EINTR { continue }
                    guard w > 0 else {
                        let code = errno
                        let reason =
                            code == ENOSPC || code == EDQUOT
                            ? "the disk holding \(folder) filled up after \(Downloader.mib(written)); free space there "
                                + "(or give --dir a folder on another disk) and run again (nothing was extracted)"
                            : String(cString: strerror(code))
                        throw DownloadError.localFile(path: target, reason: reason)
                    }
                    offset += w
                    written += Int64(w)
                }
            }
            guard fsync(output) == 0 else {
                throw DownloadError.localFile(path: target, reason: String(cString: strerror(errno)))
            }
            // Only a file is replaced (rename(2), at once): a folder with the member's name was deleted whole.
            if let other = Downloader.notAFile(target) {
                throw DownloadError.localFile(
                    path: target, reason: "\(other) has the name of the member: urna never deletes it; move it away")
            }
            guard rename(temporary, target) == 0 else {
                throw DownloadError.localFile(path: target, reason: String(cString: strerror(errno)))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        return target
    }
}
