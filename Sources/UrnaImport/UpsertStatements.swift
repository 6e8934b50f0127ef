import UrnaStore

/// A row that binds its key as parameter 1 and its columns as 2...n, in `UpsertStatements` order.
protocol UpsertRow {
    func bind(to s: Statement)
}

/// The three prepared statements of a compare-before-write upsert on one table.
///
/// `INSERT ... ON CONFLICT(key) DO NOTHING` first (one statement for a new row, the common case);
/// when the key exists, one SELECT compares every column with `IS` in SQLite, and only a row that
/// differs is rewritten. So importing the same file twice writes nothing the second time.
final class UpsertStatements {
    /// What happened to a row, with its rowid.
    enum Outcome: Equatable {
        case inserted(Int64)
        case updated(Int64)
        case unchanged(Int64)
    }

    let table: String
    let columns: [String]
    private let connection: Connection
    private let insert: Statement
    private let compare: Statement
    private let update: Statement

    /// Statements for `table` whose key column is `columns[0]`.
    init(connection: Connection, table: String, columns: [String]) throws {
        precondition(columns.count >= 2, "an upsert needs a key and at least one column")
        self.connection = connection
        self.table = table
        self.columns = columns
        let t = Identifier.quoted(table)
        let quoted = columns.map(Identifier.quoted)
        let key = quoted[0]
        let params = (1...columns.count).map { "?\($0)" }
        insert = try connection.prepare(
            "INSERT INTO \(t)(\(quoted.joined(separator: ", "))) VALUES (\(params.joined(separator: ", "))) "
                + "ON CONFLICT(\(key)) DO NOTHING")
        let same = (1..<columns.count).map { "\(quoted[$0]) IS ?\($0 + 1)" }.joined(separator: " AND ")
        compare = try connection.prepare("SELECT rowid, (\(same)) FROM \(t) WHERE \(key) = ?1")
        let assignments = (1..<columns.count).map { "\(quoted[$0]) = ?\($0 + 1)" }.joined(separator: ", ")
        update = try connection.prepare("UPDATE \(t) SET \(assignments) WHERE \(key) = ?1")
    }

    /// Inserts the row, or updates it when some column differs, or leaves it alone.
    func upsert<R: UpsertRow>(_ row: R) throws -> Outcome {
        row.bind(to: insert)
        _ = try insert.step()
        let inserted = connection.changes > 0
        insert.reset()
        if inserted { return .inserted(connection.lastInsertRowID) }
        row.bind(to: compare)
        guard try compare.step() else {
            compare.reset()
            throw UpsertError.vanished(table: table)
        }
        let rowid = compare.int(at: 0)
        let same = compare.int(at: 1) != 0
        compare.reset()
        if same { return .unchanged(rowid) }
        row.bind(to: update)
        _ = try update.step()
        update.reset()
        return .updated(rowid)
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

extension Statement {
    @inline(__always) func bind(_ v: String?, _ index: Int32) {
        if let v { bindText(v, at: index) } else { bindNull(at: index) }
    }

    @inline(__always) func bind(_ v: String, _ index: Int32) { bindText(v, at: index) }

    @inline(__always) func bind(_ v: Int64?, _ index: Int32) {
        if let v { bindInt(v, at: index) } else { bindNull(at: index) }
    }

    @inline(__always) func bind(_ v: Int64, _ index: Int32) { bindInt(v, at: index) }
}
