import CPostgreSQL
import Foundation

/// One libpq connection. Not shared between threads: each command or copy opens its own.
public final class PostgresConnection {
    let handle: OpaquePointer
    /// The URL or conninfo with any password replaced by `***`, for messages.
    public let displayName: String
    /// The schema urna works in: the first schema of the session's `search_path` that exists when it connects
    /// (`current_schema()`, where psql's `CREATE TABLE` would go), chosen by the role's or database's
    /// settings, `?options=-csearch_path%3DNAME` or `PGOPTIONS`. Only its tables are Urna's; after connecting
    /// the path is `pg_catalog` first and this schema next, so an unqualified built-in function or operator
    /// is PostgreSQL's own even when a schema on the user's path defines one with the same name and types.
    public private(set) var schema = ""

    /// Connects with a `postgresql://` URL or a conninfo string; unset parts come from the `PG*` environment
    /// variables, as for psql.
    public init(_ conninfo: String) throws {
        displayName = PostgresURL.redacted(conninfo)
        guard let h = PQconnectdb(conninfo) else {
            throw PostgresError("libpq could not allocate a connection", database: displayName)
        }
        handle = h
        guard PQstatus(h) == CONNECTION_OK else {
            // libpq may quote the password itself (say, "invalid percent-encoded token: ..."): never shown.
            let message = PostgresURL.scrub(
                String(cString: PQerrorMessage(h)).trimmingCharacters(in: .whitespacesAndNewlines), secretsOf: conninfo)
            // Every stored property is set, so deinit runs on this throw and finishes the handle.
            throw PostgresError("cannot connect: \(message)", database: displayName)
        }
        urna_pg_silence_notices(h)
        PostgresInterrupt.register(self)
        // Exact values on the way out (floats in shortest exact form), a fixed text form for dates, in UTC.
        try execute(
            // First: a statement_timeout the role or database sets would cut urna's own copies and DDL off
            // midway (urna sql gives the user's SQL the user's settings back: restoreUserSettings).
            "SET statement_timeout = 0; "
                + "SET client_encoding = 'UTF8'; SET extra_float_digits = 3; SET DateStyle = 'ISO'; SET TimeZone = 'UTC'; "
                // Literals urna writes double their quotes only: backslashes must never escape.
                + "SET standard_conforming_strings = on; "
                // bytea is read back in hex form whatever a role or database set; intervals in the default form.
                + "SET bytea_output = 'hex'; SET IntervalStyle = 'postgres'; "
                // A writer's transaction waits, idle, while urna works on the working copy: a server that ends
                // idle transactions would throw the whole run away at the commit.
                + "SET idle_in_transaction_session_timeout = 0; "
                // A row-level security policy would hide rows from the copy, and the refill would delete them:
                // an error instead of a silent filter.
                + "SET row_security = off")
        // PostgreSQL 17's transaction_timeout would end a long import or migration the same way.
        if let pin = Self.transactionTimeout(serverVersion: serverVersion, reset: false) { try execute(pin) }
        guard let current = try scalar("SELECT pg_catalog.current_schema()") else {
            let path = (try? scalar("SHOW search_path")) ?? ""
            throw PostgresError(
                "no schema to work in: the search_path (\(path)) names no schema that exists and this role may "
                    + "use; create one, or name one with ?options=-csearch_path%3DNAME (or PGOPTIONS)",
                database: displayName)
        }
        // The user's path in order (schemas that exist and this role may use), read before it is replaced.
        let path = try query(
            "SELECT s FROM pg_catalog.unnest(pg_catalog.current_schemas(false)) WITH ORDINALITY AS p(s, i) ORDER BY i"
        ).rows.compactMap { $0.first ?? nil }
        let userPath = try scalar("SHOW search_path") ?? ""
        schema = current
        try execute("SET search_path = pg_catalog, \(Self.quoted(current))")
        try refuseUrnaTablesFurtherOn(path: path, userPath: userPath)
    }

    /// Refuses a session whose working schema holds no `_urna_schema` while a schema further on the user's path
    /// does: a schema created later in front of Urna's (the role's own, `"$user"`) would otherwise make readers
    /// find no Urna data and a writer start a second, empty set of Urna tables, silently.
    private func refuseUrnaTablesFurtherOn(path: [String], userPath: String) throws {
        let holders = Set(
            try query(
                "SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    + "WHERE c.relname = '_urna_schema' AND c.relkind IN ('r', 'p', 'v', 'm', 'f')"
            ).rows.compactMap { $0.first ?? nil })
        let onPath = path.filter { holders.contains($0) }
        guard let first = onPath.first, first != schema else { return }
        let named = onPath.map { Self.quoted($0) }
        let which =
            named.count == 1
            ? "Urna's tables are in schema \(named[0])"
            : "Urna's tables are in \(named.count) schemas of the path (\(named.joined(separator: ", ")))"
        let choice = onPath.count == 1 ? Self.pathValue(first) : "NAME"
        throw PostgresError(
            "\(which), but the first schema of the search path (\(userPath)) is \(Self.quoted(schema)), which holds "
                + "none; urna works in the first schema only, so it would find no Urna data there and a writer would "
                + "start a second, empty set of Urna tables; nothing was read or changed: name the schema to use "
                + "with ?options=-csearch_path%3D\(choice) in the URL (or PGOPTIONS=-csearch_path=\(choice))",
            database: displayName)
    }

