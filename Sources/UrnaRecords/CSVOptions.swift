/// How a `CSVReader` splits bytes into rows and fields, and the limits that keep its memory bounded.
///
/// The defaults fit TSE files: `;` separator, `"` quote, 16 MiB per field, 64 MiB per row.
///
/// ```swift
/// var options = CSVOptions()
/// options.maxFieldBytes = 1 << 20  // reject rows with a field over 1 MiB
/// ```
public struct CSVOptions: Sendable, Equatable {
    /// What to do with a NUL byte (0x00) inside a row.
    public enum NULBytePolicy: Sendable, Equatable {
        /// The row becomes a `MalformedRow` (the default: NUL in a TSE text file means corruption,
        /// a UTF-16 file read as bytes, or binary junk, and SQLite text would be cut at it).
        case reject
        /// NUL is an ordinary character (decodes to U+0000).
        case keep
    }

    /// Field separator byte; must be ASCII and differ from the quote and from CR/LF.
    public var separator: UInt8 = UInt8(ascii: ";")
    /// Quote byte; inside a quoted field it is escaped by doubling it.
    public var quote: UInt8 = UInt8(ascii: "\"")
    /// Longest field accepted, in bytes as stored in the file. A longer field makes its row a reject,
    /// and the reader stops buffering it once the limit is passed.
    public var maxFieldBytes: Int = 16 << 20
    /// Longest row accepted, in bytes; bounds the reader's buffer (it never grows much past this).
    /// Usually hit by a quote that never closes and swallows the lines after it.
    public var maxRecordBytes: Int = 64 << 20
    /// Most fields accepted in one row.
    public var maxFieldCount: Int = 4096
    /// Bytes asked of the source per read (the buffer's starting size).
    public var chunkSize: Int = 1 << 20
    /// What to do with NUL bytes.
    public var nulBytes: NULBytePolicy = .reject

    /// The defaults.
    public init() {}

    /// The options with limits forced into the range the reader supports (row offsets are 32-bit).
    var clamped: CSVOptions {
        var o = self
        o.chunkSize = min(max(o.chunkSize, 4096), 64 << 20)
        o.maxRecordBytes = min(max(o.maxRecordBytes, 1), 1 << 30)
        o.maxFieldBytes = min(max(o.maxFieldBytes, 0), o.maxRecordBytes)
        o.maxFieldCount = max(o.maxFieldCount, 1)
        return o
    }
}
