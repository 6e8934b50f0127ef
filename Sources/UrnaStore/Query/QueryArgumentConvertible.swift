import Foundation

/// A Swift value that can fill a predicate placeholder directly: `filter("id == %@", someString)`.
public protocol QueryArgumentConvertible {
    /// The placeholder's argument.
    var queryArgument: QueryArgument { get }
}

extension QueryArgument: QueryArgumentConvertible { public var queryArgument: QueryArgument { self } }
extension Value: QueryArgumentConvertible { public var queryArgument: QueryArgument { .value(self) } }
extension String: QueryArgumentConvertible { public var queryArgument: QueryArgument { .string(self) } }
extension Substring: QueryArgumentConvertible { public var queryArgument: QueryArgument { .string(String(self)) } }
extension Int: QueryArgumentConvertible { public var queryArgument: QueryArgument { .int(self) } }
extension Int64: QueryArgumentConvertible { public var queryArgument: QueryArgument { .int(self) } }
extension Int32: QueryArgumentConvertible { public var queryArgument: QueryArgument { .int(self) } }
extension Int16: QueryArgumentConvertible { public var queryArgument: QueryArgument { .int(self) } }
extension Int8: QueryArgumentConvertible { public var queryArgument: QueryArgument { .int(self) } }
extension Double: QueryArgumentConvertible { public var queryArgument: QueryArgument { .double(self) } }
extension Float: QueryArgumentConvertible { public var queryArgument: QueryArgument { .double(Double(self)) } }
extension Bool: QueryArgumentConvertible { public var queryArgument: QueryArgument { .bool(self) } }
extension Date: QueryArgumentConvertible { public var queryArgument: QueryArgument { .date(self) } }
extension UUID: QueryArgumentConvertible { public var queryArgument: QueryArgument { .uuid(self) } }
extension Decimal: QueryArgumentConvertible { public var queryArgument: QueryArgument { .decimal(self) } }
extension Data: QueryArgumentConvertible { public var queryArgument: QueryArgument { .data(self) } }

extension Array: QueryArgumentConvertible where Element: QueryArgumentConvertible {
    /// A list of values, for `IN %@` and `BETWEEN %@`.
    public var queryArgument: QueryArgument {
        .values(map { if case .value(let v) = $0.queryArgument { v } else { .null } })
    }
}

extension Results {
    /// The results that also match `predicate`, with Swift values as arguments:
    /// `filter("name == %@ AND age > %d", name, minimumAge)`.
    public func filter<each A: QueryArgumentConvertible>(_ predicate: String, _ arguments: repeat each A) throws
        -> Results
    {
        var list: [QueryArgument] = []
        for a in repeat each arguments { list.append(a.queryArgument) }
        return try filter(predicate, arguments: list)
    }
}

extension TypedResults {
    /// See `Results.filter(_:_:)` with Swift values.
    public func filter<each A: QueryArgumentConvertible>(_ predicate: String, _ arguments: repeat each A) throws
        -> TypedResults
    {
        var list: [QueryArgument] = []
        for a in repeat each arguments { list.append(a.queryArgument) }
        return TypedResults(try results.filter(predicate, arguments: list))
    }
}
