import Foundation
import UrnaStore

/// What a step reports: data it discards, samples before and after, closure activity.
extension StepExecutor {
    /// Non-nil values of removed properties, rows of removed lists, objects of removed types.
    func droppedData() throws -> [DroppedData] {
        var out: [DroppedData] = []
        for t in transfers {
            guard let old = t.old else { continue }
            let gone: [Property]
            if let n = t.new {
                gone = old.storedProperties.filter { p in
                    let kept = analysis.renames.keptName(type: t.name, oldName: p.name, in: n)
                    return !(kept.flatMap { n[property: $0] }?.isStored ?? false)
                }
            } else {
                gone = old.storedProperties
            }
            let objects = countsBefore[t.name] ?? 0
            if t.isRemoved {
                out.append(
                    DroppedData(type: t.name, property: nil, values: objects, readByClosure: try readByClosure(t, nil)))
            }
            if !gone.isEmpty, let counted = t.droppedCounts, t.droppedColumns.count == gone.count {
                for (k, c) in t.droppedColumns.enumerated() where counted[k] > 0 {
                    let name = t.oldColumns[c].name
                    out.append(
                        DroppedData(
                            type: t.name, property: name, values: counted[k], readByClosure: try readByClosure(t, name))
                    )
                }
            } else if !gone.isEmpty && objects > 0 {
                let cols = gone.map { "count(\(Identifier.quoted($0.name)))" }.joined(separator: ", ")
                let row = try connection.rows("SELECT \(cols) FROM \(oldRows(t))").first ?? []
                for (i, p) in gone.enumerated() {
                    if case .integer(let n) = row[i], n > 0 {
                        out.append(
                            DroppedData(
                                type: t.name, property: p.name, values: Int(n),
                                readByClosure: try readByClosure(t, p.name))
                        )
                    }
                }
            } else if !gone.isEmpty {
                for p in gone { out.append(DroppedData(type: t.name, property: p.name, values: 0)) }
            }
        }
        for d in analysis.droppedLists {
            let n = try count("SELECT count(*) FROM \(Identifier.quoted(d.table))")
            let read = try transfer(d.owner).map { try readByClosure($0, d.property) } ?? false
            out.append(DroppedData(type: d.owner, property: d.property, values: n, readByClosure: read))
        }
        return out
    }

    /// Whether the step's closure read `property` (nil: the removed type's objects) on every object of `t` before
    /// it went: the type read with no object left unseen, and the property read. `checkClosureLosses` trusts the
    /// closure with exactly this data; a type the closure cleared was discarded, not read.
    private func readByClosure(_ t: TypeTransfer, _ property: String?) throws -> Bool {
        guard step.closure != nil, !t.cleared, try closureReadType(t, property: property) else { return false }
        return property.map { t.oldColumnWasRead($0) } ?? true
    }

    /// What the closure never reached of type `t`, which it looked up by key (or through links) and never
    /// enumerated: for a removed type (`property` nil) the objects it never looked up (an orphan Profile no
    /// Customer pointed at); for a removed property the non-nil values on objects it never looked up (the habitat
    /// of a site no visit linked to). 0 when the type was enumerated.
    func unseenObjects(of t: TypeTransfer, property: String?) throws -> Int {
        guard t.enumerations == 0 else { return 0 }
        guard let property else { return (countsBefore[t.name] ?? 0) - t.rowsLookedUp.count }
        guard t.oldRead, t.oldIndex[property] != nil else { return 0 }
        if let known = t.unseenValues[property] { return known }
        let s = try connection.prepare(
            "SELECT rowid FROM \(oldRows(t)) WHERE \(Identifier.quoted(property)) IS NOT NULL")
        var unseen = 0
        while try s.step() {
            if case .integer(let rowid) = s.value(at: 0), !t.rowsLookedUp.contains(rowid) { unseen += 1 }
        }
        t.unseenValues[property] = unseen
        return unseen
    }

    /// Whether the closure read type `t` (enumerated it, or read its old objects) and left none unseen.
    func closureReadType(_ t: TypeTransfer, property: String?) throws -> Bool {
        guard t.enumerations > 0 || t.oldRead else { return false }
        return try unseenObjects(of: t, property: property) <= 0
    }

    /// Which types the samples cover: those the step changes (all of them when there is a closure).
    func sampledTypes() -> [TypeTransfer] {
        let diff = SchemaDiff(from: step.from, to: step.to, renames: step.renames)
        let changed = Set(diff.typeChanges.map(\.type))
        return transfers.filter { t in
            t.isAdded || t.isRemoved || changed.contains(t.name) || t.tableChanges || step.closure != nil
        }
    }

