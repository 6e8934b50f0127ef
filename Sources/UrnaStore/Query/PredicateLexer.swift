import Foundation

/// One token of predicate text, with the 1-based character position where it starts.
struct PredicateToken: Equatable {
    enum Kind: Equatable {
        /// A name; `#name` escapes a reserved word (`#in`).
        case identifier(String)
        /// A reserved word, upper-cased (`AND`, `BEGINSWITH`, `NIL`, ...).
        case keyword(String)
        case string(String)
        /// The source text of an unsigned number: `12`, `1000.50`, `1e3`, `0x1F`.
        case number(String)
        /// The letter after `%`: `@`, `K`, `d` or `f` (`%i`, `%ld`, `%lld` read as `d`).
        case placeholder(Character)
        /// `@count`, `@sum`, ... (the name without `@`).
        case collectionOperator(String)
        /// `==`, `!=`, `<`, `&&`, `!`, ... exactly as written.
        case symbol(String)
        /// The letters inside `[...]` after an operator: `c`, `d`, `cd`.
        case modifier(String)
        case leftParen, rightParen, leftBrace, rightBrace, comma, dot, minus
        case end
    }

    let kind: Kind
    let position: Int
    /// The token as written, for messages.
    let text: String

    /// How the token reads in "found ..." messages.
    var quoted: String {
        switch kind {
        case .end: "end of input"
        case .string(let s): "the string '\(s)'"
        case .number: "the number \(text)"
        default: "'\(text)'"
        }
    }
}

