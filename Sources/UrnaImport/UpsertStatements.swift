import UrnaStore

/// The prepared statements of a generation-aware upsert on one table whose key column is `columns[0]`
/// and whose generation column (`generatedAt`, DT_GERACAO + HH_GERACAO as ISO text) is `columns[1]`.
///
/// `INSERT ... ON CONFLICT(key) DO NOTHING` first (one statement for a new row, the common case); when
/// the key exists, the stored row is read and merged field by field with `GenerationMerge`: a newer
/// generation's values win, an older one only fills what is unknown, a null never erases a value. Only a
/// row the merge changes is rewritten, so importing the same files again writes nothing, and the result
/// does not depend on the order the files come in.
final class UpsertStatements {
    /// What happened to a row, with its rowid.
    enum Outcome: Equatable {
        case inserted(Int64)
        case updated(Int64)
        case unchanged(Int64)
        /// From an older generation, and it added nothing the stored row lacked.
        case superseded(Int64)
        /// The key exists but names another object (the reason says which fields disagree); nothing written.
        case conflict(Int64, String)
    }

    let table: String
    let columns: [String]
    private let connection: Connection
    private let insert: Statement
    private let select: Statement
    fileprivate let update: Statement
    /// Reason why a stored row and an incoming one with the same key are not the same object, or nil.
    private let conflict: (([SQLValue], [SQLValue]) -> String?)?
    /// Columns whose incoming value always replaces the stored one (personal data the run drops).
    private let replaced: [Int]
    /// The generations of values older than their row's (shared by a writer's upserts).
    fileprivate let fieldGenerations: FieldGenerations
    /// Stored rows whose known values in the `replacing` columns this run erased (personal data a run without
    /// `keepPersonalData` drops), for the summary.
    private(set) var replacedErased = 0
    /// The last upsert's known values that disagreed with the stored row's of the same generation (the merge kept
    /// the greater, a fixed rule): column, value kept, value not kept.
    private(set) var ties: [(column: String, kept: SQLValue, other: SQLValue)] = []

    init(
        connection: Connection, table: String, columns: [String],
        conflict: (([SQLValue], [SQLValue]) -> String?)? = nil, replacing replaced: [String] = [],
        fieldGenerations: FieldGenerations? = nil
    ) throws {
        precondition(columns.count >= 3 && columns[1] == "generatedAt", "key, generatedAt, then the columns")
        self.connection = connection
        self.fieldGenerations = try fieldGenerations ?? FieldGenerations(connection: connection)
        self.table = table
        self.columns = columns
        self.conflict = conflict
        self.replaced = replaced.compactMap { columns.firstIndex(of: $0) }
        let t = Identifier.quoted(table)
        let quoted = columns.map(Identifier.quoted)
        let params = (1...columns.count).map { "?\($0)" }
        insert = try connection.prepare(
            "INSERT INTO \(t)(\(quoted.joined(separator: ", "))) VALUES (\(params.joined(separator: ", "))) "
                + "ON CONFLICT(\(quoted[0])) DO NOTHING")
        select = try connection.prepare(
            "SELECT rowid, \(quoted.joined(separator: ", ")) FROM \(t) WHERE \(quoted[0]) = ?1")
        let assignments = (1..<columns.count).map { "\(quoted[$0]) = ?\($0 + 1)" }.joined(separator: ", ")
        update = try connection.prepare("UPDATE \(t) SET \(assignments) WHERE \(quoted[0]) = ?1")
    }

    /// Inserts the row, or merges it into the stored one (see `GenerationMerge`). `generations` gives the
    /// generation of those of the row's values that are older than the row's own (values merged in memory
    /// from several snapshots); the merged row's are kept in `FieldGenerations`' table.
    func upsert(_ row: [SQLValue], generations: [Int: SQLValue] = [:]) throws -> Outcome {
        if !ties.isEmpty { ties = [] }
        for (i, v) in row.enumerated() { insert.bindValue(v, Int32(i + 1)) }
        _ = try insert.step()
        let inserted = connection.changes > 0
        insert.reset()
        if inserted {
            let rowid = connection.lastInsertRowID
            if !generations.isEmpty {
                try fieldGenerations.replace(table: table, key: row[0], with: generations, columns: columns)
            }
            return .inserted(rowid)
        }
        return try merge(row, generations: generations)
    }

