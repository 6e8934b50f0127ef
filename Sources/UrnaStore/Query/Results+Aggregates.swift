import Foundation

extension Results {
    /// The sum of a numeric property over the results (0 when empty); Realm's `sum(ofProperty:)`.
    public func sum(ofProperty name: String) throws -> Value {
        let p = try numericProperty(name)
        let v = try aggregate("sum", name)
        return ValueCodec.decode(v.isNull ? .integer(0) : v, as: p.type, schema: store.schema)
    }

    /// The smallest value of a numeric or date property, nil when empty.
    public func min(ofProperty name: String) throws -> Value? {
        let p = try numericProperty(name, allowDates: true)
        let v = try aggregate("min", name)
        if v.isNull { return Optional<Value>.none }  // not `nil`: Value is nil-literal convertible itself
        return ValueCodec.decode(v, as: p.type, schema: store.schema)
    }

    /// The largest value of a numeric or date property, nil when empty.
    public func max(ofProperty name: String) throws -> Value? {
        let p = try numericProperty(name, allowDates: true)
        let v = try aggregate("max", name)
        if v.isNull { return Optional<Value>.none }  // not `nil`: Value is nil-literal convertible itself
        return ValueCodec.decode(v, as: p.type, schema: store.schema)
    }

    /// The mean of a numeric property, nil when empty (money properties average in their own units).
    public func average(ofProperty name: String) throws -> Double? {
        let p = try numericProperty(name)
        let v = try aggregate("avg", name)
        guard case .real(let d) = v else { if case .integer(let i) = v { return Double(i) } else { return nil } }
        if case .decimal(let scale) = p.type { return d / pow(10, Double(scale)) }
        return d
    }

    /// The property a name or to-one key path (`party.number`) ends at, and its SQL over `t0`.
    private func numericProperty(_ name: String, allowDates: Bool = false) throws -> Property {
        try numericTerm(name, allowDates: allowDates).property
    }

    private func numericTerm(_ name: String, allowDates: Bool = false) throws -> (sql: String, property: Property) {
        let sql: String
        let p: Property
        if name.contains(".") {
            let term = try store.compiler.toOneTerm(name, on: type.name, alias: "t0", purpose: "aggregate")
            guard let found = term.property else { throw StoreError.unknownProperty(type: type.name, property: name) }
            (sql, p) = (term.sql, found)
        } else {
            guard let found = type[property: name], found.isStored else {
                throw StoreError.unknownProperty(type: type.name, property: name)
            }
            (sql, p) = ("t0.\(Identifier.quoted(name))", found)
        }
        switch p.type {
        case .int8, .int16, .int32, .int64, .float, .double, .decimal: return (sql, p)
        case .date where allowDates: return (sql, p)
        default:
            throw StoreError.typeMismatch(
                type: type.name, property: name, expected: allowDates ? "a number or a date" : "a number",
                got: p.type.name)
        }
    }

    private func aggregate(_ function: String, _ name: String) throws -> SQLValue {
        let (sql, bindings) = try selectSQL(columns: "\(try numericTerm(name, allowDates: true).sql) AS v")
        return try store.reading { try $0.scalar("SELECT \(function)(v) FROM (\(sql))", bindings) } ?? .null
    }
}

extension TypedResults {
    /// See `Results.sum(ofProperty:)`.
    public func sum(ofProperty name: String) throws -> Value { try results.sum(ofProperty: name) }
    /// See `Results.min(ofProperty:)`.
    public func min(ofProperty name: String) throws -> Value? { try results.min(ofProperty: name) }
    /// See `Results.max(ofProperty:)`.
    public func max(ofProperty name: String) throws -> Value? { try results.max(ofProperty: name) }
    /// See `Results.average(ofProperty:)`.
    public func average(ofProperty name: String) throws -> Double? { try results.average(ofProperty: name) }
}
