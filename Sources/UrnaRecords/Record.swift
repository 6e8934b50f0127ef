/// Where a record, or a field of it, came from: file, 1-based line and 1-based column (field number).
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// File name as shown to people (`archive.zip:member.csv` for a zip member).
    public var file: String
    /// 1-based line where the record starts.
    public var line: Int
    /// 1-based field position, or 0 when the location is the whole record.
    public var column: Int

    /// A location; `column` 0 means the whole record.
    public init(file: String, line: Int, column: Int = 0) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or `file:line` when column is 0.
    public var description: String { column > 0 ? "\(file):\(line):\(column)" : "\(file):\(line)" }
}

/// What kind of TSE data a record carries; decides which mapper handles it.
public enum RecordKind: String, Sendable, Codable {
    /// consulta_cand: one candidacy.
    case candidate
    /// bem_candidato: one declared asset.
    case asset
    /// consulta_legendas / consulta_coligacao: one party inside a coalition legend.
    case coalition
}

/// Canonical column names shared by one file's records, with a name -> position map.
///
/// Columns are named as the modern TSE header spells them (`SQ_CANDIDATO`, not `SEQUENCIAL_CANDIDATO`),
/// whatever layout the file used, so the mapper knows one vocabulary.
public final class ColumnIndex: Sendable {
    /// Column names in field order.
    public let names: [String]
    private let positions: [String: Int]

    /// An index over `names`; when a name repeats, the first position wins.
    public init(names: [String]) {
        self.names = names
        var map: [String: Int] = [:]
        for (i, n) in names.enumerated() where map[n] == nil { map[n] = i }
        positions = map
    }

    /// The position of a column, or nil when the file's layout does not have it.
    @inlinable public func position(of name: String) -> Int? { lookup(name) }

    @usableFromInline func lookup(_ name: String) -> Int? { positions[name] }
}

/// One row of a TSE file (CSV line or XML element), already decoded to text, not yet interpreted.
///
/// A record keeps its fields' bytes (a CSV row's own bytes, or an XML record's column texts in UTF-8)
/// and decodes a field only when it is read, so unused columns cost nothing; a record built with the
/// public initialiser holds the strings it was given. All look the same from outside.
///
/// ```swift
/// if case .record(let r) = item, let sq = r["SQ_CANDIDATO"] { print(sq, r.location) }
/// ```
public struct Record: Sendable {
    /// Which TSE data the record carries.
    public let kind: RecordKind
    /// Canonical column names of the file's layout.
    public let columns: ColumnIndex
    /// File, line (first line of the record) and column 0.
    public let location: SourceLocation
    // Exactly one of the two is in use: `fields` for CSV rows and XML records, `strings`
    // (+ `stringsRawBytes`) for records built from decoded values.
    private let fields: EncodedFields?
    private let strings: [String?]
    private let stringsRawBytes: [UInt8]
    /// For XML records: renders `rawBytes` from `fields` when asked (most records never are).
    private let xmlShape: XMLRecordShape?

    /// A record from already decoded values.
    ///
    /// `values[i]` belongs to `columns.names[i]`; `nil` means the source had no value at all.
    public init(kind: RecordKind, columns: ColumnIndex, values: [String?], location: SourceLocation, rawBytes: [UInt8])
    {
        self.kind = kind
        self.columns = columns
        self.location = location
        self.fields = nil
        self.strings = values
        self.stringsRawBytes = rawBytes
        self.xmlShape = nil
    }

    /// A record over bytes: a CSV row's (fields decoded on access; `xml` nil), or the XML reader's, whose
    /// `fields` hold its columns' UTF-8 texts (absent ones flagged) and whose `rawBytes` `xml` renders on demand.
    init(
        kind: RecordKind, columns: ColumnIndex, fields: EncodedFields, location: SourceLocation,
        xml: XMLRecordShape? = nil
    ) {
        self.kind = kind
        self.columns = columns
        self.location = location
        self.fields = fields
        self.strings = []
        self.stringsRawBytes = []
        self.xmlShape = xml
    }