    /// `upsert(value.row)`, with the insert bound from the value's fields: the row is only built when the key
    /// exists and the stored row has to be merged.
    func upsert(_ value: some BindableUpsertRow) throws -> Outcome {
        if !ties.isEmpty { ties = [] }
        value.bindRow(to: insert)
        _ = try insert.step()
        let inserted = connection.changes > 0
        insert.reset()
        if inserted { return .inserted(connection.lastInsertRowID) }
        return try merge(value.row, generations: [:])
    }

    /// Merges `row`, whose key exists, into the stored row (see `upsert`).
    private func merge(_ row: [SQLValue], generations: [Int: SQLValue]) throws -> Outcome {
        select.bindValue(row[0], 1)
        guard try select.step() else {
            select.reset()
            throw UpsertError.vanished(table: table)
        }
        let rowid = select.int(at: 0)
        var stored: [SQLValue] = []
        stored.reserveCapacity(row.count)
        for i in 0..<row.count { stored.append(select.value(at: i + 1)) }
        select.reset()
        // Two rows that are not one object under one key: of one generation, one is kept whole (no precedence says
        // which values belong together); of two generations, the newer is a re-release that corrected the name,
        // office or description (TSE's keys are not reused), so the rows merge as any two generations do, and the
        // conflict is still reported.
        var conflictReason: String?
        if let conflict, let disagreement = conflict(stored, row) {
            let order = GenerationMerge.compare(row[1], stored[1])
            guard order != 0 else {
                return try resolveConflict(
                    rowid: rowid, stored: stored, incoming: row, generations: generations, disagreement)
            }
            conflictReason =
                "conflict: \(disagreement); "
                + (order > 0
                    ? "this row is of a newer generation (DT_GERACAO + HH_GERACAO): its values were merged over the stored "
                        + "ones (a null never erases one)"
                    : "this row is of an older generation: it only filled values the stored one lacked")
                + ": check which file is right"
        }
        let storedGenerations = try fieldGenerations.generations(table: table, key: row[0], columns: columns)
        let placeholders = GenerationMerge.placeholders(table: table)
        var (merged, mergedGenerations) = GenerationMerge.merge(
            stored: stored, storedGenerations: storedGenerations, incoming: row, incomingGenerations: generations,
            placeholders: placeholders)
        if stored != row {
            ties = GenerationMerge.ties(
                stored: stored, storedGenerations: storedGenerations, incoming: row, incomingGenerations: generations,
                merged: merged, placeholders: placeholders, skipping: replaced
            ).map { (columns[$0.index], $0.kept, $0.other) }
        }
        var erased = false
        for i in replaced {
            if GenerationMerge.isUnknown(row[i]) && !GenerationMerge.isUnknown(merged[i]) { erased = true }
            merged[i] = row[i]
            mergedGenerations[i] = GenerationMerge.isUnknown(row[i]) || row[1] == merged[1] ? nil : row[1]
        }
        if erased { replacedErased += 1 }
        if mergedGenerations != storedGenerations {
            try fieldGenerations.replace(table: table, key: row[0], with: mergedGenerations, columns: columns)
        }
        if merged == stored {
            // No value changed (at most the generation a value is known since): nothing to count as an update.
            if let conflictReason { return .conflict(rowid, conflictReason) }
            return GenerationMerge.isOlder(row[1], than: stored[1]) ? .superseded(rowid) : .unchanged(rowid)
        }
        for (i, v) in merged.enumerated() { update.bindValue(v, Int32(i + 1)) }
        _ = try update.step()
        update.reset()
        if let conflictReason { return .conflict(rowid, conflictReason) }
        return .updated(rowid)
    }
}

