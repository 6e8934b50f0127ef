import Foundation
import UrnaStore

extension MigrationTestHarness {
    /// Every row of every family table (metadata left out), as text, sorted. An embedded object is compared as the
    /// store reads it: a property its JSON lacks (written before the embedded type gained it, and carried as it
    /// was) counts as its default, as a fresh file writes it.
    static func rows(_ path: String, schema: Schema? = nil) throws -> [String: [String]] {
        let c = try Connection(path: path, readOnly: true, create: false)
        var out: [String: [String]] = [:]
        for r in try c.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND lower(substr(name, 1, 7)) <> 'sqlite_' AND name NOT LIKE '\\_urna%' ESCAPE '\\'"
        ) {
            guard case .text(let name) = r[0] else { continue }
            let columns = try c.rows("PRAGMA table_info(\(Identifier.quoted(name)))").map { "\($0[1])" }
            let embedded: [ObjectSchema?] = columns.map { column in
                guard case .embedded(let target)? = schema?[type: name]?[property: column]?.type else { return nil }
                return schema?[type: target]
            }
            out[name] = try c.rows("SELECT * FROM \(Identifier.quoted(name))").map { row in
                row.indices.map { i in
                    if let schema, let type = embedded.indices.contains(i) ? embedded[i] : nil,
                        case .text(let json) = row[i]
                    {
                        return completedJSON(json, type: type, schema: schema)
                    }
                    return "\(row[i])"
                }.joined(separator: "|")
            }.sorted()
        }
        return out
    }

    /// An embedded object's JSON with the properties it lacks at their defaults, keys sorted.
    static func completedJSON(_ json: String, type: ObjectSchema, schema: Schema) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else {
            return json
        }
        for p in type.properties where p.isStored && object[p.name] == nil {
            switch ValueCodec.encode(p.effectiveDefault, as: p.type, schema: schema) {
            case .null: object[p.name] = NSNull()
            case .integer(let i): object[p.name] = i
            case .real(let d): object[p.name] = d
            case .text(let t): object[p.name] = t
            case .blob(let b): object[p.name] = Data(b).base64EncodedString()
            }
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return json
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Which tables differ and how: up to three rows only `actual` has and three only `expected` has, per table.
    static func differences(_ actual: [String: [String]], _ expected: [String: [String]], expectedName: String)
        -> String
    {
        var parts: [String] = []
        for table in Set(actual.keys).union(expected.keys).sorted() {
            let a = actual[table] ?? []
            let e = expected[table] ?? []
            guard a != e else { continue }
            let onlyActual = a.filter { !e.contains($0) }
            let onlyExpected = e.filter { !a.contains($0) }
            var text = "\(table) (\(a.count) rows here, \(e.count) in \(expectedName))"
            if !onlyActual.isEmpty { text += "; only here: " + onlyActual.prefix(3).joined(separator: ", ") }
            if !onlyExpected.isEmpty {
                text += "; only in \(expectedName): " + onlyExpected.prefix(3).joined(separator: ", ")
            }
            parts.append(text)
        }
        return parts.joined(separator: "; ")
    }
}
