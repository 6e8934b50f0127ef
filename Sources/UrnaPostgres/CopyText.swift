import Foundation

/// Buffers COPY text and sends it to the server in large chunks.
public final class CopyInWriter {
    let connection: PostgresConnection
    var buffer: [UInt8] = []

    init(connection: PostgresConnection) {
        self.connection = connection
        buffer.reserveCapacity(1 << 17)
    }

    /// Appends one field of the current row from bytes (escaped for COPY's text format); `first` for the
    /// row's first field. End the row with `endRow()`.
    @inline(__always) public func field(_ bytes: UnsafeRawBufferPointer, first: Bool) {
        CopyText.appendField(bytes, first: first, to: &buffer)  // one exclusive access per field, not per byte
    }

    /// Appends a whole number field.
    @inline(__always) public func field(_ value: Int64, first: Bool) {
        CopyText.appendField(value, first: first, to: &buffer)
    }

    /// Appends a field as text (nil: NULL).
    public func field(_ text: String?, first: Bool) {
        CopyText.appendField(text, first: first, to: &buffer)
    }

    /// Ends the current row.
    public func endRow() throws {
        buffer.append(10)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Sends bytes that are already whole COPY lines, after anything buffered.
    func send(_ lines: UnsafeRawBufferPointer) throws {
        try flush()
        try connection.putCopyData(lines)
    }

    func flush() throws {
        try buffer.withUnsafeBytes { try connection.putCopyData($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// COPY's text format: tab-separated fields, `\N` for NULL, backslash escapes for tab, newline, CR and backslash.
public enum CopyText {
    /// One whole row, as `CopyInWriter` writes it field by field.
    public static func encodeLine(_ fields: [String?], into out: inout [UInt8]) {
        for (i, f) in fields.enumerated() { appendField(f, first: i == 0, to: &out) }
        out.append(10)
    }

    /// A text field (nil: `\N`).
    static func appendField(_ text: String?, first: Bool, to out: inout [UInt8]) {
        guard var text else {
            if !first { out.append(9) }
            out.append(92)
            out.append(78)
            return
        }
        text.withUTF8 { appendField(UnsafeRawBufferPointer($0), first: first, to: &out) }
    }

    /// The letter COPY's text format writes after a backslash for `byte` (backslash, tab, newline, carriage
    /// return), or nil for a byte written as it is.
    @inline(__always) static func escapeLetter(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 92: 92
        case 9: 116
        case 10: 110
        case 13: 114
        default: nil
        }
    }

    @inline(__always) static func appendField(_ bytes: UnsafeRawBufferPointer, first: Bool, to out: inout [UInt8]) {
        if !first { out.append(9) }
        for b in bytes {
            if let letter = escapeLetter(b) {
                out.append(92)
                out.append(letter)
            } else {
                out.append(b)
            }
        }
    }

    @inline(__always) static func appendField(_ value: Int64, first: Bool, to out: inout [UInt8]) {
        if !first { out.append(9) }
        if value < 0 { out.append(45) }
        var v = value.magnitude
        var divisor: UInt64 = 1
        while v / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(48 + (v / divisor) % 10))
            v %= divisor
            divisor /= 10
        }
    }

    /// One line as the server sends it (with its newline) back into fields.
    public static func decodeLine(_ bytes: UnsafeRawBufferPointer) -> [String?] {
        var end = bytes.count
        if end > 0, bytes[end - 1] == 10 { end -= 1 }
        var fields: [String?] = []
        var current: [UInt8] = []
        var isNull = false
        var i = 0
        func finish() {
            fields.append(isNull ? nil : String(decoding: current, as: UTF8.self))
            current.removeAll(keepingCapacity: true)
            isNull = false
        }
        while i < end {
            let b = bytes[i]
            if b == 9 {
                finish()
            } else if b == 92, i + 1 < end {
                i += 1
                switch bytes[i] {
                case 78: isNull = true
                case 116: current.append(9)
                case 110: current.append(10)
                case 114: current.append(13)
                case 98: current.append(8)
                case 102: current.append(12)
                case 118: current.append(11)
                default: current.append(bytes[i])
                }
            } else {
                current.append(b)
            }
            i += 1
        }
        finish()
        return fields
    }
}
