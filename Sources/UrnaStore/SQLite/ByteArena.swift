/// Bytes that must outlive a call by a little: copied into chunks that are reused after `reset`.
package final class ByteArena {
    private let chunkSize: Int
    private let state:
        UnsafeMutablePointer<(chunks: [(base: UnsafeMutableRawPointer, size: Int)], chunk: Int, offset: Int)>
    /// Where empty values point (SQLite wants a non-null pointer for an empty text).
    private let empty: UnsafeMutableRawPointer = .allocate(byteCount: 1, alignment: 1)

    /// `chunkSize`: bytes per chunk (a larger value gets a chunk of its own size).
    package init(chunkSize: Int = 1 << 16) {
        self.chunkSize = chunkSize
        empty.storeBytes(of: 0, as: UInt8.self)
        state = .allocate(capacity: 1)
        state.initialize(to: ([], 0, 0))
    }

    deinit {
        for c in state.pointee.chunks { c.base.deallocate() }
        state.deinitialize(count: 1)
        state.deallocate()
        empty.deallocate()
    }

    package func reset() {
        state.pointee.chunk = 0
        state.pointee.offset = 0
    }

    /// A copy of `bytes`, valid until the next `reset`.
    package func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeRawPointer {
        let n = bytes.count
        guard n > 0, let source = bytes.baseAddress else { return UnsafeRawPointer(empty) }
        var chunk = state.pointee.chunk
        var offset = state.pointee.offset
        while chunk < state.pointee.chunks.count && offset + n > state.pointee.chunks[chunk].size {
            chunk += 1
            offset = 0
        }
        if chunk == state.pointee.chunks.count {
            let size = max(chunkSize, n)
            state.pointee.chunks.append((UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8), size))
        }
        let target = state.pointee.chunks[chunk].base + offset
        target.copyMemory(from: source, byteCount: n)
        state.pointee.chunk = chunk
        state.pointee.offset = offset + n
        return UnsafeRawPointer(target)
    }
}
