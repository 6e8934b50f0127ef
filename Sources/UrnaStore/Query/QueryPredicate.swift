import Foundation

/// A filter over objects of one type, as a syntax tree: what `QueryPredicate.parse` makes of Realm/NSPredicate
/// text and what `QueryCompiler` turns into SQL.
///
/// ```swift
/// let p = try QueryPredicate.parse("party.acronym == %@ AND goods.@count > 2", arguments: ["PSTU"])
/// let narrower = p && (try QueryPredicate.parse("name BEGINSWITH[c] 'jo'"))
/// ```
///
/// Predicates compose: `&&` and `||` flatten into one `.and` / `.or`, `!` wraps in `.not`; filtering a
/// filter is `.and([old, new])`.
public indirect enum QueryPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: every object.
    case truePredicate
    /// `FALSEPREDICATE`: no object.
    case falsePredicate
    /// One comparison, such as `age > 18` or `ANY goods.value > 1000`.
    case comparison(PredicateComparison)
    /// All of them (true when empty).
    case and([QueryPredicate])
    /// Any of them (false when empty).
    case or([QueryPredicate])
    /// The negation; true where the inner predicate is false or compares with nil (see QueryCompiler).
    case not(QueryPredicate)

    /// Parses Realm/NSPredicate text, filling `%@`, `%d`, `%f` and `%K` from `arguments` in order.
    ///
    /// ```swift
    /// try QueryPredicate.parse("age BETWEEN {18, 65} AND name ==[cd] %@", arguments: ["jose"])
    /// try QueryPredicate.parse("%K IN %@", arguments: [.keyPath("party.acronym"), .values(["PT", "PSTU"])])
    /// ```
    public static func parse(_ text: String, arguments: [QueryArgument] = []) throws -> QueryPredicate {
        try PredicateParser.parse(text, arguments: arguments)
    }

    /// Both predicates (nested `.and`s flatten; `TRUEPREDICATE` drops out).
    public static func && (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        let parts = lhs.conjuncts + rhs.conjuncts
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// Either predicate (nested `.or`s flatten; `FALSEPREDICATE` drops out).
    public static func || (lhs: QueryPredicate, rhs: QueryPredicate) -> QueryPredicate {
        let parts = lhs.disjuncts + rhs.disjuncts
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    /// The negation (a double negation cancels).
    public static prefix func ! (p: QueryPredicate) -> QueryPredicate {
        if case .not(let inner) = p { return inner }
        return .not(p)
    }

    private var conjuncts: [QueryPredicate] {
        switch self {
        case .and(let ps): ps
        case .truePredicate: []
        default: [self]
        }
    }

    private var disjuncts: [QueryPredicate] {
        switch self {
        case .or(let ps): ps
        case .falsePredicate: []
        default: [self]
        }
    }
}

/// One comparison: `[quantifier] left operator[options] right`, e.g. `ANY goods.value > 1000`.
public struct PredicateComparison: Sendable, Hashable {
    /// ANY / ALL / NONE before the left key path, or `.implicit`.
    public var quantifier: PredicateQuantifier
    public var left: PredicateOperand
    public var op: PredicateOperator
    /// `[c]`, `[d]`, `[cd]` after the operator.
    public var options: PredicateOptions
    public var right: PredicateOperand
    /// Where the left operand, the operator and the right operand were written (for messages only).
    public var leftPosition: PredicatePosition
    public var operatorPosition: PredicatePosition
    public var rightPosition: PredicatePosition

    /// A comparison built in code: `PredicateComparison(.keyPath("age"), .greaterThan, .value(18))`.
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
    /// A property path from the queried type.
    case keyPath(PredicateKeyPath)
    /// A literal or an argument (`nil` is `.value(.null)`).
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

    /// A key path from its components; `positions` (one per component) only serve messages.
    public init(_ components: [String], positions: [PredicatePosition] = []) {
        self.components = components
        self.positions = positions.count == components.count ? positions : components.map { _ in 0 }
    }

    /// Splits `party.acronym` at its dots (no validation; the compiler checks names against the schema).
    public init(stringLiteral value: String) {
        self.init(value.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The dotted form, `party.acronym`.
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
    /// 1 = case, 2 = diacritics: the `flags` of `urna_fold`.
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
    /// The 1-based character position (0: none).
    public var offset: Int
    public init(_ offset: Int) { self.offset = offset }
    public init(integerLiteral value: Int) { offset = value }
    public static func == (_: PredicatePosition, _: PredicatePosition) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

extension QueryPredicate: CustomStringConvertible {
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
    /// The comparison as predicate text.
    public var description: String {
        var s = quantifier == .implicit ? "" : quantifier.rawValue + " "
        s += left.description + " " + op.rawValue
        if !options.isEmpty {
            s +=
                "[" + (options.contains(.caseInsensitive) ? "c" : "")
                + (options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        return s + " " + right.description
    }
}

extension PredicateOperand: CustomStringConvertible {
    /// The operand as predicate text (values as literals).
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
