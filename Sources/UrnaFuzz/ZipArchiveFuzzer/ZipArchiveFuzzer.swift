// libFuzzer target for `ZipArchive` and `ZipEntryByteSource` (central directory, local headers, inflate,
// the zip-bomb checks). Built by Sources/UrnaFuzz/run-fuzzers.sh into the UrnaRecords module (it reaches
// internal API); not part of any SwiftPM target.
//
// Input: byte 0 = how many bytes each read asks for (1 + byte * 64), rest = the archive's bytes, written
// to a temporary file (the archive reads its file with pread, as the importer does).
//
// Invariants: errors are `RecordFileError` values; no member ever yields more bytes than its declared
// size (a member that inflates past it is refused at the first byte too many); a member read to its end
// without an error yielded exactly its declared size; at most `ZipBombCheck.maxEntries` members are listed.

#if canImport(Glibc)
    import Glibc
#endif

private let temporaryPath = "/tmp/urna-fuzz-zip-\(getpid()).zip"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZipArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let readSize = Int(input.byte()) * 64 + 1
    let archiveBytes = input.rest()
    let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    fuzzInvariant(fd >= 0, "cannot write \(temporaryPath)")
    _ = archiveBytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    do {
        let archive = try ZipArchive(path: temporaryPath, name: "fuzz.zip")
        fuzzInvariant(archive.entries.count <= ZipBombCheck.maxEntries, "\(archive.entries.count) entries listed")
        var buffer = [UInt8](repeating: 0, count: readSize)
        // Every member, not only data files: the checks must hold for all of them. Bounded work per input.
        for entry in archive.entries.prefix(64) {
            do {
                let member = try archive.open(entry)
                var produced: Int64 = 0
                while true {
                    let n = try buffer.withUnsafeMutableBytes { try member.read(into: $0) }
                    if n == 0 { break }
                    produced += Int64(n)
                    fuzzInvariant(
                        produced <= entry.uncompressedSize,
                        "\(entry.name) yielded \(produced) bytes, more than the \(entry.uncompressedSize) declared")
                }
                fuzzInvariant(
                    produced == entry.uncompressedSize,
                    "\(entry.name) ended after \(produced) of \(entry.uncompressedSize) bytes without an error")
            } catch is RecordFileError {
                // A refused member: what a hostile archive should get.
            }
        }
    } catch is RecordFileError {
        // The archive was refused with an error value.
    } catch {
        fuzzInvariant(false, "unexpected error type \(type(of: error)): \(error)")
    }
    return 0
}
