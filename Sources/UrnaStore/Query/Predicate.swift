import Foundation

/// A filter over objects of one type, as a syntax tree: what `Predicate.parse` makes of Realm/NSPredicate
/// text and what `QueryCompiler` turns into SQL.
///
/// ```swift
/// let p = try Predicate.parse("party.acronym == %@ AND goods.@count > 2", arguments: ["PSTU"])
/// let narrower = p && (try Predicate.parse("name BEGINSWITH[c] 'jo'"))
/// ```
///
/// Predicates compose: `&&` and `||` flatten into one `.and` / `.or`, `!` wraps in `.not`; filtering a
/// filter is `.and([old, new])`.
public indirect enum Predicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: every object.
    case truePredicate
    /// `FALSEPREDICATE`: no object.
    case falsePredicate
    case comparison(PredicateComparison)
    /// All of them (true when empty).
    case and([Predicate])
    /// Any of them (false when empty).
    case or([Predicate])
    case not(Predicate)

    /// Parses Realm/NSPredicate text, filling `%@`, `%d`, `%f` and `%K` from `arguments` in order.
    ///
    /// ```swift
    /// try Predicate.parse("age BETWEEN {18, 65} AND name ==[cd] %@", arguments: ["jose"])
    /// try Predicate.parse("%K IN %@", arguments: [.keyPath("party.acronym"), .values(["PT", "PSTU"])])
    /// ```
    public static func parse(_ text: String, arguments: [QueryArgument] = []) throws -> Predicate {
        try PredicateParser.parse(text, arguments: arguments)
    }

    /// Both predicates (nested `.and`s flatten; `TRUEPREDICATE` drops out).
    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        let parts = lhs.conjuncts + rhs.conjuncts
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// Either predicate (nested `.or`s flatten; `FALSEPREDICATE` drops out).
    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        let parts = lhs.disjuncts + rhs.disjuncts
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    /// The negation (a double negation cancels).
    public static prefix func ! (p: Predicate) -> Predicate {
        if case .not(let inner) = p { return inner }
        return .not(p)
    }

    private var conjuncts: [Predicate] {
        switch self {
        case .and(let ps): ps
        case .truePredicate: []
        default: [self]
        }
    }

    private var disjuncts: [Predicate] {
        switch self {
        case .or(let ps): ps
        case .falsePredicate: []
        default: [self]
        }
    }
}

/// One comparison: `[quantifier] left operator[options] right`, e.g. `ANY goods.value > 1000`.
public struct PredicateComparison: Sendable, Hashable {
    public var quantifier: PredicateQuantifier
    public var left: PredicateOperand
    public var op: PredicateOperator
    public var options: PredicateOptions
    public var right: PredicateOperand
    /// Where the left operand, the operator and the right operand were written (for messages only).
    public var leftPosition: PredicatePosition
    public var operatorPosition: PredicatePosition
    public var rightPosition: PredicatePosition

    public init(
        _ left: PredicateOperand, _ op: PredicateOperator, _ right: PredicateOperand, options: PredicateOptions = [],
        quantifier: PredicateQuantifier = .implicit, leftPosition: PredicatePosition = 0,
        operatorPosition: PredicatePosition = 0, rightPosition: PredicatePosition = 0
    ) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.options = options
        self.right = right
        self.leftPosition = leftPosition
        self.operatorPosition = operatorPosition
        self.rightPosition = rightPosition
    }
}

/// One side of a comparison.
public enum PredicateOperand: Sendable, Hashable {
    case keyPath(PredicateKeyPath)
    case value(Value)
    /// `{1, 2, 3}` or a `.values` argument: the right side of IN and BETWEEN.
    case values([Value])
}

