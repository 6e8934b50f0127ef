import CZlib

/// The uncompressed bytes of one zip member, produced as they are asked for.
///
/// Compressed bytes are read from the archive 256 KiB at a time and inflated straight into the
/// caller's buffer, so a member is never held whole in memory. At the end the byte count and
/// CRC-32 are checked against the central directory; a mismatch throws.
public final class ZipEntryByteSource: ByteSource {
    /// The member being read.
    public let entry: ZipArchive.Entry
    /// `archive.zip:member.csv`, for messages.
    public let displayName: String
    /// Compressed bytes read from the archive so far (for progress).
    public private(set) var compressedBytesRead: Int64 = 0
    /// Where the member's data starts in the archive.
    public let dataStart: Int64

    private let file: FileByteSource
    private var produced: Int64 = 0
    private var crc: UInt = 0
    private var finished = false
    private var stream: UnsafeMutablePointer<z_stream>?
    private var input: UnsafeMutablePointer<UInt8>?
    private static let inputCapacity = 256 * 1024

    init(file: FileByteSource, entry: ZipArchive.Entry, dataStart: Int64, displayName: String) throws {
        self.file = file
        self.entry = entry
        self.dataStart = dataStart
        self.displayName = displayName
        crc = CZlib.crc32(0, nil, 0)
        if entry.method == 8 {
            // zlib keeps a pointer back to its z_stream, so the stream must not move: heap-allocate it.
            let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let status = urna_inflate_init_raw(stream)
            guard status == Z_OK else {
                stream.deinitialize(count: 1)
                stream.deallocate()
                throw RecordFileError.zip(
                    file: displayName, reason: "zlib could not start inflating (status \(status))")
            }
            self.stream = stream
            input = .allocate(capacity: Self.inputCapacity)
        }
    }

    deinit {
        if let stream {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        input?.deallocate()
    }

    /// Fills `buffer` with the next uncompressed bytes; 0 at the end of the member.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, let out = buffer.baseAddress, buffer.count > 0 else { return 0 }
        // Inflate no further than one byte past the size the archive declares: a member that lies about its
        // size (a zip bomb declaring 1,000 bytes) is refused at that byte instead of after gigabytes.
        let allowed = Int(min(Int64(buffer.count), max(entry.uncompressedSize - produced, 0) + 1))
        let n =
            try stream == nil
            ? readStored(into: buffer) : inflate(into: out.assumingMemoryBound(to: UInt8.self), allowed)
        if Int64(n) > entry.uncompressedSize - produced {
            finished = true
            throw RecordFileError.zip(
                file: displayName,
                reason: "the member inflates past the \(entry.uncompressedSize) bytes the archive declares for it "
                    + "(a damaged archive or a zip bomb); nothing more of it was read")
        }
        if n > 0 {
            crc = CZlib.crc32(crc, out.assumingMemoryBound(to: UInt8.self), UInt32(n))
            produced += Int64(n)
        }
        if finished { try verify() }
        return n
    }

    private func readStored(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let wanted = Int(min(Int64(buffer.count), entry.compressedSize - compressedBytesRead))
        if wanted == 0 {
            finished = true
            return 0
        }
        let n = try file.read(
            at: dataStart + compressedBytesRead, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
        guard n == wanted else { throw truncated() }
        compressedBytesRead += Int64(n)
        if compressedBytesRead == entry.compressedSize { finished = true }
        return n
    }

    private func inflate(into out: UnsafeMutablePointer<UInt8>, _ count: Int) throws -> Int {
        guard let stream, let input else { return 0 }
        stream.pointee.next_out = out
        stream.pointee.avail_out = UInt32(min(count, Int(UInt32.max)))
        while true {
            if stream.pointee.avail_in == 0 && compressedBytesRead < entry.compressedSize {
                let wanted = Int(min(Int64(Self.inputCapacity), entry.compressedSize - compressedBytesRead))
                let n = try file.read(
                    at: dataStart + compressedBytesRead,
                    into: UnsafeMutableRawBufferPointer(start: input, count: wanted))
                guard n == wanted else { throw truncated() }
                compressedBytesRead += Int64(n)
                stream.pointee.next_in = input
                stream.pointee.avail_in = UInt32(n)
            }
            let before = stream.pointee.avail_out
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let made = Int(before - stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                finished = true
                return count - Int(stream.pointee.avail_out)
            case Z_OK, Z_BUF_ERROR:
                if stream.pointee.avail_out == 0 { return count }
                if made == 0 && stream.pointee.avail_in == 0 && compressedBytesRead >= entry.compressedSize {
                    throw truncated()
                }
                let written = count - Int(stream.pointee.avail_out)
                if written > 0 && stream.pointee.avail_in == 0 { return written }
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "status \(status)"
                throw RecordFileError.zip(
                    file: displayName, reason: "the member's compressed data is damaged (zlib: \(message))")
            }
        }
    }

    private func verify() throws {
        guard produced == entry.uncompressedSize else {
            throw RecordFileError.zip(
                file: displayName,
                reason:
                    "the member is damaged: it inflates to \(produced) bytes, the archive says \(entry.uncompressedSize)"
            )
        }
        guard UInt32(truncatingIfNeeded: crc) == entry.crc32 else {
            throw RecordFileError.zip(
                file: displayName, reason: "the member is damaged: its CRC-32 does not match the archive's")
        }
    }

    private func truncated() -> RecordFileError {
        .zip(
            file: displayName,
            reason: "the member's compressed data ends too early; the archive is truncated or damaged")
    }
}