    /// How many fields the record has (for CSV, the layout's column count).
    public var fieldCount: Int { fields?.count ?? strings.count }

    /// The raw text of a field by position (0-based), exactly as decoded: not trimmed, null markers kept.
    /// Nil when the position is out of range or the source had no value.
    public func value(at index: Int) -> String? {
        if let fields {
            return index >= 0 && index < fields.count && !fields.isAbsent(index) ? fields.string(at: index) : nil
        }
        return strings.indices.contains(index) ? strings[index] : nil
    }

    /// Calls `body` with a view of the record's bytes and field spans (nil for records built from decoded
    /// values), so a reader of many fields pays for access to the row once, not once per field.
    /// The view is valid only inside `body`.
    public func withEncodedRow<R>(_ body: (EncodedRowView?) throws -> R) rethrows -> R {
        guard let fields else { return try body(nil) }
        return try fields.bytes.withUnsafeBufferPointer { b in
            try fields.spans.withUnsafeBufferPointer { s in
                try body(EncodedRowView(bytes: b, spans: s, encoding: fields.encoding))
            }
        }
    }

    /// The raw text of a column by its canonical name; nil when the layout lacks it or it had no value.
    public subscript(name: String) -> String? {
        guard let i = columns.position(of: name) else { return nil }
        return value(at: i)
    }

    /// Every field, decoded (costs one string per field: prefer `record[name]` for the ones you need).
    public var values: [String?] {
        guard let fields else { return strings }
        return (0..<fields.count).map { fields.isAbsent($0) ? nil : fields.string(at: $0) }
    }

    /// The record's original bytes as read from the file (for the rejects file), without the line terminator.
    public var rawBytes: [UInt8] {
        if let fields { return xmlShape?.render(fields) ?? fields.bytes }
        return stringsRawBytes
    }

    /// The location of one column of this record (column = 1-based field position).
    public func location(of name: String) -> SourceLocation {
        var l = location
        l.column = (columns.position(of: name) ?? -1) + 1
        return l
    }
}

/// A row the reader could not turn into a record (wrong field count, broken quoting, ...).
public struct MalformedRow: Error, Sendable, CustomStringConvertible {
    /// Where the row starts (column = the field at fault, 0 when it is the whole row).
    public let location: SourceLocation
    /// What is wrong and what would fix it.
    public let reason: String
    /// The row's bytes as read, without the line terminator (only the first 64 KiB of an oversized row).
    public let rawBytes: [UInt8]

    /// A rejected row.
    public init(location: SourceLocation, reason: String, rawBytes: [UInt8]) {
        self.location = location
        self.reason = reason
        self.rawBytes = rawBytes
    }

    /// `file:line:column: reason`.
    public var description: String { "\(location): \(reason)" }
}

/// Either a good record or a malformed row; readers yield these so one bad row never stops the rest.
public enum RecordOrReject: Sendable {
    /// A row that fits its layout.
    case record(Record)
    /// A row that does not, with where and why.
    case reject(MalformedRow)
}

/// A record's bytes and the spans of its fields (a CSV row's, or an XML record's column texts), lent by
/// `Record.withEncodedRow`.
public struct EncodedRowView {
    let bytes: UnsafeBufferPointer<UInt8>
    let spans: UnsafeBufferPointer<UInt32>
    /// The encoding of the file the row came from.
    public let encoding: TextEncoding

    /// The memory the row's bytes and field spans take.
    public var byteCount: Int { bytes.count + spans.count * MemoryLayout<UInt32>.size }

    /// The bytes of field `index` exactly as the file holds them (quotes removed; for XML, the column's
    /// text with references resolved); nil when the position is out of range, the field holds `""` escapes
    /// or it has no value (read those with `Record.value(at:)`). Decoding them with `encoding` gives exactly
    /// `Record.value(at:)`.
    @inline(__always) public func field(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        guard index >= 0, 2 * index + 1 < spans.count else { return nil }
        let start = spans[2 * index]
        if start & EncodedFields.escapedFlag != 0 { return nil }
        return UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(spans[2 * index + 1])])
    }
}