/// A dotted property path from the queried type: `party.acronym`, `goods.@count`, `address.city`.
public struct PredicateKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The names in order; collection operators keep their `@` (`["goods", "@count"]`).
    public var components: [String]
    /// Where each component was written (for messages only).
    public var positions: [PredicatePosition]

    public init(_ components: [String], positions: [PredicatePosition] = []) {
        self.components = components
        self.positions = positions.count == components.count ? positions : components.map { _ in 0 }
    }

    /// Splits `party.acronym` at its dots (no validation; the compiler checks names against the schema).
    public init(stringLiteral value: String) {
        self.init(value.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    public var description: String { components.joined(separator: ".") }
}

/// Which elements of a to-many key path must match.
public enum PredicateQuantifier: String, Sendable, Hashable {
    /// No quantifier written: like `ANY` on a key path through a list, as in Realm.
    case implicit = ""
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}

/// A comparison operator.
public enum PredicateOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case greaterThan = ">"
    case greaterThanOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    /// NSPredicate LIKE: `*` matches any run of characters, `?` exactly one.
    case like = "LIKE"
    case `in` = "IN"
    case between = "BETWEEN"

    /// The operator with its operands swapped (`5 < age` is `age > 5`); nil when it has no mirror.
    var mirrored: PredicateOperator? {
        switch self {
        case .equal, .notEqual: self
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        default: nil
        }
    }

    var isStringOperator: Bool { [.beginsWith, .endsWith, .contains, .like].contains(self) }
    var isOrdering: Bool { [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between].contains(self) }
}

/// `[c]`, `[d]`, `[cd]`: case- and diacritic-insensitive string comparison.
public struct PredicateOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `[c]`: "jose" matches "JOSE".
    public static let caseInsensitive = PredicateOptions(rawValue: 1)
    /// `[d]`: "JOSE" matches "JOSÉ".
    public static let diacriticInsensitive = PredicateOptions(rawValue: 2)
}

/// Where part of a predicate was written: a 1-based character position, 0 when built in code.
///
/// Positions only serve error messages, so two predicates that differ only in spacing are equal.
public struct PredicatePosition: Sendable, Hashable, ExpressibleByIntegerLiteral {
    public var offset: Int
    public init(_ offset: Int) { self.offset = offset }
    public init(integerLiteral value: Int) { offset = value }
    public static func == (_: PredicatePosition, _: PredicatePosition) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

extension Predicate: CustomStringConvertible {
    /// The predicate as text in the syntax `parse` reads (dates and uuids as quoted text).
    public var description: String {
        switch self {
        case .truePredicate: "TRUEPREDICATE"
        case .falsePredicate: "FALSEPREDICATE"
        case .comparison(let c): c.description
        case .and(let ps): ps.isEmpty ? "TRUEPREDICATE" : ps.map(\.nestedDescription).joined(separator: " AND ")
        case .or(let ps): ps.isEmpty ? "FALSEPREDICATE" : ps.map(\.nestedDescription).joined(separator: " OR ")
        case .not(let p): "NOT " + p.nestedDescription
        }
    }

    private var nestedDescription: String {
        switch self {
        case .and(let ps) where ps.count > 1: "(\(description))"
        case .or(let ps) where ps.count > 1: "(\(description))"
        default: description
        }
    }
}

extension PredicateComparison: CustomStringConvertible {
    public var description: String {
        var s = quantifier == .implicit ? "" : quantifier.rawValue + " "
        s += left.description + " " + op.rawValue
        if !options.isEmpty {
            s += "[" + (options.contains(.caseInsensitive) ? "c" : "") + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        return s + " " + right.description
    }
}

extension PredicateOperand: CustomStringConvertible {
    public var description: String {
        switch self {
        case .keyPath(let k): k.description
        case .value(let v): Self.literal(v)
        case .values(let vs): "{" + vs.map(Self.literal).joined(separator: ", ") + "}"
        }
    }

    static func literal(_ v: Value) -> String {
        switch v {
        case .null: return "nil"
        case .string(let s):
            let escaped = s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            return "'" + escaped + "'"
        case .date, .uuid: return "'\(v.description)'"
        case .link(let t): return literal(t.key)
        default: return v.description
        }
    }
}
