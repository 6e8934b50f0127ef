import Foundation

/// A declared view of a type (seed 002's projections): pass a property through, rename it, resolve a
/// key path through links (`party.acronym`), or map a list to its members' values (`goods.value`).
///
/// ```swift
/// let card = try FieldProjection(type: candidateType, spec: "nickname,party.acronym,total=goods.value")
/// for c in results { print(try card.apply(to: c)) }
/// ```
public struct FieldProjection: Sendable {
    /// One projected field: the name it shows under and the key path it reads.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let keyPath: String
        public init(name: String, keyPath: String) {
            self.name = name
            self.keyPath = keyPath
        }
    }

    /// A projected value: one value, or the values of a list's members.
    public enum Output: Sendable, Equatable {
        case value(Value)
        case values([Value])
    }

    public let typeName: String
    public let fields: [Field]

    /// A projection from fields; every key path is checked against the schema now.
    public init(type: ObjectSchema, fields: [Field], schema: Schema) throws {
        self.typeName = type.name
        self.fields = fields
        for f in fields { try FieldProjection.check(f.keyPath, from: type, schema: schema) }
    }

    /// A projection from text: `a,b,alias=party.acronym` (comma-separated; `alias=` renames).
    public init(type: ObjectSchema, spec: String, schema: Schema) throws {
        let fields = spec.split(separator: ",").map { part -> Field in
            let p = part.trimmingCharacters(in: .whitespaces)
            if let eq = p.firstIndex(of: "=") {
                return Field(name: String(p[..<eq]), keyPath: String(p[p.index(after: eq)...]))
            }
            return Field(name: p, keyPath: p)
        }
        try self.init(type: type, fields: fields, schema: schema)
    }

    static func check(_ path: String, from type: ObjectSchema, schema: Schema) throws {
        var current = type
        let parts = path.split(separator: ".").map(String.init)
        guard !parts.isEmpty else { throw StoreError.unknownProperty(type: type.name, property: path) }
        for (i, name) in parts.enumerated() {
            if name == "@count", i == parts.count - 1, i > 0 { return }
            guard let p = current[property: name] else {
                throw StoreError.unknownProperty(type: current.name, property: name)
            }
            let isLast = i == parts.count - 1
            switch p.type {
            case .link(let t), .list(let t), .linkingObjects(let t, _), .embedded(let t):
                guard let next = schema[type: t] else { throw StoreError.unknownType(t) }
                current = next
            default:
                if !isLast { throw StoreError.unknownProperty(type: current.name, property: parts[i + 1]) }
            }
        }
    }

    /// The projected fields of one object, in declaration order.
    public func apply(to object: DynamicObject) throws -> [(String, Output)] {
        try fields.map { ($0.name, try FieldProjection.resolve($0.keyPath, on: object)) }
    }

    /// Reads a key path; lists and inverse links along the way give `.values`.
    public static func resolve(_ path: String, on object: DynamicObject) throws -> Output {
        let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        let head = parts[0]
        guard let p = object.type[property: head] else {
            throw StoreError.unknownProperty(type: object.type.name, property: head)
        }
        let rest = parts.count > 1 ? parts[1] : nil
        switch p.type {
        case .link:
            guard let rest else { return .value(try object.value(forKey: head)) }
            guard let next = try object.linked(head) else { return .value(.null) }
            return try resolve(rest, on: next)
        case .list, .linkingObjects:
            let members: Results
            if case .list = p.type {
                members = try object.list(head)
            } else {
                members = try object.linkingObjects(head)
            }
            guard let rest else { return .values(members.map { $0.primaryKeyValue }) }
            if rest == "@count" { return .value(.int(Int64(try members.count))) }
            var out: [Value] = []
            for m in members {
                switch try resolve(rest, on: m) {
                case .value(let v): out.append(v)
                case .values(let vs): out += vs
                }
            }
            return .values(out)
        case .embedded:
            guard let rest else { return .value(try object.value(forKey: head)) }
            guard case .embedded(let e) = try object.value(forKey: head) else { return .value(.null) }
            return .value(e[rest] ?? .null)
        default:
            return .value(try object.value(forKey: head))
        }
    }
}