extension UpsertStatements {
    /// Two rows of one generation under one key that are not one object: one of them is kept whole, the other
    /// reported, never merged. Which one does not depend on the order they come in: the greater row by SQLite's
    /// order of its values (an arbitrary rule, but a fixed one, so that any order of the same files gives the same
    /// database). The stored row is replaced when the incoming one wins.
    fileprivate func resolveConflict(
        rowid: Int64, stored: [SQLValue], incoming: [SQLValue], generations: [Int: SQLValue], _ disagreement: String
    ) throws -> Outcome {
        let why = "both come from one generation, and a fixed rule keeps the same one in any import order"
        guard GenerationMerge.wins(incoming, over: stored) else {
            return .conflict(
                rowid, "conflict: \(disagreement); this row was not stored (\(why)): check which file is right")
        }
        for (i, v) in incoming.enumerated() { update.bindValue(v, Int32(i + 1)) }
        _ = try update.step()
        update.reset()
        try fieldGenerations.replace(table: table, key: incoming[0], with: generations, columns: columns)
        return .conflict(
            rowid,
            "conflict: \(disagreement); this row replaced the stored one (\(why)): check which file is right; "
                + "the replaced row held \(Self.spelledOut(stored, columns: columns))")
    }

    /// A stored row's known values as `column=value` pairs (nulls left out), so that a row a conflict replaced
    /// is kept in the rejects file rather than lost.
    static func spelledOut(_ row: [SQLValue], columns: [String]) -> String {
        var pairs: [String] = []
        for (column, value) in zip(columns, row) {
            switch value {
            case .null: continue
            case .integer(let i): pairs.append("\(column)=\(i)")
            case .real(let d): pairs.append("\(column)=\(d)")
            case .text(let t): pairs.append("\(column)='\(t.replacing("'", with: "''"))'")
            case .blob(let b):
                pairs.append("\(column)=x'\(b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())'")
            }
        }
        return pairs.joined(separator: ", ")
    }
}

/// Where the generation of a value older than its row's is kept: the table `_urna_field_generations` (object
/// type, key, property, generation), one row per such value. A value an older snapshot filled in (the newer one
/// did not know it) has its own generation; most objects have none, and the table exists only once one has.
/// It is the importer's bookkeeping, not part of the family's schema: the merge of a later import reads it, so
/// that three or more generations of one file give the same object in any order.
final class FieldGenerations {
    static let table = StorageLayout.fieldGenerationsTable
    private let connection: Connection
    private var exists: Bool
    private var select: Statement?
    private var delete: Statement?
    private var insert: Statement?

    /// A key as the table keeps it: text, so it reads the same after a trip through PostgreSQL.
    static func keyText(_ key: SQLValue) -> SQLValue {
        if case .integer(let i) = key { return .text(String(i)) }
        return key
    }

    init(connection: Connection) throws {
        self.connection = connection
        exists =
            try connection.scalar("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", [.text(Self.table)])
            != nil
    }

    /// The generations recorded for the object `key` of `table`, by index in `columns`.
    func generations(table: String, key: SQLValue, columns: [String]) throws -> [Int: SQLValue] {
        guard exists else { return [:] }
        let s =
            try select
            ?? connection.prepare(
                "SELECT \"property\", \"generatedAt\" FROM \"\(Self.table)\" WHERE \"type\" = ?1 AND \"key\" = ?2")
        select = s
        s.bindValue(.text(table), 1)
        s.bindValue(Self.keyText(key), 2)
        defer { s.reset() }
        var out: [Int: SQLValue] = [:]
        while try s.step() {
            if case .text(let property) = s.value(at: 0), let i = columns.firstIndex(of: property) {
                out[i] = s.value(at: 1)
            }
        }
        return out
    }

