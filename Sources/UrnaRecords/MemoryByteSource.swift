/// Bytes already in memory, served in chunks like a file (tests, small inputs, generated data).
public final class MemoryByteSource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0
    private let maximumChunk: Int

    /// Serves `bytes`; `maximumChunk` caps each read, to exercise chunk boundaries in tests.
    public init(_ bytes: [UInt8], maximumChunk: Int = .max) {
        self.bytes = bytes
        self.maximumChunk = max(1, maximumChunk)
    }

    /// Copies the next bytes.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let n = min(buffer.count, bytes.count - offset, maximumChunk)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { all in
            buffer.baseAddress!.copyMemory(from: all.baseAddress! + offset, byteCount: n)
        }
        offset += n
        return n
    }
}
