import Foundation
import UrnaStore

/// The bytes a plan's steps add beyond the tables they rewrite, estimated from the file before the run: the
/// columns and keys a step adds to a type's rows, and the objects of types a step creates from what it takes
/// away. `Migrator.spaceNeed` adds them to the rewritten tables' bytes; without them a chain that gave 300,000
/// grades a UUID key and made 40,000 enrollments out of a list grew by more than the figure checked before it.
struct SpaceGrowth {
    /// Measures tables and counts rows on `connection`, caching each.
    let connection: Connection
    private var bytesCache: [String: Int64] = [:]
    private var rowsCache: [String: Int64] = [:]

    init(connection: Connection) { self.connection = connection }

    /// The bytes of a table with its indexes (and, with `lists`, the list tables named `table_property`), read
    /// with `dbstat`; 0 for a table the file does not hold.
    mutating func bytes(ofTable table: String, lists: Bool) throws -> Int64 {
        let key = "\(table)\u{0}\(lists)"
        if let b = bytesCache[key] { return b }
        var total: Int64 = 0
        for r in try connection.rows("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')") {
            guard case .text(let name) = r[0], case .text(let owner) = r[1] else { continue }
            guard owner == table || (lists && owner.hasPrefix(table + "_")) else { continue }
            total += try connection.integer(
                "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ? AND aggregate = TRUE", [.text(name)])
        }
        bytesCache[key] = total
        return total
    }

    /// The rows of a type's table before the run (0 for a type the file does not hold yet).
    mutating func rows(_ type: String) -> Int64 {
        if let n = rowsCache[type] { return n }
        let n = Int64((try? connection.integer("SELECT count(*) FROM \(Identifier.quoted(type))")) ?? 0)
        rowsCache[type] = n
        return n
    }

    /// The bytes a stored value of `type` takes in a row, at most, for the fixed-size kinds; text and blobs a
    /// step adds are taken as 32 bytes (new properties start at their default; a closure may write longer ones).
    static func width(_ type: PropertyType, in schema: Schema) -> Int64 {
        switch type {
        case .bool, .int8: 2
        case .int16: 3
        case .int32: 5
        case .int64, .float, .double, .date, .decimal: 9
        case .uuid: 17
        case .string, .data, .embedded: 32
        case .link(let target): schema[type: target]?.primaryKey.map { width($0.type, in: schema) } ?? 9
        case .list, .linkingObjects: 0
        }
    }

    /// Per-entry overhead of a b-tree index entry beyond its key: the rowid, the cell's header and pointer.
    static let indexEntryOverhead: Int64 = 16

    /// The bytes step `step` adds to the rows of the types it keeps: each new or retyped stored column, each new
    /// index or primary key (an index entry per row), for the rows the type has before the run.
    mutating func addedColumnBytes(_ step: ResolvedStep) -> Int64 {
        var total: Int64 = 0
        for new in step.to.tableTypes {
            guard let old = step.from[type: new.name] else { continue }
            let rows = rows(new.name)
            guard rows > 0 else { continue }
            for p in new.properties where p.isStored {
                let source = old.properties.first { $0.name == step.oldName(type: new.name, newName: p.name) }
                let w = Self.width(p.type, in: step.to)
                if source.map({ $0.type != p.type }) ?? true { total += rows * w }
                let wasIndexed = source.map { $0.indexed || $0.primaryKey } ?? false
                if (p.indexed || p.primaryKey) && (!wasIndexed || source?.type != p.type) {
                    total += rows * (w + Self.indexEntryOverhead)
                }
            }
        }
        return total
    }

    /// What step `step` takes away that a closure may make new objects of: the types it removes, the list
    /// properties it drops (their list tables), and the tables of types that lose stored properties (a guardian
    /// moved out of the student). Measured as the file holds them before the run (0 for what an earlier step made).
    mutating func removedBytes(_ step: ResolvedStep) throws -> Int64 {
        var total: Int64 = 0
        for old in step.from.tableTypes {
            guard let new = step.to[type: old.name] else {
                total += try bytes(ofTable: old.name, lists: true)
                continue
            }
            var losesColumns = false
            for p in old.properties {
                let kept = new.properties.contains { $0.name == step.newName(type: old.name, oldName: p.name) }
                guard !kept else { continue }
                if case .list = p.type {
                    total += try bytes(ofTable: StorageLayout.listTable(type: old.name, property: p.name), lists: false)
                } else if p.isStored {
                    losesColumns = true
                }
            }
            if losesColumns { total += try bytes(ofTable: old.name, lists: false) }
        }
        return total
    }

    /// The bytes of the objects step `step` creates of types it adds, bounded by twice what it takes away (a new
    /// object holds what it came from plus its own key, and that key's index): 40,000 list entries became 40,000
    /// enrollments, each with a text key. A step that adds types and takes nothing away adds nothing here: what its
    /// closure creates from nothing cannot be told before it runs (a full disk then rolls the run back).
    mutating func createdBytes(_ step: ResolvedStep) throws -> Int64 {
        let added = step.to.tableTypes.filter { step.from[type: $0.name] == nil }
        guard !added.isEmpty, step.closure != nil else { return 0 }
        return 2 * (try removedBytes(step))
    }
}