    /// Records exactly `generations` for the object `key` of `table` (none: forgets its old ones).
    func replace(table: String, key: SQLValue, with generations: [Int: SQLValue], columns: [String]) throws {
        if !exists {
            guard !generations.isEmpty else { return }
            try connection.execute(StorageLayout.fieldGenerationsSQL)
            exists = true
        }
        let d = try delete ?? connection.prepare("DELETE FROM \"\(Self.table)\" WHERE \"type\" = ?1 AND \"key\" = ?2")
        delete = d
        d.bindValue(.text(table), 1)
        d.bindValue(Self.keyText(key), 2)
        _ = try d.step()
        d.reset()
        guard !generations.isEmpty else { return }
        let ins =
            try insert
            ?? connection.prepare(
                "INSERT INTO \"\(Self.table)\" (\"type\", \"key\", \"property\", \"generatedAt\") VALUES (?1, ?2, ?3, ?4)"
            )
        insert = ins
        for (i, g) in generations.sorted(by: { $0.key < $1.key }) {
            ins.bindValue(.text(table), 1)
            ins.bindValue(Self.keyText(key), 2)
            ins.bindValue(.text(columns[i]), 3)
            ins.bindValue(g, 4)
            _ = try ins.step()
            ins.reset()
        }
    }
}

/// Field-by-field precedence between snapshots of one object (index 0 the key, 1 the generation).
///
/// Every value is a pair (its generation, the value), an unknown value (null or empty text) the least of all:
/// the merge keeps, field by field, the greatest pair: the newest generation's known value, and between two
/// known values of the same generation the greater one (SQLite's order). That is a join (associative,
/// commutative, idempotent), so any number of snapshots merged in any order give the same object:
/// - a newer generation's value wins, unless it is unknown: then the older one stays;
/// - an older generation's value only fills what the newer ones do not know;
/// - a value's generation is its row's unless `generations` says otherwise (a value an older snapshot filled
///   in keeps that snapshot's generation, so a later import of a middle generation still beats it).
///
/// A missing generation counts as the oldest. The row's generation is the newest of the two.
enum GenerationMerge {
    /// `merge` without values older than their rows (two plain snapshots).
    static func merge(stored: [SQLValue], incoming: [SQLValue]) -> [SQLValue] {
        merge(stored: stored, storedGenerations: [:], incoming: incoming, incomingGenerations: [:]).row
    }

    /// The merged row and the generations of those of its known values older than the merged row's.
    static func merge(
        stored: [SQLValue], storedGenerations: [Int: SQLValue], incoming: [SQLValue],
        incomingGenerations: [Int: SQLValue],
        placeholders: [Int: Set<SQLValue>] = [:]
    ) -> (row: [SQLValue], generations: [Int: SQLValue]) {
        var out = stored
        let rowGeneration = compare(incoming[1], stored[1]) > 0 ? incoming[1] : stored[1]
        out[1] = rowGeneration
        var generations: [Int: SQLValue] = [:]
        for i in 2..<min(stored.count, incoming.count) {
            let s = stored[i]
            let n = incoming[i]
            let sKnown = !isUnknown(s)
            let nKnown = !isUnknown(n)
            guard sKnown || nKnown else {
                if compare(n, s) > 0 { out[i] = n }  // empty text over null, whichever came first
                continue
            }
            let gs = storedGenerations[i] ?? stored[1]
            let gn = incomingGenerations[i] ?? incoming[1]
            let generation: SQLValue
            // A placeholder ("PARTIDO ISOLADO" where the row's coalition has a name elsewhere, the office code 0
            // of an unreadable CD_CARGO) yields to any real value, whichever generation or run either came from,
            // and never replaces one.
            let sPlaceholder = placeholders[i]?.contains(s) ?? false
            let nPlaceholder = placeholders[i]?.contains(n) ?? false
            if sPlaceholder != nPlaceholder, sKnown, nKnown {
                if sPlaceholder {
                    out[i] = n
                    generation = gn
                } else {
                    generation = gs
                }
            } else if !nKnown {
                generation = gs
            } else if !sKnown {
                out[i] = n
                generation = gn
            } else {
                let order = compare(gn, gs)
                if order > 0 || (order == 0 && compare(n, s) > 0) {
                    out[i] = n
                    generation = gn
                } else {
                    generation = gs
                }
            }
            if generation != rowGeneration { generations[i] = generation }
        }
        return (out, generations)
    }

