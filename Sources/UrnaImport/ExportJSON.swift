import Foundation
import UrnaStore

/// JSON lines: one object per line, keys in declaration order, read straight from the storage contract
/// (`StorageLayout`), so any type of any family exports. Links are the target's key, lists arrays of keys
/// in list order, inverse links left out (they are other objects' links). Money (`decimal`) is an exact
/// JSON number (`3669.04`), dates the store's ISO text, data base64.
///
/// ```json
/// {"id":"297/130000614380","sequence":130000614380,"election":"297",...,"party":27,"goods":["297/130000614380/1"]}
/// ```
extension ElectionExporter {
    func writeJSONLines(to sink: ExportSink, summary: inout ExportSummary) throws {
        let fields = type.properties.filter { p in
            if p.ignored { return false }
            if case .linkingObjects = p.type { return false }
            return true
        }
        let stored = fields.filter(\.isStored)
        let hiddenKey = type.primaryKey == nil
        let keyType = type.primaryKey?.type ?? .int64
        // Column 0 is always the key (for list lookups), then the stored properties.
        let select =
            ["t0.\(Identifier.quoted(type.keyColumn))"] + stored.map { "t0.\(Identifier.quoted($0.name))" }
        let cursor = try prepare(
            "SELECT \(select.joined(separator: ", ")) FROM \(Identifier.quoted(type.name)) t0" + whereClause()
                + " ORDER BY t0.\(Identifier.quoted(type.keyColumn))")
        var lists: [String: Statement] = [:]
        for p in fields {
            guard case .list = p.type else { continue }
            let table = Identifier.quoted(StorageLayout.listTable(type: type.name, property: p.name))
            lists[p.name] = try connection.prepare(
                "SELECT \"target\" FROM \(table) WHERE \"owner\" = ?1 ORDER BY \"position\"")
        }
        let names = fields.map { Array("\"\($0.name)\":".utf8) }
        while try cursor.step() {
            let key = cursor.value(at: 0)
            let shownKey = Self.plain(key)
            try sink.byte(0x7B)
            var first = true
            if hiddenKey {
                try sink.ascii("\"\(ObjectSchema.rowIdColumn)\":")
                try jsonValue(key, as: keyType, to: sink, key: shownKey, column: ObjectSchema.rowIdColumn)
                first = false
            }
            var column = 1
            for (i, p) in fields.enumerated() {
                if !first { try sink.byte(0x2C) }
                first = false
                try sink.bytes(names[i])
                if let list = lists[p.name] {
                    try list.bind(key, at: 1)
                    try sink.byte(0x5B)
                    var n = 0
                    while try list.step() {
                        if n > 0 { try sink.byte(0x2C) }
                        try jsonKey(list.value(at: 0), to: sink, key: shownKey, column: p.name)
                        n += 1
                    }
                    list.reset()
                    try sink.byte(0x5D)
                } else {
                    try jsonValue(cursor.value(at: column), as: p.type, to: sink, key: shownKey, column: p.name)
                    column += 1
                }
            }
            try sink.ascii("}\n")
            summary.objects += 1
        }
    }

    private func jsonValue(_ v: SQLValue, as type: PropertyType, to sink: ExportSink, key: String, column: String)
        throws
    {
        switch (v, type) {
        case (.null, _): try sink.ascii("null")
        case (.integer(let i), .bool): try sink.ascii(i != 0 ? "true" : "false")
        case (.integer(let i), .decimal(let scale)): try sink.ascii(Self.decimalText(i, scale: scale))
        case (.integer(let i), _): try sink.ascii(String(i))
        case (.real(let d), _): try sink.ascii(d.isFinite ? String(d) : "null")
        case (.text(let s), .embedded): try write(s, .plain, to: sink, type: self.type.name, key: key, column: column)
        case (.text(let s), _): try jsonString(s, to: sink, key: key, column: column)
        case (.blob(let b), _): try jsonString(Data(b).base64EncodedString(), to: sink, key: key, column: column)
        }
    }

    private func jsonKey(_ v: SQLValue, to sink: ExportSink, key: String, column: String) throws {
        switch v {
        case .integer(let i): try sink.ascii(String(i))
        case .text(let s): try jsonString(s, to: sink, key: key, column: column)
        default: try jsonValue(v, as: .string, to: sink, key: key, column: column)
        }
    }

    private func jsonString(_ s: String, to sink: ExportSink, key: String, column: String) throws {
        try sink.byte(0x22)
        try write(s, .json, to: sink, type: type.name, key: key, column: column)
        try sink.byte(0x22)
    }

    /// `366904` at scale 2 is `3669.04`; exact, no floating point.
    static func decimalText(_ scaled: Int64, scale: Int) -> String {
        guard scale > 0 else { return String(scaled) }
        let digits = String(scaled.magnitude)
        let padded = digits.count <= scale ? String(repeating: "0", count: scale - digits.count + 1) + digits : digits
        let cut = padded.index(padded.endIndex, offsetBy: -scale)
        return (scaled < 0 ? "-" : "") + padded[..<cut] + "." + padded[cut...]
    }

    static func plain(_ v: SQLValue) -> String {
        switch v {
        case .null: "nil"
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .text(let s): s
        case .blob(let b): "\(b.count) bytes"
        }
    }
}
