/// Something that hands out bytes in order, a chunk at a time (a file, a zip member, memory).
///
/// Readers own one buffer and ask the source to fill part of it, so memory stays flat whatever the
/// size of the input.
public protocol ByteSource: AnyObject {
    /// Copies up to `buffer.count` next bytes into `buffer`; returns how many, 0 only at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}
