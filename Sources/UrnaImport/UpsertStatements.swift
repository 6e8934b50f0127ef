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
    private let update: Statement
    /// Reason why a stored row and an incoming one with the same key are not the same object, or nil.
    private let conflict: (([SQLValue], [SQLValue]) -> String?)?
    /// Columns whose incoming value always replaces the stored one (personal data the run drops).
    private let replaced: [Int]

    init(
        connection: Connection, table: String, columns: [String],
        conflict: (([SQLValue], [SQLValue]) -> String?)? = nil, replacing replaced: [String] = []
    ) throws {
        precondition(columns.count >= 3 && columns[1] == "generatedAt", "key, generatedAt, then the columns")
        self.connection = connection
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

    /// Inserts the row, or merges it into the stored one (see `GenerationMerge`).
    func upsert(_ row: [SQLValue]) throws -> Outcome {
        for (i, v) in row.enumerated() { insert.bindValue(v, Int32(i + 1)) }
        _ = try insert.step()
        let inserted = connection.changes > 0
        insert.reset()
        if inserted { return .inserted(connection.lastInsertRowID) }
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
        if let conflict, let reason = conflict(stored, row) { return .conflict(rowid, reason) }
        var merged = GenerationMerge.merge(stored: stored, incoming: row)
        for i in replaced { merged[i] = row[i] }
        if merged == stored {
            return GenerationMerge.isOlder(row[1], than: stored[1]) ? .superseded(rowid) : .unchanged(rowid)
        }
        for (i, v) in merged.enumerated() { update.bindValue(v, Int32(i + 1)) }
        _ = try update.step()
        update.reset()
        return .updated(rowid)
    }
}

/// Field-by-field precedence between two snapshots of one object (index 0 the key, 1 the generation).
///
/// - the newer generation's value wins, unless it is unknown (null or empty text): then the older one stays;
/// - the older generation's value only fills what the newer one does not know;
/// - of the same generation, a known value beats an unknown one, and of two known values the greater one
///   (SQLite's order) wins, so the result never depends on which came first.
///
/// A missing generation counts as the oldest.
enum GenerationMerge {
    static func merge(stored: [SQLValue], incoming: [SQLValue]) -> [SQLValue] {
        let order = compare(incoming[1], stored[1])
        var out = stored
        if order > 0 { out[1] = incoming[1] }
        for i in 2..<min(stored.count, incoming.count) {
            let s = stored[i]
            let n = incoming[i]
            if s == n || isUnknown(n) { continue }
            if isUnknown(s) {
                out[i] = n
                continue
            }
            if order > 0 || (order == 0 && compare(n, s) > 0) { out[i] = n }
        }
        return out
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
