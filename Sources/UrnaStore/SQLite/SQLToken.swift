/// One token of SQLite's SQL, as far as `SchemaObjectSQL` needs: words, quoted identifiers, string and
/// blob literals, numbers, `;` and other punctuation. Whitespace and comments are dropped.
struct SQLToken: Equatable {
    enum Kind: Equatable {
        /// A bare word: keyword or identifier.
        case word
        /// `"x"`, `` `x` `` or `[x]`, with `text` unquoted.
        case quotedIdentifier
        /// `'...'` (also `x'...'` blobs).
        case string
        case number
        case semicolon
        case punctuation
    }

    let kind: Kind
    let text: String

    /// A literal, quoted identifier or comment that does not end.
    struct Unterminated: Error {
        let what: String
    }

    func isKeyword(_ word: String) -> Bool {
        kind == .word && text.utf8.count == word.utf8.count
            && zip(text.utf8, word.utf8).allSatisfy { a, b in (a >= 97 && a <= 122 ? a - 32 : a) == b }
    }

    /// The name this token gives, when it can name something (a bare word or a quoted identifier; SQLite
    /// also accepts a single-quoted string there).
    var identifier: String? {
        switch kind {
        case .word, .quotedIdentifier, .string: text
        default: nil
        }
    }

    /// Splits `sql` into tokens the way SQLite's tokenizer does for these cases.
    static func scan(_ sql: String) throws -> [SQLToken] {
        let b = Array(sql.utf8)
        var out: [SQLToken] = []
        var i = 0
        func text(_ r: Range<Int>) -> String { String(decoding: b[r], as: UTF8.self) }
        /// Reads a literal closed by `close`, where a doubled `close` stands for itself.
        func quoted(from start: Int, close: UInt8, doubling: Bool, what: String) throws -> (String, Int) {
            var j = start + 1
            var value: [UInt8] = []
            while j < b.count {
                if b[j] == close {
                    if doubling, j + 1 < b.count, b[j + 1] == close {
                        value.append(close)
                        j += 2
                        continue
                    }
                    return (String(decoding: value, as: UTF8.self), j + 1)
                }
                value.append(b[j])
                j += 1
            }
            throw Unterminated(what: "\(what) that never ends")
        }
        while i < b.count {
            let c = b[i]
            switch c {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                i += 1
            case 0x2D where i + 1 < b.count && b[i + 1] == 0x2D:  // -- comment to the end of the line
                while i < b.count && b[i] != 0x0A { i += 1 }
            case 0x2F where i + 1 < b.count && b[i + 1] == 0x2A:  // /* comment */
                var j = i + 2
                while j + 1 < b.count && !(b[j] == 0x2A && b[j + 1] == 0x2F) { j += 1 }
                guard j + 1 < b.count else { throw Unterminated(what: "a /* comment that never ends") }
                i = j + 2
            case 0x27:
                let (value, next) = try quoted(from: i, close: 0x27, doubling: true, what: "a string")
                out.append(SQLToken(kind: .string, text: value))
                i = next
            case 0x22, 0x60:
                let (value, next) = try quoted(from: i, close: c, doubling: true, what: "a quoted name")
                out.append(SQLToken(kind: .quotedIdentifier, text: value))
                i = next
            case 0x5B:
                let (value, next) = try quoted(from: i, close: 0x5D, doubling: false, what: "a [name]")
                out.append(SQLToken(kind: .quotedIdentifier, text: value))
                i = next
            case 0x3B:
                out.append(SQLToken(kind: .semicolon, text: ";"))
                i += 1
            case 0x30...0x39:
                var j = i
                while j < b.count && (isWordByte(b[j]) || b[j] == 0x2E) { j += 1 }
                out.append(SQLToken(kind: .number, text: text(i..<j)))
                i = j
            case _ where (c == 0x78 || c == 0x58) && i + 1 < b.count && b[i + 1] == 0x27:  // x'0A' blob
                let (value, next) = try quoted(from: i + 1, close: 0x27, doubling: false, what: "a blob")
                out.append(SQLToken(kind: .string, text: value))
                i = next
            case _ where isWordByte(c):
                var j = i
                while j < b.count && isWordByte(b[j]) { j += 1 }
                out.append(SQLToken(kind: .word, text: text(i..<j)))
                i = j
            default:
                out.append(SQLToken(kind: .punctuation, text: text(i..<(i + 1))))
                i += 1
            }
        }
        return out
    }

    /// Letters, digits, `_`, `$` and every byte of a non-ASCII character (SQLite's identifier bytes).
    private static func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x24
            || c >= 0x80
    }
}
