import Foundation
import UrnaStore
import UrnaTestSupport

@testable import UrnaMigrator

/// Generated multi-step families over three types (Owner ← Item → [Tag]) that mix the changes the migrator copies
/// with SQL (added properties, conversions, optionality, renames, re-keys, indexes, primary keys) with closure
/// steps (reads, writes, creations, deletions, inverse lookups, keyed lookups), for comparing fused and stepwise
/// runs.
struct FusionFamilyGenerator {
    /// One property of the model, followed across versions by `id`.
    struct P {
        var id: Int
        var name: String
        var type: PropertyType
        var optional = false
        var def: DefaultValue? = nil
        var indexed = false
        var pk = false
        var property: Property {
            Property(name, type, optional: optional, default: def, indexed: indexed, primaryKey: pk)
        }
    }

    /// The three types, as the current version has them.
    struct Model {
        var owner: [P]
        var item: [P]
        var tag: [P]
        func schema(_ version: Int) -> Schema {
            try! Schema(
                family: "fz", version: version,
                types: [
                    ObjectSchema("Owner", owner.map(\.property)), ObjectSchema("Item", item.map(\.property)),
                    ObjectSchema("Tag", tag.map(\.property)),
                ])
        }
    }

    /// What a generated step's closure does (names as the step's old and new versions have them).
    enum Op: Sendable, CustomStringConvertible {
        case writeItems(target: String, type: PropertyType, source: String)
        case deleteOwners(modulo: Int)
        case createTags(count: Int, version: Int, keyed: Bool)
        case createItems(count: Int, version: Int)
        case deleteItems(modulo: Int)
        case countOwnerItems(target: String)
        case lookUpItems(target: String)
        case readItems
        case rekeyOwners(prefix: String, fromInt: Bool)
        case deleteTagData
        case deleteItemData
        case closureRename(type: String, from: String, to: String)
        case readOwnerThroughLink(target: String, owner: String, name: String)
        /// Reads every Item (a read-only pass) but sets `flag` on the one with key `at`: the pass ends there.
        case readItemsSettingOne(flag: String, at: Int64)
        /// Reads every Item; at the object with key `at`, looks up new Item objects (one before it, one after).
        case readItemsLookingUp(at: Int64)
        /// Reads every Item, keeps the new object with key `at` and sets `flag` on it after the enumeration.
        case readItemsKeepingOne(flag: String, at: Int64)
        var description: String {
            switch self {
            case .writeItems(let t, _, let s): "Item.\(t) ← f(old.\(s))"
            case .deleteOwners(let m): "delete Owners id%\(m)==0"
            case .createTags(let n, _, _): "create \(n) Tags"
            case .createItems(let n, _): "create \(n) Items"
            case .deleteItems(let m): "delete Items id%\(m)==0"
            case .countOwnerItems(let t): "Owner.\(t) ← inverse count"
            case .lookUpItems(let t): "Tag.\(t) ← oldObject(Item)"
            case .readItems: "read Items"
            case .rekeyOwners(let p, _): "re-key Owners \(p)<id>"
            case .deleteTagData: "deleteData(Tag)"
            case .deleteItemData: "deleteData(Item)"
            case .closureRename(let t, let f, let to): "renameProperty(\(t).\(f) → \(to))"
            case .readOwnerThroughLink(let t, _, _): "Item.\(t) ← old.owner.linked().name"
            case .readItemsSettingOne(_, let k): "read Items, set flag on \(k)"
            case .readItemsLookingUp(let k): "read Items, look up new Items at \(k)"
            case .readItemsKeepingOne(_, let k): "read Items, keep \(k), set its flag after"
            }
        }
    }

    /// A generated family and how it was made (for messages).
    struct Family {
        var family: SchemaFamily
        var description: [String]
        /// Allowances the run is given (loss of converted or removed properties).
        var allowances: [MigrationAllowance]
        var v0: Schema
    }

