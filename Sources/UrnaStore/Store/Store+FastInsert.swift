import Foundation

extension Store {
    /// Plain inserts of scalar values given in declaration order skip the general path: one cached
    /// statement per (type, value count), values bound as they come. Nil when the input needs the general path.
    func fastInsert(type t: ObjectSchema, values: [Value], update: UpdatePolicy) throws -> SQLValue? {
        guard update == .error else { return nil }
        let plan = try insertPlan(for: t, count: values.count)
        guard let plan else { return nil }
        let s = plan.statement
        for i in 0..<values.count {
            let index = Int32(i + 1)
            // The common exact matches bind directly; anything else goes through the full coercion.
            switch (plan.types[i], values[i]) {
            case (.string, .string(let x)): s.bindText(x, at: index)
            case (.int64, .int(let x)): s.bindInt(x, at: index)
            case (.double, .double(let x)): s.bindDouble(x, at: index)
            case (.bool, .bool(let x)): s.bindInt(x ? 1 : 0, at: index)
            default:
                let p = plan.properties[i]
                let v = try ValueCodec.coerce(values[i], to: p, in: t.name, schema: schema)
                switch ValueCodec.encode(v, as: p.type, schema: schema) {
                case .null: s.bindNull(at: index)
                case .integer(let x): s.bindInt(x, at: index)
                case .real(let x): s.bindDouble(x, at: index)
                case .text(let x): s.bindText(x, at: index)
                case .blob(let b): try s.bind(.blob(b), at: index)
                }
            }
        }
        do {
            try s.runToCompletion()
        } catch let e as SQLiteError where e.isConstraint && e.message.contains("UNIQUE") {
            throw StoreError.duplicatePrimaryKey(type: t.name, key: values.first.map { "\($0)" } ?? "?")
        }
        pendingChanges.inserted[t.name, default: 0] += 1
        bumpGeneration()
        if let pkIndex = plan.primaryKeyIndex { return ValueCodec.encodeKey(values[pkIndex]) }
        return try freshRowid(t)
    }

    func insertPlan(for t: ObjectSchema, count: Int) throws -> InsertPlan? {
        let cacheKey = InsertPlanKey(type: t.name, count: count)
        if let p = insertPlans[cacheKey] { return p.statement == nil ? nil : p.plan }
        let settable = t.properties.filter { !$0.ignored && !isInverse($0) }
        guard count <= settable.count else { return nil }
        let props = Array(settable.prefix(count))
        let simple = props.allSatisfy { p in
            switch p.type {
            case .link, .list, .embedded, .linkingObjects: false
            default: true
            }
        }
        guard simple, count > 0 else {
            insertPlans[cacheKey] = CachedInsertPlan(plan: nil)
            return nil
        }
        let sql =
            "INSERT INTO \(Identifier.quoted(t.name)) (\(props.map { Identifier.quoted($0.name) }.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        let plan = InsertPlan(
            statement: try connection.prepare(sql), properties: props,
            primaryKeyIndex: props.firstIndex { $0.primaryKey })
        insertPlans[cacheKey] = CachedInsertPlan(plan: plan)
        return plan
    }
}

/// A prepared INSERT for values given in declaration order.
final class InsertPlan {
    let statement: Statement
    let properties: [Property]
    let primaryKeyIndex: Int?
    let types: [PropertyType]
    init(statement: Statement, properties: [Property], primaryKeyIndex: Int?) {
        self.statement = statement
        self.properties = properties
        self.types = properties.map(\.type)
        self.primaryKeyIndex = primaryKeyIndex
    }
}

struct InsertPlanKey: Hashable {
    let type: String
    let count: Int
}

/// A cache slot: a plan, or the knowledge that this shape needs the general path.
struct CachedInsertPlan {
    let plan: InsertPlan?
    var statement: Statement? { plan?.statement }
}
