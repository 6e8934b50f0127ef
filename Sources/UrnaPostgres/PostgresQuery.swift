import Foundation
import UrnaStore

/// Queries answered on the PostgreSQL server, without a working copy: a predicate and sort keys compiled to
/// PostgreSQL SQL (`QueryCompiler` with the `.postgres` dialect, values as bound parameters), counted or read
/// there, in a READ ONLY REPEATABLE READ transaction taken after locking `_urna_schema` (the readers' rule:
/// a writer refilling the tables holds that lock, so a reader never sees a half-refilled table).
///
/// Values come back converted as the working copy stores them (`PostgresColumnKind.selectExpression`) and are
/// decoded by the store's own `ValueCodec`, so what a command prints from them is what it printed from the
/// working copy. A value urna cannot hold (a date at infinity, money past 64 bits) stops a read that prints it,
/// as it stops a working copy; counts and comparisons, which print none, use the server's exact value.
///
/// ```swift
/// let q = try PostgresQuery(url: "postgresql://urna@127.0.0.1/tse")
/// let n = try q.count(of: "Candidate", where: try QueryPredicate.parse("name BEGINSWITH[cd] 'jose'"))
/// ```
public final class PostgresQuery {
    public let connection: PostgresConnection
    /// What the database records in `_urna_schema` (nil: no Urna data there).
    public let recorded: Schema?
    private var foldingChecked: Bool?

    /// Connects and begins the read-only snapshot, waiting at most `lockTimeoutMilliseconds` for a writer.
    public init(url: String, lockTimeoutMilliseconds: Int = 30_000) throws {
        let pg = try PostgresConnection(url)
        connection = pg
        try pg.execute("SET lock_timeout = \(lockTimeoutMilliseconds)")
        do {
            try PostgresTransfer.beginSnapshot(pg)
            recorded = try PostgresTransfer.recordedSchema(in: pg)
        } catch let e as PostgresError where e.isLockTimeout {
            try? pg.execute("ROLLBACK")
            throw PostgresWorkingCopy.LockTimeout(
                database: pg.displayName, milliseconds: lockTimeoutMilliseconds, message: e.message)
        } catch {
            try? pg.execute("ROLLBACK")
            throw error
        }
    }

    deinit { try? connection.execute("ROLLBACK") }

    /// Whether the predicate folds text (`[c]`, `[d]`) somewhere.
    public static func folds(_ predicate: QueryPredicate) -> Bool {
        switch predicate {
        case .truePredicate, .falsePredicate: false
        case .comparison(let c): !c.options.isEmpty
        case .and(let parts), .or(let parts): parts.contains(where: folds)
        case .not(let inner): folds(inner)
        }
    }

    /// Whether this server folds text exactly as `TextFolding` does: a UTF-8 database, `normalize()`
    /// (PostgreSQL 13 or later) and Unicode tables agreeing with Swift's: the NFD of every assigned scalar
    /// (`PostgresTextFolding.probe`) and the NFC of those decompositions, compared with Foundation's. (The
    /// lowercase and mark tables are Swift's own, sent with the query.) Checked once per connection.
    public func foldsExactly() throws -> Bool {
        if let foldingChecked { return foldingChecked }
        var ok = false
        let version = Int(try connection.scalar("SHOW server_version_num") ?? "") ?? 0
        let encoding = try connection.scalar("SHOW server_encoding")
        if version >= 130_000, encoding == "UTF8" {
            let probe = PostgresTextFolding.probe
            let nfd = probe.decomposedStringWithCanonicalMapping
            let row = try connection.query(
                "SELECT normalize($1::text, NFD) = $2::text, normalize($2::text, NFC) = $3::text",
                [probe, nfd, nfd.precomposedStringWithCanonicalMapping]
            ).rows.first
            ok = row == ["t", "t"]
        }
        foldingChecked = ok
        return ok
    }

    /// The SQL selecting the matching rows' `columns` of `type`, in `sorts` order (nil: any order, for a
    /// count), with its parameters.
    func select(
        _ columns: String, of type: String, where predicate: QueryPredicate?, sortedBy sorts: [SortKey]?,
        limit: Int?, compiler: QueryCompiler
    ) throws -> (sql: String, parameters: [String?]) {
        var sql = "SELECT \(columns) FROM \(Identifier.quoted(type)) t0"
        var parameters: [String?] = []
        if let predicate {
            let (condition, bindings) = try compiler.compile(predicate, on: type, alias: "t0")
            sql += " WHERE \(condition)"
            parameters = bindings.map(SQLDialect.postgresText)
        }
        if let sorts { sql += " ORDER BY " + (try compiler.orderBy(sorts, on: type, alias: "t0")) }
        if let limit { sql += " LIMIT \(limit)" }
        return (sql, parameters)
    }

    private func compiler() throws -> QueryCompiler {
        guard let recorded else { throw PostgresTransferError.notUrna("\(connection.displayName) holds no Urna data") }
        return QueryCompiler(schema: recorded, dialect: .postgres)
    }

    /// How many objects of `type` match (at most `limit`), counted on the server.
    public func count(of type: String, where predicate: QueryPredicate?, limit: Int? = nil) throws -> Int {
        let (sql, parameters) = try select(
            "1", of: type, where: predicate, sortedBy: nil, limit: limit, compiler: try compiler())
        guard let n = Int(try connection.scalar("SELECT count(*) FROM (\(sql)) AS matching", parameters) ?? "") else {
            throw PostgresError("count(*) gave no number", database: connection.displayName)
        }
        return n
    }

    /// The SQL for `fields` of `type` when every one has a server form, else nil (the caller falls back).
    public func projection(_ fields: [FieldProjection.Field], of type: String) throws -> [ProjectedColumn]? {
        let compiler = try compiler()
        var out: [ProjectedColumn] = []
        for f in fields {
            guard let term = try compiler.projectedTerm(f.keyPath, on: type, alias: "t0") else { return nil }
            out.append(ProjectedColumn(term: term, label: "\(type).\(f.keyPath)", schema: compiler.schema))
        }
        return out
    }

    /// Reads the matching objects' projected fields in order, `batch` rows per round trip through a cursor
    /// (memory stays flat on large results), calling `row` with each object's outputs.
    public func read(
        _ columns: [ProjectedColumn], names: [String], of type: String, where predicate: QueryPredicate?,
        sortedBy sorts: [SortKey], limit: Int?, batch: Int = 1000,
        _ row: ([(String, FieldProjection.Output)]) throws -> Void
    ) throws {
        let list = columns.isEmpty ? "1" : columns.map(\.sql).joined(separator: ", ")
        let (sql, parameters) = try select(
            list, of: type, where: predicate, sortedBy: sorts, limit: limit, compiler: try compiler())
        try connection.query("DECLARE urna_rows NO SCROLL CURSOR FOR \(sql)", parameters)
        defer { try? connection.execute("CLOSE urna_rows") }
        while true {
            let rows: [[String?]]
            do {
                rows = try connection.query("FETCH FORWARD \(batch) FROM urna_rows").rows
            } catch let e as PostgresError where e.sqlState == "22003" {
                throw PostgresTransfer.tooLarge(e, in: type)
            }
            for r in rows {
                var outputs: [(String, FieldProjection.Output)] = []
                outputs.reserveCapacity(columns.count)
                for (i, c) in columns.enumerated() { outputs.append((names[i], try c.output(r[i]))) }
                try row(outputs)
            }
            if rows.count < batch { break }
        }
    }
}
