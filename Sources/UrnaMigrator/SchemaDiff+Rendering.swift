import Foundation
import UrnaStore

extension SchemaDiff {
    /// The diff for people: one block per type, one line per change.
    ///
    /// ```
    /// people v0 → v1
    ///   Person
    ///     + fullName: string = ""
    ///     - firstName: string = ""
    /// ```
    public func renderText() -> String {
        var lines = ["\(family) v\(fromVersion) → v\(toVersion)"]
        lines += renderLines(indent: "  ")
        return lines.joined(separator: "\n") + "\n"
    }

    func renderLines(indent: String) -> [String] {
        if isEmpty { return [indent + "no schema changes"] }
        var lines: [String] = []
        for t in typesAdded { lines.append("\(indent)+ type \(t)") }
        for t in typesRemoved { lines.append("\(indent)- type \(t) (its table and data are dropped)") }
        for c in typeChanges {
            lines.append("\(indent)\(c.type)")
            let i2 = indent + "  "
            for p in c.added { lines.append("\(i2)+ \(p.name): \(p.type)") }
            for p in c.removed { lines.append("\(i2)- \(p.name): \(p.type)") }
            for r in c.renamed { lines.append("\(i2)~ \(r.from) → \(r.to) (renamed, data kept)") }
            for r in c.retyped {
                let note: String
                switch r.conversion {
                case .identical: note = ""
                case .widening: note = " (automatic: \(r.reason))"
                case .needsClosure: note = " (needs the closure or an allowance: \(r.reason))"
                }
                lines.append("\(i2)* \(r.property): \(r.from) → \(r.to)\(note)")
            }
            for p in c.indexesAdded { lines.append("\(i2)+ index on \(p)") }
            for p in c.indexesRemoved { lines.append("\(i2)- index on \(p)") }
            if let k = c.primaryKey { lines.append("\(i2)* primary key: \(k.from ?? "_id") → \(k.to ?? "_id")") }
            for o in c.other { lines.append("\(i2)* \(o)") }
        }
        return lines
    }

    /// The diff as one JSON object (stable key order).
    public func renderJSON() -> String { JSONRendering.encode(self) }
}

/// Stable, pretty JSON for reports.
enum JSONRendering {
    static func encode<T: Encodable>(_ value: T) -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? e.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
