import Foundation

/// A predicate that cannot be parsed or compiled: where (1-based character position in the predicate
/// text) and what was expected there.
///
/// ```swift
/// do { _ = try QueryPredicate.parse("name == ") } catch let e as QueryPredicateError {
///     print(e)  // at 9: expected a value after '==', found end of input
/// }
/// ```
public struct QueryPredicateError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// 1-based character (grapheme) position in the predicate text; 0 when the problem has no place
    /// in the text (a predicate built in code, a bad sort descriptor).
    public let position: Int
    /// What is wrong and, where possible, what to write instead.
    public let message: String

    /// An error at `position` (1-based; 0 for none).
    public init(at position: Int, _ message: String) {
        self.position = position
        self.message = message
    }

    /// `at 14: expected a value after '==', found end of input`.
    public var description: String { position > 0 ? "at \(position): \(message)" : message }

    public var errorDescription: String? { description }
}
