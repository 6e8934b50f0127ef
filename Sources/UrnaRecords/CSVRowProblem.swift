/// Why a CSV row could not be split into fields; turned into a `MalformedRow` reason.
///
/// Field numbers are 0-based here and 1-based in messages and locations.
enum CSVRowProblem: Equatable {
    case textAfterClosingQuote(field: Int, byte: UInt8)
    case unterminatedQuote(field: Int)
    case nulByte(field: Int)
    case fieldTooLong(field: Int, limit: Int)
    case recordTooLong(field: Int, limit: Int)
    case tooManyFields(limit: Int)
    case invalidUTF8(field: Int, byte: UInt8)
    /// A UTF-8 character (two to four bytes) in a file read as Latin-1 or Windows-1252 from its first 64 KiB.
    case utf8InSingleByteFile(field: Int, bytes: [UInt8], encoding: TextEncoding)

    /// The 1-based field the problem is in (for too many fields, the first one past the limit).
    var column: Int {
        switch self {
        case .textAfterClosingQuote(let field, _), .unterminatedQuote(let field), .nulByte(let field),
            .fieldTooLong(let field, _), .recordTooLong(let field, _), .invalidUTF8(let field, _),
            .utf8InSingleByteFile(let field, _, _):
            return field + 1
        case .tooManyFields(let limit): return limit + 1  // the first field past the limit
        }
    }

    /// What is wrong and what would fix it.
    var reason: String {
        switch self {
        case .textAfterClosingQuote(let field, let byte):
            return "field \(field + 1): \(Self.describe(byte)) after the closing quote; a quote inside a quoted field "
                + "must be doubled (\"\"), and nothing may follow the closing quote but the separator or the line end"
        case .unterminatedQuote(let field):
            return "field \(field + 1): the quote that opens this field is never closed before the end of the file; "
                + "add the closing quote, or double the quotes inside the field (\"\"); a file cut short (a download "
                + "that stopped) ends so too: then download it again"
        case .nulByte(let field):
            return "field \(field + 1): contains a NUL byte (0x00); the file is probably UTF-16 or damaged: "
                + "save it as Latin-1 or UTF-8 text, or remove the NUL bytes"
        case .fieldTooLong(let field, let limit):
            return "field \(field + 1) is longer than the \(Self.describe(size: limit)) field limit; if the value is "
                + "genuine, raise the limit (CSVOptions.maxFieldBytes), otherwise look for a quote that is never closed"
        case .recordTooLong(let field, let limit):
            return
                "the row is longer than the \(Self.describe(size: limit)) row limit (reached in field \(field + 1)); "
                + "usually a quote that is never closed swallowed the lines after it: close or double that quote, "
                + "or raise CSVOptions.maxRecordBytes"
        case .tooManyFields(let limit):
            return "the row has more than \(limit) fields; check the separator, or raise CSVOptions.maxFieldCount"
        case .invalidUTF8(let field, let byte):
            return "field \(field + 1): byte 0x\(String(byte, radix: 16, uppercase: true)) is not valid UTF-8; "
                + "the file is probably Latin-1 or Windows-1252: read it with that encoding (latin1 or cp1252)"
        case .utf8InSingleByteFile(let field, let bytes, let encoding):
            let character = String(decoding: bytes, as: UTF8.self)
            let hex = bytes.map { "0x" + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
            return "field \(field + 1): bytes \(hex) are the UTF-8 character '\(character)', but the file is read as "
                + "\(encoding.rawValue) (its first 64 KiB are not UTF-8), so this row would be garbled: the file mixes "
                + "encodings; convert it to one (iconv), or pass --encoding to say which to use"
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte == 0x20 { return "a space" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    static func describe(size: Int) -> String {
        if size >= 1 << 20 && size % (1 << 20) == 0 { return "\(size >> 20) MiB" }
        if size >= 1 << 10 && size % (1 << 10) == 0 { return "\(size >> 10) KiB" }
        return "\(size)-byte"
    }
}