/// Splits predicate text into tokens; rejects characters and literals it cannot read, with positions.
struct PredicateLexer {
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS",
        "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "TRUE", "FALSE", "YES", "NO", "NIL", "NULL",
        "SUBQUERY",
    ]
    static let symbols: Set<String> = ["=", "==", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "&&", "||", "!"]

    private let chars: [Character]
    private var index = 0
    private var tokens: [PredicateToken] = []

    init(_ text: String) { chars = Array(text) }

    /// Every token of `text`, ending with `.end`.
    static func tokenize(_ text: String) throws -> [PredicateToken] {
        var lexer = PredicateLexer(text)
        return try lexer.run()
    }

    private mutating func run() throws -> [PredicateToken] {
        while index < chars.count {
            let c = chars[index]
            let start = index
            if c.isWhitespace {
                index += 1
            } else if c.isLetter || c == "_" {
                let word = readWord()
                let upper = word.uppercased()
                add(Self.keywords.contains(upper) ? .keyword(upper) : .identifier(word), from: start)
            } else if c == "#" {
                index += 1
                let word = readWord()
                guard !word.isEmpty else { throw QueryPredicateError(at: start + 1, "expected a name after '#'") }
                add(.identifier(word), from: start)
            } else if c.isASCII && c.isNumber {
                add(.number(try readNumber()), from: start)
            } else if c == "'" || c == "\"" {
                add(.string(try readString()), from: start)
            } else if c == "@" {
                index += 1
                let word = readWord()
                guard !word.isEmpty else {
                    throw QueryPredicateError(at: start + 1, "expected a collection operator like @count after '@'")
                }
                add(.collectionOperator(word), from: start)
            } else if c == "%" {
                add(.placeholder(try readPlaceholder()), from: start)
            } else if c == "$" {
                throw QueryPredicateError(at: start + 1, "variables ($name) are not supported; use a %@ placeholder")
            } else if "=<>!&|".contains(c) {
                try readSymbols()
            } else if c == "[" {
                add(.modifier(try readModifier()), from: start)
            } else {
                index += 1
                switch c {
                case "(": add(.leftParen, from: start)
                case ")": add(.rightParen, from: start)
                case "{": add(.leftBrace, from: start)
                case "}": add(.rightBrace, from: start)
                case ",": add(.comma, from: start)
                case ".": add(.dot, from: start)
                case "-": add(.minus, from: start)
                default: throw QueryPredicateError(at: start + 1, "unexpected character '\(c)'")
                }
            }
        }
        tokens.append(PredicateToken(kind: .end, position: chars.count + 1, text: ""))
        return tokens
    }

    private mutating func add(_ kind: PredicateToken.Kind, from start: Int) {
        tokens.append(PredicateToken(kind: kind, position: start + 1, text: String(chars[start..<index])))
    }

    private mutating func readWord() -> String {
        let start = index
        while index < chars.count, chars[index].isLetter || chars[index].isNumber || chars[index] == "_" { index += 1 }
        return String(chars[start..<index])
    }

    private func isDigit(_ i: Int, hex: Bool = false) -> Bool {
        guard i < chars.count, let a = chars[i].asciiValue else { return false }
        if a >= 48 && a <= 57 { return true }
        return hex && ((a >= 65 && a <= 70) || (a >= 97 && a <= 102))
    }

    private mutating func readNumber() throws -> String {
        let start = index
        if chars[index] == "0", index + 1 < chars.count, chars[index + 1] == "x" || chars[index + 1] == "X" {
            index += 2
            guard isDigit(index, hex: true) else {
                throw QueryPredicateError(at: start + 1, "expected hex digits after '0x'")
            }
            while isDigit(index, hex: true) { index += 1 }
            return String(chars[start..<index])
        }
        while isDigit(index) { index += 1 }
        if index < chars.count, chars[index] == ".", isDigit(index + 1) {
            index += 1
            while isDigit(index) { index += 1 }
        }
        if index < chars.count, chars[index] == "e" || chars[index] == "E" {
            var next = index + 1
            if next < chars.count, chars[next] == "+" || chars[next] == "-" { next += 1 }
            if isDigit(next) {
                index = next
                while isDigit(index) { index += 1 }
            }
        }
        return String(chars[start..<index])
    }

    private mutating func readString() throws -> String {
        let quote = chars[index]
        let start = index
        index += 1
        var out = ""
        while index < chars.count {
            let c = chars[index]
            if c == quote {
                index += 1
                return out
            }
            if c == "\\" {
                guard index + 1 < chars.count else { break }
                let e = chars[index + 1]
                index += 2
                switch e {
                case "\\": out.append("\\")
                case "'", "\"": out.append(e)
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "0": out.append("\0")
                // Kept escaped so LIKE can tell a literal wildcard from a wildcard.
                case "*", "?": out += "\\" + String(e)
                case "u":
                    let hex = index + 4 <= chars.count ? String(chars[index..<(index + 4)]) : ""
                    guard hex.count == 4, let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) else {
                        throw QueryPredicateError(at: index - 1, "expected 4 hex digits after '\\u'")
                    }
                    out.unicodeScalars.append(scalar)
                    index += 4
                default:
                    throw QueryPredicateError(
                        at: index - 1, "unknown escape '\\\(e)' in a string (write \\\\ for a backslash)")
                }
                continue
            }
            out.append(c)
            index += 1
        }
        throw QueryPredicateError(at: start + 1, "unterminated string: add a closing \(quote)")
    }

    private mutating func readPlaceholder() throws -> Character {
        let start = index
        index += 1
        var letter: Character? = index < chars.count ? chars[index] : nil
        // printf length modifiers: %ld, %lld, %lu read as %d.
        while letter == "l" || letter == "q" {
            index += 1
            letter = index < chars.count ? chars[index] : nil
        }
        index += 1
        switch letter {
        case "@", "K", "d", "f": return letter!
        case "i", "u": return "d"
        case "g", "e": return "f"
        default:
            let shown = String(chars[start..<min(index, chars.count)])
            throw QueryPredicateError(at: start + 1, "unknown placeholder '\(shown)': use %@, %K, %d or %f")
        }
    }

    private mutating func readSymbols() throws {
        let start = index
        while index < chars.count, "=<>!&|".contains(chars[index]) { index += 1 }
        let run = String(chars[start..<index])
        if Self.symbols.contains(run) {
            add(.symbol(run), from: start)
        } else if run.allSatisfy({ $0 == "!" }) {
            for i in start..<index {
                tokens.append(PredicateToken(kind: .symbol("!"), position: i + 1, text: "!"))
            }
        } else {
            throw QueryPredicateError(at: start + 1, "unknown operator '\(run)': use ==, !=, <, <=, >, >=, &&, || or !")
        }
    }

    private mutating func readModifier() throws -> String {
        let start = index
        index += 1
        let letters = readWord()
        guard index < chars.count, chars[index] == "]", !letters.isEmpty else {
            throw QueryPredicateError(at: start + 1, "expected a modifier like [c], [d] or [cd]")
        }
        index += 1
        return letters
    }
}