    /// The columns (from 2, leaving out `skipping`) where both rows know a value, of one generation, and the values
    /// differ: the merge could only keep one by its fixed rule. Placeholders are left out (they always yield).
    static func ties(
        stored: [SQLValue], storedGenerations: [Int: SQLValue], incoming: [SQLValue],
        incomingGenerations: [Int: SQLValue],
        merged: [SQLValue], placeholders: [Int: Set<SQLValue>], skipping: [Int]
    ) -> [(index: Int, kept: SQLValue, other: SQLValue)] {
        var out: [(index: Int, kept: SQLValue, other: SQLValue)] = []
        for i in 2..<min(stored.count, incoming.count) where stored[i] != incoming[i] && !skipping.contains(i) {
            let (s, n) = (stored[i], incoming[i])
            guard !isUnknown(s), !isUnknown(n), !(placeholders[i]?.contains(s) ?? false),
                !(placeholders[i]?.contains(n) ?? false),
                compare(storedGenerations[i] ?? stored[1], incomingGenerations[i] ?? incoming[1]) == 0
            else { continue }
            out.append((i, merged[i], merged[i] == s ? n : s))
        }
        return out
    }

    /// Values of a table's columns that say "no value here" in TSE files though they are not null, by `row` index:
    /// - Coalition.name "PARTIDO ISOLADO", which second-round rows give a coalition whose first-round rows name
    ///   it ("FRENTE POPULAR DE RIO BRANCO", with the same composition);
    /// - Candidate.postCode 0, which an unreadable CD_CARGO leaves in that required column.
    static func placeholders(table: String) -> [Int: Set<SQLValue>] {
        switch table {
        case "Coalition": [5: [.text("PARTIDO ISOLADO")]]
        case "Candidate": candidatePlaceholders
        default: [:]
        }
    }

    private static let candidatePlaceholders: [Int: Set<SQLValue>] =
        ElectionColumns.candidate.firstIndex(of: "postCode").map { [$0: [.integer(0)]] } ?? [:]

    /// Between two rows of one generation under one key that are not one object: true when `incoming` is the one
    /// to keep (the greater values in column order). Rows of two generations merge instead (`upsert`).
    static func wins(_ incoming: [SQLValue], over stored: [SQLValue]) -> Bool {
        for (a, b) in zip(incoming.dropFirst(2), stored.dropFirst(2)) {
            let order = compare(a, b)
            if order != 0 { return order > 0 }
        }
        return false
    }

    /// True when generation `a` is older than `b` (a missing one is the oldest).
    static func isOlder(_ a: SQLValue, than b: SQLValue) -> Bool { compare(a, b) < 0 }

    @inline(__always) static func isUnknown(_ v: SQLValue) -> Bool {
        switch v {
        case .null: true
        case .text(let s): s.isEmpty
        default: false
        }
    }

    /// SQLite's order of values: null, numbers, text (by bytes), blobs.
    static func compare(_ a: SQLValue, _ b: SQLValue) -> Int {
        func rank(_ v: SQLValue) -> Int {
            switch v {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        case (.text(let x), .text(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x == y ? 0 : 1)
        case (.real(let x), .real(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        default:
            let (ra, rb) = (rank(a), rank(b))
            return ra < rb ? -1 : (ra > rb ? 1 : 0)
        }
    }
}

/// A row that conflicted on insert was not there to compare: only another writer could do that.
enum UpsertError: Error, CustomStringConvertible {
    case vanished(table: String)

    var description: String {
        switch self {
        case .vanished(let table): "a \(table) row disappeared during the import: is another program writing the file?"
        }
    }
}