    func collectSamplesBefore() throws {
        guard sampleSize > 0 else { return }
        for t in sampledTypes() {
            guard let old = t.old, let layout = t.oldLayout else { continue }
            let s = try connection.prepare(analysis.selectOldSQL(t, from: oldRows(t)) + " LIMIT \(sampleSize)")
            var samples: [(SQLValue, ObjectSample)] = []
            while try s.step() {
                let values = (0..<t.oldColumns.count).map { s.value(at: $0) }
                let key = t.oldKeyIndex.map { values[$0] } ?? .null
                let o = MigrationObject(layout: layout, executor: self, values: values, originKey: key)
                samples.append((key, try render(o, schema: old)))
            }
            samplesBefore[t.name] = samples
        }
    }

    /// Before/after samples; called after the swap while the key maps still exist.
    func collectSamples() throws -> [TypeSample] {
        guard sampleSize > 0 else { return [] }
        var out: [TypeSample] = []
        for t in sampledTypes() {
            let before = samplesBefore[t.name] ?? []
            var after: [ObjectSample] = []
            if let n = t.new, let layout = t.newLayout {
                // A carried type's table still has its older form: its new rows are the SELECT the next step reads.
                let rows = fusion?.outgoing[t.name].map { "(\($0))" } ?? Identifier.quoted(t.name)
                let cols = (t.newColumns.map { Identifier.quoted($0.name) } + ["rowid"]).joined(separator: ", ")
                var keys: [SQLValue] = []
                if t.isAdded {
                    keys = try connection.rows(
                        "SELECT \(Identifier.quoted(n.keyColumn)) FROM \(Identifier.quoted(t.name)) ORDER BY rowid LIMIT \(sampleSize)"
                    ).map { $0[0] }
                } else {
                    for (origin, _) in before {
                        var key = Affinity.apply(origin, sqlType: t.newKeySQLType)
                        if t.hasKeyMap,
                            let mapped = try connection.scalar(
                                "SELECT \"new_key\" FROM \(t.keyMapTable) WHERE \"old_key\" = ?", [origin])
                        {
                            key = mapped
                        }
                        keys.append(key)
                    }
                }
                for key in keys {
                    let row = try connection.rows(
                        "SELECT \(cols) FROM \(rows) WHERE \(Identifier.quoted(n.keyColumn)) = ?",
                        [key]
                    ).first
                    guard let row else {
                        after.append(ObjectSample(key: "\(key)", fields: [SampleField(name: "(deleted)", value: "")]))
                        continue
                    }
                    let values = Array(row.prefix(t.newColumns.count))
                    let o = MigrationObject(layout: layout, executor: self, values: values, originKey: nil)
                    o.rowid = { if case .integer(let r) = row.last { r } else { nil } }()
                    after.append(try render(o, schema: n, listsFromFinalTables: true))
                }
            }
            if before.isEmpty && after.isEmpty { continue }
            out.append(TypeSample(type: t.name, before: before.map(\.1), after: after))
        }
        return out
    }

    func render(_ o: MigrationObject, schema: ObjectSchema, listsFromFinalTables: Bool = false) throws -> ObjectSample {
        var fields: [SampleField] = []
        for (i, c) in o.columns.enumerated() {
            let v =
                c.property == nil
                ? ValueCodec.decodeKey(o.values[i], keyType: .int64)
                : ValueCodec.decode(o.values[i], as: c.type, schema: o.schema)
            fields.append(SampleField(name: c.name, value: Self.text(v)))
        }
        for p in schema.properties where !p.ignored {
            guard case .list(let target) = p.type else { continue }
            let items: [LinkTarget]
            if listsFromFinalTables {
                guard let nk = o.transfer.newKeyIndex else { continue }
                items = try readList(
                    table: StorageLayout.listTable(type: schema.name, property: p.name), owner: o.values[nk],
                    target: target,
                    keyType: step.to[type: target]?.primaryKey?.type ?? .int64)
            } else {
                items = try listValue(of: o, property: p, target: target)
            }
            fields.append(SampleField(name: p.name, value: Self.text(.list(items))))
        }
        let key = o.role == .old ? o.originKey : o.transfer.newKeyIndex.map { o.values[$0] }
        return ObjectSample(key: key.map { "\($0)" } ?? "", fields: fields)
    }

    static func text(_ v: Value) -> String {
        switch v {
        case .null: "nil"
        case .string(let s): "\"\(s)\""
        case .link(let t): "→ \(t.type)(\(text(t.key)))"
        case .list(let l): "[" + l.map { "\($0.type)(\(text($0.key)))" }.joined(separator: ", ") + "]"
        default: v.description
        }
    }

    func activity() -> [TypeActivity] {
        transfers.compactMap { t in
            let a = TypeActivity(
                type: t.name, enumerated: t.enumerated, created: t.created, deleted: t.deleted, changed: t.changed,
                copied: t.rowsWritten, lossyValues: t.lossyValues)
            return a.isEmpty ? nil : a
        }
    }
}
