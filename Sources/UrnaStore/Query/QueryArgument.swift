import Foundation

/// What fills one placeholder of a predicate: a value (`%@`, `%d`, `%f`), a list of values (`IN %@`,
/// `BETWEEN %@`) or a key path (`%K`).
///
/// Swift literals convert on their own:
///
/// ```swift
/// try QueryPredicate.parse("name == %@ AND age > %d", arguments: ["Ana", 18])
/// try QueryPredicate.parse("%K IN %@", arguments: [.keyPath("party.acronym"), ["PT", "PSTU"]])
/// try QueryPredicate.parse("birth < %@", arguments: [.date(cutoff)])
/// ```
public enum QueryArgument: Sendable, Hashable {
    case value(Value)
    case values([Value])
    /// A key path for `%K`, such as `party.acronym`.
    case keyPath(String)

    /// One value for `%@`.
    public init(_ value: Value) { self = .value(value) }

    // Shorthands for Swift values that are not literals (`.int(count)`, `.date(cutoff)`).

    public static func string(_ s: String) -> QueryArgument { .value(.string(s)) }
    public static func int<I: BinaryInteger>(_ i: I) -> QueryArgument { .value(.int(Int64(i))) }
    public static func double(_ d: Double) -> QueryArgument { .value(.double(d)) }
    public static func bool(_ b: Bool) -> QueryArgument { .value(.bool(b)) }
    public static func date(_ d: Date) -> QueryArgument { .value(.date(d)) }
    public static func uuid(_ u: UUID) -> QueryArgument { .value(.uuid(u)) }
    public static func decimal(_ d: Decimal) -> QueryArgument { .value(.decimal(d)) }
    public static func data(_ d: Data) -> QueryArgument { .value(.data(d)) }
}

extension QueryArgument: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral
{
    public init(stringLiteral value: String) { self = .value(.string(value)) }
    public init(integerLiteral value: Int64) { self = .value(.int(value)) }
    public init(floatLiteral value: Double) { self = .value(.double(value)) }
    public init(booleanLiteral value: Bool) { self = .value(.bool(value)) }
    public init(nilLiteral: ()) { self = .value(.null) }
    public init(arrayLiteral elements: Value...) { self = .values(elements) }
}