    /// When set, the last step fails on the Item with this id: by throwing, or by cancelling.
    enum Failure: Sendable {
        case throwAt(Int64)
        case cancelAt(Int64, MigrationCancellation)
        var id: Int64 {
            switch self {
            case .throwAt(let i), .cancelAt(let i, _): i
            }
        }
    }

    /// Objects seen by an injected failure's enumeration.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n: Int64 = 0
        func next() -> Int64 {
            lock.withLock {
                n += 1
                return n
            }
        }
    }

    struct Injected: Error, CustomStringConvertible {
        var description: String { "injected failure" }
    }

    static func v0Model() -> Model {
        Model(
            owner: [
                P(id: 1, name: "id", type: .int64, pk: true), P(id: 2, name: "name", type: .string, def: ""),
                P(id: 3, name: "items", type: .linkingObjects(type: "Item", property: "owner")),
            ],
            item: [
                P(id: 10, name: "id", type: .int64, pk: true), P(id: 11, name: "n", type: .int64, def: 0),
                P(id: 12, name: "s", type: .string, optional: true),
                P(id: 13, name: "x", type: .double, optional: true),
                P(id: 14, name: "owner", type: .link("Owner"), optional: true),
                P(id: 15, name: "tags", type: .list("Tag")), P(id: 16, name: "flag", type: .bool, def: false),
            ],
            tag: [
                P(id: 20, name: "name", type: .string, pk: true), P(id: 21, name: "w", type: .double, optional: true),
            ])
    }

    /// A family of `versions` versions made from `seed`; `failure` is injected in its last step.
    static func make(seed: UInt64, versions: Int, failure: Failure? = nil) -> Family {
        var rng = SeededRandom(seed: seed)
        var model = v0Model()
        let v0 = model.schema(0)
        var list = [SchemaVersion(v0)]
        var lines: [String] = []
        var allowances: [MigrationAllowance] = []
        var nextID = 100
        for v in 1..<versions {
            let old = model
            var renames: [PropertyRename] = []
            var stepAllowances: [MigrationAllowance] = []
            var ops: [Op] = []
            var changes: [String] = []
            let changeCount = Int.random(in: 0...2, using: &rng)
            for _ in 0..<changeCount {
                switch Int.random(in: 0..<9, using: &rng) {
                case 0, 1:  // an added property with a default (or optional)
                    nextID += 1
                    let kinds: [(PropertyType, DefaultValue?, Bool)] = [
                        (.int64, .int(Int64(v)), false), (.string, .string("d\(v)"), false), (.double, nil, true),
                        (.bool, .bool(true), false), (.string, nil, true),
                    ]
                    let k = kinds.randomElement(using: &rng)!
                    let p = P(
                        id: nextID, name: "a\(nextID)", type: k.0, optional: k.2, def: k.1,
                        indexed: Bool.random(using: &rng) && k.0 != .double)
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: model.item.append(p)
                    case 1: model.owner.append(p)
                    default: model.tag.append(p)
                    }
                    changes.append("add \(p.name): \(k.0)")
                case 2:  // Item.n changes kind: int64 → string → double → int64
                    let i = model.item.firstIndex { $0.id == 11 }!
                    let next: (PropertyType, DefaultValue) =
                        switch model.item[i].type {
                        case .int64: (.string, .string("0"))
                        case .string: (.double, .double(0))
                        default: (.int64, .int(0))
                        }
                    model.item[i].type = next.0
                    model.item[i].def = next.1
                    model.item[i].indexed = false
                    let allowance = MigrationAllowance.lossyConversion(type: "Item", property: model.item[i].name)
                    switch Int.random(in: 0..<4, using: &rng) {
                    case 0: allowances.append(allowance)
                    case 3: break  // nobody allowed it: both modes must refuse alike
                    default: stepAllowances.append(allowance)
                    }
                    changes.append("Item.\(model.item[i].name) → \(next.0)")
                case 3:  // Item.s optional <-> required with a default
                    let i = model.item.firstIndex { $0.id == 12 }!
                    model.item[i].optional.toggle()
                    model.item[i].def = model.item[i].optional ? nil : .string("none")
                    changes.append("Item.\(model.item[i].name) optional: \(model.item[i].optional)")
                case 4:  // a rename
                    let pick = Int.random(in: 0..<2, using: &rng)
                    let candidates = (pick == 0 ? model.item : model.tag).indices.filter {
                        let p = (pick == 0 ? model.item : model.tag)[$0]
                        if case .link = p.type { return false }
                        if case .list = p.type { return false }
                        return !p.pk
                    }
                    guard let i = candidates.randomElement(using: &rng) else { break }
                    let typeName = pick == 0 ? "Item" : "Tag"
                    let from = pick == 0 ? model.item[i].name : model.tag[i].name
                    let to = "r\(v)_\(from.prefix(8))"
                    if pick == 0 { model.item[i].name = to } else { model.tag[i].name = to }
                    // Declared, or asked for by the closure (`Migration.renameProperty`) before anything else.
                    if Bool.random(using: &rng) {
                        renames.append(PropertyRename(type: typeName, from: from, to: to))
                        changes.append("rename \(typeName).\(from) → \(to)")
                    } else {
                        ops.insert(.closureRename(type: typeName, from: from, to: to), at: 0)
                        changes.append("closure renames \(typeName).\(from) → \(to)")
                    }
                case 5:  // an index toggled
                    let candidates = model.item.indices.filter {
                        !model.item[$0].pk && model.item[$0].type != .double && model.item[$0].type.isColumn
                            && model.item[$0].id != 14
                    }
                    guard let i = candidates.randomElement(using: &rng) else { break }
                    model.item[i].indexed.toggle()
                    changes.append("Item.\(model.item[i].name) indexed: \(model.item[i].indexed)")
                case 6:  // Tag's primary key removed or added back
                    let i = model.tag.firstIndex { $0.id == 20 }!
                    model.tag[i].pk.toggle()
                    model.tag[i].def = model.tag[i].pk ? nil : .string("")
                    changes.append("Tag.\(model.tag[i].name) primary key: \(model.tag[i].pk)")
                case 7:  // Owner re-keyed (links from Item rewritten)
                    let i = model.owner.firstIndex { $0.id == 1 }!
                    let fromInt = model.owner[i].type == .int64
                    model.owner[i].type = .string
                    ops.append(.rekeyOwners(prefix: "O\(v)-", fromInt: fromInt))
                    changes.append("re-key Owner")
                default:  // an added property removed (its values dropped by permission)
                    guard let i = model.item.indices.filter({ model.item[$0].id > 100 }).randomElement(using: &rng)
                    else { break }
                    stepAllowances.append(.discard(type: "Item", property: model.item[i].name))
                    changes.append("remove Item.\(model.item[i].name)")
                    model.item.remove(at: i)
                }
            }
            // Closure work, in about two steps of five.
            if Int.random(in: 0..<5, using: &rng) < 2 {
                for _ in 0..<Int.random(in: 1...2, using: &rng) {
                    switch Int.random(in: 0..<9, using: &rng) {
                    case 0:
                        let both = model.item.filter { p in
                            old.item.contains { $0.id == p.id && $0.name == p.name } && p.id > 100
                                && (p.type == .int64 || p.type == .string)
                        }
                        if let t = both.randomElement(using: &rng), let s = old.item.first(where: { $0.id == 12 }) {
                            ops.append(.writeItems(target: t.name, type: t.type, source: s.name))
                        }
                    case 1: ops.append(.deleteOwners(modulo: Int.random(in: 3...7, using: &rng)))
                    case 2:
                        ops.append(
                            .createTags(
                                count: Int.random(in: 1...5, using: &rng), version: v,
                                keyed: model.tag.contains { $0.pk }))
                    case 3: ops.append(.createItems(count: Int.random(in: 1...4, using: &rng), version: v))
                    case 4: ops.append(.deleteItems(modulo: Int.random(in: 5...11, using: &rng)))
                    case 5:
                        if let t = model.owner.first(where: { $0.id == 2 }) {
                            ops.append(.countOwnerItems(target: t.name))
                        }
                    case 6:
                        if let t = model.tag.first(where: { $0.id == 21 }) { ops.append(.lookUpItems(target: t.name)) }
                    case 7:
                        let strings = model.item.filter { p in
                            old.item.contains { $0.id == p.id && $0.name == p.name } && p.id > 100 && p.type == .string
                        }
                        if let t = strings.randomElement(using: &rng), let o = old.item.first(where: { $0.id == 14 }),
                            let name = old.owner.first(where: { $0.id == 2 })
                        {
                            ops.append(.readOwnerThroughLink(target: t.name, owner: o.name, name: name.name))
                        } else {
                            ops.append(.readItems)
                        }
                    default:
                        switch Int.random(in: 0..<6, using: &rng) {
                        case 0: ops.append(.deleteTagData)
                        case 1: ops.append(.deleteItemData)
                        default: break
                        }
                    }
                }
            }
            // Read-only passes that something ends (fused runs write a read-only pass's objects after the closure),
            // from a stream of their own: the families above stay what they were for every seed.
            var extra = SeededRandom(seed: seed &* 31 &+ UInt64(v))
            // A step that removes an Item property and only reads Items: the column is dropped in place (fused).
            if changes.contains(where: { $0.hasPrefix("remove Item.") }), Bool.random(using: &extra) {
                ops.append(.readItems)
            }
            if Int.random(in: 0..<4, using: &extra) == 0, let flag = model.item.first(where: { $0.id == 16 })?.name {
                let at = Int64.random(in: 0...60, using: &extra)
                switch Int.random(in: 0..<3, using: &extra) {
                case 0: ops.append(.readItemsSettingOne(flag: flag, at: at))
                case 1: ops.append(.readItemsLookingUp(at: at))
                default: ops.append(.readItemsKeepingOne(flag: flag, at: at))
                }
            }
            if changes.isEmpty && ops.isEmpty {
                nextID += 1
                model.item.append(P(id: nextID, name: "a\(nextID)", type: .int64, def: .int(7)))
                changes.append("add a\(nextID)")
            }
            let last = v == versions - 1
            let injected = last ? failure : nil
            let closureOps = ops
            var closure: MigrationClosure? = nil
            if !closureOps.isEmpty || injected != nil {
                let counter = Counter()
                closure = { @Sendable (m: Migration) throws -> Void in
                    // The failure comes first (later work may delete every Item) at the N-th Item, or at the end.
                    if let injected {
                        try m.enumerateObjects(ofType: "Item") { _, _ in
                            guard counter.next() == injected.id else { return }
                            if case .cancelAt(_, let c) = injected { c.cancel() } else { throw Injected() }
                        }
                        if case .cancelAt(_, let c) = injected { c.cancel() } else { throw Injected() }
                    }
                    for op in closureOps { try Self.perform(op, m) }
                }
            }
            lines.append(
                "v\(v): \(changes.joined(separator: ", ")) | \(ops.map(\.description).joined(separator: ", "))")
            list.append(
                SchemaVersion(
                    model.schema(v),
                    step: MigrationStep(
                        "generated v\(v)", renames: renames, allowances: stepAllowances, migration: closure)))
        }
        return Family(
            family: SchemaFamily(name: "fz", versions: list), description: lines, allowances: allowances, v0: v0)
    }

    static func perform(_ op: Op, _ m: Migration) throws {
        switch op {
        case .writeItems(let target, let type, let source):
            try m.enumerateObjects(ofType: "Item") { o, n in
                let s = o[source]
                let text: String = if case .string(let t) = s { t } else { "nil" }
                let tags: Int = if case .list(let l) = o["tags"] { l.count } else { -1 }
                n[target] = type == .int64 ? .int(Int64(text.unicodeScalars.count * 10 + tags)) : .string("w:" + text)
            }
        case .deleteOwners(let modulo):
            try m.enumerateObjects(ofType: "Owner") { o, n in
                let k = o.primaryKeyValue
                let h: Int64 =
                    switch k {
                    case .int(let i): i
                    case .string(let s): Int64(s.unicodeScalars.reduce(0) { $0 &+ Int($1.value) })
                    default: 0
                    }
                if h % Int64(modulo) == 0 { try m.delete(n) }
            }
        case .createTags(let count, let version, let keyed):
            for i in 0..<count {
                let name = keyed || i % 2 == 0 ? "new\(version)-\(i)" : "new\(version)-\(i)-unkeyed"
                try m.create("Tag", value: [m.newSchema[type: "Tag"]!.properties[0].name: .string(name)])
            }
        case .createItems(let count, let version):
            let key = m.newSchema[type: "Item"]!.primaryKey!.name
            for i in 0..<count { try m.create("Item", value: [key: .int(Int64(100_000 + version * 100 + i))]) }
        case .deleteItems(let modulo):
            try m.enumerateObjects(ofType: "Item") { o, n in
                if case .int(let i) = o.primaryKeyValue, i % Int64(modulo) == 0 { try m.delete(n) }
            }
        case .countOwnerItems(let target):
            try m.enumerateObjects(ofType: "Owner") { o, n in
                let count: Int = if case .list(let l) = o["items"] { l.count } else { -1 }
                n[target] = .string("\(o[target])#\(count)")
            }
        case .lookUpItems(let target):
            try m.enumerateObjects(ofType: "Tag") { o, n in
                var found = 0
                for k in [Int64(0), 1, 5, 77, 1000] where try m.oldObject(ofType: "Item", forPrimaryKey: .int(k)) != nil
                {
                    found += 1
                }
                n[target] = .double(Double(found) + 0.5)
            }
        case .readItems:
            try m.enumerateObjects(ofType: "Item") { o, _ in _ = o.primaryKeyValue }
        case .rekeyOwners(let prefix, _):
            try m.enumerateObjects(ofType: "Owner") { o, n in
                n[m.newSchema[type: "Owner"]!.primaryKey!.name] = .string(prefix + "\(o.primaryKeyValue)")
            }
        case .deleteTagData:
            try m.deleteData(forType: "Tag")
        case .deleteItemData:
            try m.deleteData(forType: "Item")
        case .closureRename(let type, let from, let to):
            try m.renameProperty(onType: type, from: from, to: to)
        case .readItemsSettingOne(let flag, let at):
            try m.enumerateObjects(ofType: "Item") { o, n in
                if o.primaryKeyValue == .int(at) { n[flag] = .bool(true) }
            }
        case .readItemsLookingUp(let at):
            try m.enumerateObjects(ofType: "Item") { o, _ in
                guard o.primaryKeyValue == .int(at) else { return }
                for k in [at - 1, at + 1] {
                    _ = try m.newObject(ofType: "Item", forPrimaryKey: .int(k))?.primaryKeyValue
                }
            }
        case .readItemsKeepingOne(let flag, let at):
            var kept: MigrationObject?
            try m.enumerateObjects(ofType: "Item") { o, n in
                if o.primaryKeyValue == .int(at) { kept = n }
            }
            kept?[flag] = .bool(true)
        case .readOwnerThroughLink(let target, let owner, let name):
            try m.enumerateObjects(ofType: "Item") { o, n in
                guard let linked = try o.linked(owner) else {
                    n[target] = .string("no owner")
                    return
                }
                n[target] = .string("\(linked.primaryKeyValue)/\(linked[name])")
            }
        }
    }
}
