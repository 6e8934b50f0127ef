import Foundation

/// Recursive descent over predicate tokens. Precedence, loosest first: OR, AND, NOT, comparison.
///
/// ```
/// predicate  := or END
/// or         := and (("OR" | "||") and)*
/// and        := not (("AND" | "&&") not)*
/// not        := ("NOT" | "!") not | primary
/// primary    := "(" or ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := [ANY | SOME | ALL | NONE] operand operator ["[c]" | "[d]" | "[cd]"] operand
/// operand    := keyPath | literal | "-" number | placeholder | "{" [literal ("," literal)*] "}"
/// keyPath    := (name | %K) ("." (name | "@count" | "@sum" | ...))*
/// ```
///
/// Placeholders are filled while parsing, so the tree holds values, never placeholders.
public struct PredicateParser {
    private let tokens: [PredicateToken]
    private let arguments: [QueryArgument]
    private var index = 0
    private var nextArgument = 0
    private var depth = 0
    private var comparisons = 0

    /// How many comparisons one predicate may hold. SQLite builds `a AND b AND ...` as a tree as deep as
    /// the chain and refuses past 1,000; refusing here first gives the user a position instead.
    public static let maximumComparisons = 500

    /// How deep parentheses and NOTs may nest. Well past any hand-written filter, and well below what
    /// would overflow this parser's stack or SQLite's own parser (which gives up near 100 nested levels).
    public static let maximumNesting = 48

    private init(tokens: [PredicateToken], arguments: [QueryArgument]) {
        self.tokens = tokens
        self.arguments = arguments
    }

    /// Parses `text`; throws `QueryPredicateError` with the position of the first problem.
    public static func parse(_ text: String, arguments: [QueryArgument] = []) throws -> QueryPredicate {
        let tokens = try PredicateLexer.tokenize(text)
        let placeholders = tokens.filter { if case .placeholder = $0.kind { true } else { false } }
        if placeholders.count != arguments.count {
            let position = placeholders.count > arguments.count ? placeholders[arguments.count].position : 1
            let uses = placeholders.count == 1 ? "1 argument" : "\(placeholders.count) arguments"
            throw QueryPredicateError(at: position, "predicate uses \(uses), \(arguments.count) given")
        }
        var parser = PredicateParser(tokens: tokens, arguments: arguments)
        if case .end = parser.current.kind { throw parser.expected("a predicate") }
        let predicate = try parser.parseOr()
        if case .end = parser.current.kind { return predicate }
        if case .rightParen = parser.current.kind {
            throw QueryPredicateError(at: parser.current.position, "found ')' without a matching '('")
        }
        var error = parser.expected("AND, OR or the end of the predicate after \(parser.previous.quoted)")
        if case .number = parser.previous.kind, case .minus = parser.current.kind {
            // `birthdate > 2000-01-01`: a date written bare lexes as a number and a minus.
            error = QueryPredicateError(
                at: error.position, error.message + "; dates and codes are text: quote them, like birthdate > '2000-01-01'")
        }
        throw error
    }

    // MARK: - Tokens