    /// A schema name as it may be written in a `search_path` setting: bare when it is a plain lower-case name,
    /// in double quotes otherwise.
    static func pathValue(_ name: String) -> String {
        let plain = name.utf8.enumerated().allSatisfy { i, c in
            (c >= 97 && c <= 122) || c == 95 || (i > 0 && c >= 48 && c <= 57)
        }
        return plain && !name.isEmpty ? name : quoted(name)
    }

    /// A name in double quotes, inner quotes doubled.
    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// `name` qualified by the working schema, quoted: for statements that create objects (the search path
    /// begins with `pg_catalog`, where nothing may be created).
    public func qualified(_ name: String) -> String { Self.quoted(schema) + "." + Self.quoted(name) }

    /// The search path, row-level security, statement timeout and (PostgreSQL 17 on) transaction timeout as the
    /// session began (the role's, the database's or the URL's), for running a user's own SQL (`urna sql`) as psql
    /// would: names resolve through their path, a table with a policy shows the rows the policy lets them see
    /// instead of refusing the query, and the server's time limits apply.
    public func restoreUserSettings() throws {
        try execute("RESET search_path; RESET row_security; RESET statement_timeout")
        // Pinned to 0 at connect on the same servers only: an older server has no such setting to reset.
        if let reset = Self.transactionTimeout(serverVersion: serverVersion, reset: true) { try execute(reset) }
    }

    /// The server's version number (`150018` for 15.18, `170000` for 17.0).
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// The statement that pins `transaction_timeout` to 0 at connect (or, `reset`, gives the session's own value
    /// back), or nil on a server before PostgreSQL 17, which has no such setting and refuses to set one it
    /// does not know.
    static func transactionTimeout(serverVersion: Int, reset: Bool) -> String? {
        guard serverVersion >= 170_000 else { return nil }
        return reset ? "RESET transaction_timeout" : "SET transaction_timeout = 0"
    }

    deinit {
        PostgresInterrupt.unregister(self)
        PQfinish(handle)
    }

    /// Whether the connection to the server is still up (false once libpq has seen it lost).
    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Runs one or more statements without parameters.
    public func execute(_ sql: String) throws {
        let r = PQexec(handle, sql)
        defer { PQclear(r) }
        try check(r, sql: sql)
    }

    /// Runs a statement with text parameters ($1, $2, ...) and returns every row as text (nil for NULL).
    @discardableResult
    public func query(_ sql: String, _ parameters: [String?] = []) throws -> PostgresRows {
        var cStrings: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for p in cStrings { free(p) } }
        let r: OpaquePointer? = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) {
                PQexecParams(handle, sql, Int32(parameters.count), nil, parameters.isEmpty ? nil : $0, nil, nil, 0)
            }
        }
        defer { PQclear(r) }
        try check(r, sql: sql)
        let rows = Int(PQntuples(r))
        let columns = Int(PQnfields(r))
        var out = PostgresRows(
            columns: (0..<columns).map { String(cString: PQfname(r, Int32($0))) },
            types: (0..<columns).map { UInt32(PQftype(r, Int32($0))) },
            affected: Int(String(cString: PQcmdTuples(r))) ?? 0)
        out.rows.reserveCapacity(rows)
        for i in 0..<rows {
            var row: [String?] = []
            row.reserveCapacity(columns)
            for j in 0..<columns {
                if PQgetisnull(r, Int32(i), Int32(j)) != 0 {
                    row.append(nil)
                } else {
                    row.append(String(cString: PQgetvalue(r, Int32(i), Int32(j))))
                }
            }
            out.rows.append(row)
        }
        return out
    }

    /// The first column of the first row, or nil.
    public func scalar(_ sql: String, _ parameters: [String?] = []) throws -> String? {
        try query(sql, parameters).rows.first?.first ?? nil
    }

    func check(_ r: OpaquePointer?, sql: String) throws {
        guard let r else { throw lastError(sql: sql) }
        switch PQresultStatus(r) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw resultError(r, sql: sql)
        }
    }

    func resultError(_ r: OpaquePointer, sql: String) -> PostgresError {
        func field(_ code: Int32) -> String? {
            guard let p = PQresultErrorField(r, code) else { return nil }
            return String(cString: p)
        }
        var message = field(Int32(urna_pg_diag_message_primary)) ?? String(cString: PQresultErrorMessage(r))
        if let detail = field(Int32(urna_pg_diag_message_detail)) { message += " (\(detail))" }
        if let hint = field(Int32(urna_pg_diag_message_hint)) { message += "; hint: \(hint)" }
        return PostgresError(
            message.trimmingCharacters(in: .whitespacesAndNewlines), sqlState: field(Int32(urna_pg_diag_sqlstate)),
            database: displayName, position: field(Int32(urna_pg_diag_statement_position)).flatMap { Int($0) })
    }

    func lastError(sql: String) -> PostgresError {
        PostgresError(
            String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines),
            database: displayName)
    }
}

/// The rows of a query, as text.
public struct PostgresRows: Sendable {
    public let columns: [String]
    /// Each column's type OID (20 bigint, 23 integer, 701 double precision, 1700 numeric, 25 text, ...).
    public let types: [UInt32]
    /// Rows an INSERT, UPDATE or DELETE changed.
    public let affected: Int
    public var rows: [[String?]] = []
}
