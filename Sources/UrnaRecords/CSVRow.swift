/// One row of a CSV file, fields decoded on access.
///
/// ```swift
/// let reader = try CSVReader(path: "data.csv")
/// while let result = try reader.next() {
///     if case .row(let row) = result { print(row.location.line, row[0]) }
/// }
/// ```
public struct CSVRow: Sendable {
    /// File and 1-based line where the row starts.
    public let location: SourceLocation
    let fields: EncodedFields

    init(location: SourceLocation, fields: EncodedFields) {
        self.location = location
        self.fields = fields
    }

    /// Number of fields.
    public var count: Int { fields.count }

    /// A field's text (quotes removed, `""` collapsed, decoded). Traps on an out-of-range index.
    public subscript(index: Int) -> String {
        precondition(index >= 0 && index < fields.count, "CSVRow index \(index) out of range 0..<\(fields.count)")
        return fields.string(at: index)
    }

    /// Every field's text.
    public var strings: [String] { (0..<fields.count).map { fields.string(at: $0) } }

    /// The row's bytes as read, without the line terminator.
    public var rawBytes: [UInt8] { fields.bytes }

    /// The encoding the fields decode with.
    public var encoding: TextEncoding { fields.encoding }

    /// Calls `body` with a field's bytes as stored in the file: quotes removed, `""` escapes not
    /// collapsed, not decoded. For callers that parse numbers without building strings.
    public func withFieldBytes<R>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        precondition(index >= 0 && index < fields.count, "CSVRow index \(index) out of range 0..<\(fields.count)")
        return try fields.withFieldBytes(at: index, body)
    }
}

/// What `CSVReader.next()` yields: a row, or a row that could not be split into fields.
public enum CSVReadResult: Sendable {
    /// A well-formed row.
    case row(CSVRow)
    /// Broken quoting, an oversized field or row, a NUL byte, invalid UTF-8: with file:line:column
    /// and what would fix it. The reader goes on with the next row.
    case malformed(MalformedRow)
}
