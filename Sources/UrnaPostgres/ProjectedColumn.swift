import Foundation
import UrnaStore

/// One `--fields` key path read on the server: its SELECT expression, converted as the working copy stores
/// the value (`PostgresColumnKind.selectExpression`), and the `FieldProjection.Output` its text decodes to.
public struct ProjectedColumn: Sendable {
    /// The SELECT expression (a column, a correlated subquery, or a JSON array of a list's values as text).
    public let sql: String
    /// What messages call it: `Candidate.party.acronym`.
    let label: String
    let kind: PostgresColumnKind
    let type: PropertyType
    let many: Bool
    let elementKeys: Bool
    let schema: Schema

    init(term: QueryCompiler.ProjectedTerm, label: String, schema: Schema) {
        self.label = label
        let kind: PostgresColumnKind
        switch term.type {
        case .link(let target): kind = PostgresColumnKind.keyKind(of: target, in: schema)
        case .embedded: kind = .json
        default: kind = PostgresColumnKind.of(Property("v", term.type), in: schema)
        }
        let value = kind.selectExpression("(\(term.value))")
        switch (term.from, term.order) {
        case (nil, _): sql = value
        case (let from?, nil): sql = "(SELECT \(value) \(from))"
        case (let from?, let order?): sql = "(SELECT json_agg((\(value))::text ORDER BY \(order)) \(from))"
        }
        self.kind = kind
        self.type = term.type
        self.many = term.order != nil
        self.elementKeys = term.elementKeys
        self.schema = schema
    }

    /// The output for the text the server sent for this column.
    func output(_ text: String?) throws -> FieldProjection.Output {
        guard many else { return .value(try decode(text)) }
        guard let text else { return .values([]) }  // json_agg of no rows
        guard
            let array = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? [Any]
        else {
            throw PostgresTransferError.badValue(
                column: label, value: String(text.prefix(40)), expected: "a JSON array")
        }
        return .values(try array.map { try decode($0 as? String) })
    }

    private func decode(_ text: String?) throws -> Value {
        let stored = try kind.sqliteValue(text, column: label)
        if elementKeys, case .link(let target) = type {
            if case .null = stored { return .null }
            return ValueCodec.decodeKey(stored, keyType: schema[type: target]?.primaryKey?.type ?? .int64)
        }
        return ValueCodec.decode(stored, as: type, schema: schema)
    }
}