    private var current: PredicateToken { tokens[index] }
    private var previous: PredicateToken { tokens[max(0, index - 1)] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private func isKeyword(_ words: String...) -> Bool {
        if case .keyword(let k) = current.kind { return words.contains(k) }
        return false
    }

    private func isSymbol(_ symbols: String...) -> Bool {
        if case .symbol(let s) = current.kind { return symbols.contains(s) }
        return false
    }

    private func expected(_ what: String) -> QueryPredicateError {
        QueryPredicateError(at: current.position, "expected \(what), found \(current.quoted)")
    }

    // MARK: - Logic

    private mutating func parseOr() throws -> QueryPredicate {
        var parts = [try parseAnd()]
        while isKeyword("OR") || isSymbol("||") {
            advance()
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func parseAnd() throws -> QueryPredicate {
        var parts = [try parseNot()]
        while isKeyword("AND") || isSymbol("&&") {
            advance()
            parts.append(try parseNot())
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// Counts one level of nesting and refuses past `maximumNesting`, at the token that went too deep.
    private mutating func enterNesting() throws {
        depth += 1
        if depth > PredicateParser.maximumNesting {
            throw QueryPredicateError(
                at: current.position,
                "parentheses and NOT nest more than \(PredicateParser.maximumNesting) deep here: simplify the predicate"
            )
        }
    }

    private mutating func parseNot() throws -> QueryPredicate {
        if isKeyword("NOT") || isSymbol("!") {
            try enterNesting()
            defer { depth -= 1 }
            advance()
            return .not(try parseNot())
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws -> QueryPredicate {
        switch current.kind {
        case .leftParen:
            let open = current.position
            try enterNesting()
            defer { depth -= 1 }
            advance()
            let inner = try parseOr()
            guard case .rightParen = current.kind else { throw expected("')' to close the '(' at \(open)") }
            advance()
            return inner
        case .keyword("TRUEPREDICATE"):
            advance()
            return .truePredicate
        case .keyword("FALSEPREDICATE"):
            advance()
            return .falsePredicate
        case .keyword("SUBQUERY"):
            throw QueryPredicateError(
                at: current.position, "SUBQUERY is not supported; use ANY, ALL or NONE on the key path")
        case .end:
            throw expected("a comparison after \(previous.quoted)")
        default:
            comparisons += 1
            if comparisons > PredicateParser.maximumComparisons {
                throw QueryPredicateError(
                    at: current.position,
                    "more than \(PredicateParser.maximumComparisons) comparisons in one predicate: use IN {...} or split the filter"
                )
            }
            return .comparison(try parseComparison())
        }
    }

    // MARK: - Comparisons

    private mutating func parseComparison() throws -> PredicateComparison {
        var quantifier = PredicateQuantifier.implicit
        if case .keyword(let k) = current.kind, ["ANY", "SOME", "ALL", "NONE"].contains(k) {
            quantifier = k == "ALL" ? .all : k == "NONE" ? .none : .any
            advance()
            switch current.kind {
            case .identifier, .placeholder("K"): break
            default: throw expected("a key path after \(previous.quoted)")
            }
        }
        let leftPosition = current.position
        let left = try parseOperand(after: quantifier == .implicit ? nil : previous)
        if case .values = left {
            throw QueryPredicateError(at: leftPosition, "a list of values can only be the right side of IN or BETWEEN")
        }
        let operatorPosition = current.position
        let op = try parseOperator(after: left)
        var options: PredicateOptions = []
        if case .modifier(let letters) = current.kind {
            for letter in letters {
                switch letter {
                case "c": options.insert(.caseInsensitive)
                case "d": options.insert(.diacriticInsensitive)
                default:
                    throw QueryPredicateError(
                        at: current.position, "unknown modifier '\(current.text)': use [c], [d] or [cd]")
                }
            }
            advance()
        }
        let rightPosition = current.position
        var right = try parseOperand(after: tokens[index - 1])
        switch (op, right) {
        case (.between, .values(let vs)) where vs.count != 2:
            throw QueryPredicateError(at: rightPosition, "BETWEEN needs two values, like {18, 65}; found \(vs.count)")
        case (.between, .values), (.in, .values), (.in, .keyPath): break
        case (.in, .value(.list(let targets))): right = .values(targets.map(Value.link))
        case (.between, _), (.in, _):
            throw QueryPredicateError(
                at: rightPosition, "\(op.rawValue) needs a list of values, like {1, 2} or a .values([...]) argument")
        case (_, .values):
            throw QueryPredicateError(
                at: rightPosition, "a list of values can only follow IN or BETWEEN, not \(op.rawValue)")
        default: break
        }
        return PredicateComparison(
            left, op, right, options: options, quantifier: quantifier, leftPosition: PredicatePosition(leftPosition),
            operatorPosition: PredicatePosition(operatorPosition), rightPosition: PredicatePosition(rightPosition))
    }

    private mutating func parseOperator(after left: PredicateOperand) throws -> PredicateOperator {
        let op: PredicateOperator
        switch current.kind {
        case .symbol("="), .symbol("=="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .lessThan
        case .symbol("<="), .symbol("=<"): op = .lessThanOrEqual
        case .symbol(">"): op = .greaterThan
        case .symbol(">="), .symbol("=>"): op = .greaterThanOrEqual
        case .keyword("BEGINSWITH"): op = .beginsWith
        case .keyword("ENDSWITH"): op = .endsWith
        case .keyword("CONTAINS"): op = .contains
        case .keyword("LIKE"): op = .like
        case .keyword("IN"): op = .in
        case .keyword("BETWEEN"): op = .between
        case .keyword("MATCHES"):
            throw QueryPredicateError(
                at: current.position, "MATCHES (regular expressions) is not supported; use LIKE with * and ?")
        default:
            throw expected(
                "an operator (==, !=, <, <=, >, >=, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, IN, BETWEEN) after '\(left)'")
        }
        advance()
        return op
    }

    /// One operand; `after` names the token before it for "expected a value after ..." messages.
    private mutating func parseOperand(after before: PredicateToken?) throws -> PredicateOperand {
        let token = current
        switch token.kind {
        case .identifier(let name):
            advance()
            return .keyPath(
                try parseKeyPathRest(PredicateKeyPath([name], positions: [PredicatePosition(token.position)])))
        case .placeholder("K"):
            advance()
            let path = try keyPathArgument(at: token.position)
            return .keyPath(try parseKeyPathRest(path))
        case .placeholder(let letter):
            advance()
            return try valueArgument(letter, at: token.position)
        case .collectionOperator:
            throw QueryPredicateError(
                at: token.position, "\(token.text) needs a key path before it, like goods.\(token.text)")
        case .leftBrace:
            advance()
            var values: [Value] = []
            if case .rightBrace = current.kind {
                advance()
                return .values(values)
            }
            while true {
                let elementPosition = current.position
                guard case .value(let v) = try parseOperand(after: previous) else {
                    throw QueryPredicateError(at: elementPosition, "a list holds values, not key paths or lists")
                }
                values.append(v)
                if case .comma = current.kind {
                    advance()
                    continue
                }
                guard case .rightBrace = current.kind else { throw expected("',' or '}' in the list") }
                advance()
                return .values(values)
            }
        default:
            if let literal = try parseLiteral() { return .value(literal) }
            if let before {
                throw expected("a value after \(before.quoted)")
            }
            throw expected("a key path or a value")
        }
    }

    private mutating func parseLiteral() throws -> Value? {
        let token = current
        switch token.kind {
        case .string(let s):
            advance()
            return .string(s)
        case .number(let text):
            advance()
            return try Self.number(text, negative: false, at: token.position)
        case .minus:
            advance()
            guard case .number(let text) = current.kind else { throw expected("a number after '-'") }
            advance()
            return try Self.number(text, negative: true, at: token.position)
        case .keyword("TRUE"), .keyword("YES"):
            advance()
            return .bool(true)
        case .keyword("FALSE"), .keyword("NO"):
            advance()
            return .bool(false)
        case .keyword("NIL"), .keyword("NULL"):
            advance()
            return .null
        default:
            return nil
        }
    }

    /// `.int` for integers that fit 64 bits, `.decimal` (exact) for the rest.
    static func number(_ text: String, negative: Bool, at position: Int) throws -> Value {
        let sign = negative ? "-" : ""
        if text.hasPrefix("0x") || text.hasPrefix("0X") {
            guard let i = Int64(sign + text.dropFirst(2), radix: 16) else {
                throw QueryPredicateError(at: position, "the number \(sign)\(text) does not fit 64 bits")
            }
            return .int(i)
        }
        if let i = Int64(sign + text) { return .int(i) }
        guard let d = Decimal(string: sign + text, locale: Locale(identifier: "en_US_POSIX")), !d.isNaN else {
            throw QueryPredicateError(at: position, "the number \(sign)\(text) is out of range")
        }
        return .decimal(d)
    }

    private mutating func parseKeyPathRest(_ start: PredicateKeyPath) throws -> PredicateKeyPath {
        var path = start
        while case .dot = current.kind {
            advance()
            let token = current
            switch token.kind {
            case .identifier(let name): path.components.append(name)
            // After a dot a reserved word can only be a name (`task.all`).
            case .keyword: path.components.append(token.text)
            case .collectionOperator(let name): path.components.append("@" + name)
            default: throw expected("a property name after '.'")
            }
            path.positions.append(PredicatePosition(token.position))
            advance()
        }
        return path
    }

    // MARK: - Arguments

    private mutating func takeArgument() -> (QueryArgument, Int) {
        defer { nextArgument += 1 }
        return (arguments[nextArgument], nextArgument + 1)
    }

    private mutating func keyPathArgument(at position: Int) throws -> PredicateKeyPath {
        let (argument, number) = takeArgument()
        let text: String
        switch argument {
        case .keyPath(let s), .value(.string(let s)): text = s
        default:
            throw QueryPredicateError(
                at: position, "argument \(number) for %K must be a key path, like .keyPath(\"party.acronym\")")
        }
        let components = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for c in components {
            let name = c.hasPrefix("@") ? String(c.dropFirst()) : c
            guard Identifier.isValid(name) else {
                throw QueryPredicateError(at: position, "argument \(number) for %K is not a key path: '\(text)'")
            }
        }
        return PredicateKeyPath(components, positions: components.map { _ in PredicatePosition(position) })
    }

    private mutating func valueArgument(_ letter: Character, at position: Int) throws -> PredicateOperand {
        let (argument, number) = takeArgument()
        switch (letter, argument) {
        case (_, .keyPath(let k)):
            throw QueryPredicateError(at: position, "argument \(number) is the key path '\(k)': use %K for key paths")
        case ("@", .value(let v)): return .value(v)
        case ("@", .values(let vs)): return .values(vs)
        case ("d", .value(.int(let i))): return .value(.int(i))
        case ("d", .value(.bool(let b))): return .value(.int(b ? 1 : 0))
        case ("d", .value(let v)):
            throw QueryPredicateError(at: position, "argument \(number) for %d must be an integer, not \(v.kindName)")
        case ("f", .value(.int(let i))): return .value(.double(Double(i)))
        case ("f", .value(.double(let d))): return .value(.double(d))
        case ("f", .value(.decimal(let d))): return .value(.decimal(d))
        case ("f", .value(let v)):
            throw QueryPredicateError(at: position, "argument \(number) for %f must be a number, not \(v.kindName)")
        default:
            throw QueryPredicateError(
                at: position, "argument \(number) for %\(letter) must be a single value; use %@ for a list")
        }
    }
}
