import CPostgreSQL
import Foundation

/// A failure reported by libpq or the server: the message, the SQLSTATE when the server sent one, and the
/// database it happened on (password hidden).
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public let sqlState: String?
    public let database: String
    /// Where in the statement the server found the error (1-based, in characters), when it said.
    public let position: Int?

    public init(_ message: String, sqlState: String? = nil, database: String, position: Int? = nil) {
        self.message = message
        self.sqlState = sqlState
        self.database = database
        self.position = position
    }

    /// A statement the server could not take as written (SQLSTATE class 42: syntax, unknown table, column or
    /// function, permission): the user's SQL is at fault, not the server.
    public var isBadStatement: Bool { sqlState?.hasPrefix("42") ?? false }

    /// lock_timeout (55P03) or a deadlock (40P01): another session holds what this one needs.
    public var isLockTimeout: Bool { sqlState == "55P03" || sqlState == "40P01" }

    public var description: String {
        "PostgreSQL at \(database): \(message)" + (sqlState.map { " (SQLSTATE \($0))" } ?? "")
    }
}

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
        // PostgreSQL 17's transaction_timeout would end a long import or migration the same way (not tested here:
        // the test servers are 15).
        if PQserverVersion(h) >= 170_000 { try execute("SET transaction_timeout = 0") }
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
        if PQserverVersion(handle) >= 170_000 { try execute("RESET transaction_timeout") }
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

    /// Runs `COPY ... FROM STDIN` and lets `body` write the data through the writer (text format lines).
    /// Returns the number of rows the server stored.
    @discardableResult
    public func copyIn(_ sql: String, _ body: (CopyInWriter) throws -> Void) throws -> Int {
        try startCopy(sql, expecting: PGRES_COPY_IN)
        let writer = CopyInWriter(connection: self)
        do {
            try body(writer)
            try writer.flush()
        } catch {
            _ = PQputCopyEnd(handle, "urna stopped the copy")
            drainResults()
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw lastError(sql: sql) }
        var stored = 0
        var failure: PostgresError?
        while let res = PQgetResult(handle) {
            if PQresultStatus(res) == PGRES_COMMAND_OK {
                stored = Int(String(cString: PQcmdTuples(res))) ?? 0
            } else if failure == nil {
                failure = resultError(res, sql: sql)
            }
            PQclear(res)
        }
        if let failure { throw failure }
        return stored
    }

    /// Runs `COPY ... TO STDOUT` (text format) and hands each row's fields to `row` (nil for NULL).
    public func copyOut(_ sql: String, _ row: ([String?]) throws -> Void) throws {
        try copyOutLines(sql) { try row(CopyText.decodeLine($0)) }
    }

    /// Runs `COPY ... TO STDOUT` and hands each line as the server sent it (newline included, valid only inside
    /// `line`); after an error thrown by `line` the rest is read and dropped, so the connection stays usable.
    public func copyOutLines(_ sql: String, _ line: (UnsafeRawBufferPointer) throws -> Void) throws {
        try startCopy(sql, expecting: PGRES_COPY_OUT)
        var pending: Error?
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let n = PQgetCopyData(handle, &buffer, 0)
            if n == -1 { break }
            if n == -2 { throw lastError(sql: sql) }
            guard let buffer else { continue }
            defer { PQfreemem(buffer) }
            if pending != nil { continue }  // read to the end so the connection stays usable
            let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(n))
            do { try line(bytes) } catch { pending = error }
        }
        var failure: PostgresError?
        while let res = PQgetResult(handle) {
            if PQresultStatus(res) != PGRES_COMMAND_OK, failure == nil { failure = resultError(res, sql: sql) }
            PQclear(res)
        }
        if let pending { throw pending }
        if let failure { throw failure }
    }

    /// Sends a COPY statement and checks the server entered the expected copy mode.
    private func startCopy(_ sql: String, expecting mode: ExecStatusType) throws {
        let r = PQexec(handle, sql)
        defer { PQclear(r) }
        guard PQresultStatus(r) == mode else {
            try check(r, sql: sql)
            throw PostgresError("\(sql) did not start a COPY", database: displayName)
        }
    }

    func putCopyData(_ bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count > 0 else { return }
        let ok = bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw lastError(sql: "COPY") }
    }

    private func drainResults() {
        while let res = PQgetResult(handle) { PQclear(res) }
    }

    private func check(_ r: OpaquePointer?, sql: String) throws {
        guard let r else { throw lastError(sql: sql) }
        switch PQresultStatus(r) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw resultError(r, sql: sql)
        }
    }

    private func resultError(_ r: OpaquePointer, sql: String) -> PostgresError {
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

    private func lastError(sql: String) -> PostgresError {
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

/// Buffers COPY text and sends it to the server in large chunks.
public final class CopyInWriter {
    let connection: PostgresConnection
    var buffer: [UInt8] = []

    init(connection: PostgresConnection) {
        self.connection = connection
        buffer.reserveCapacity(1 << 17)
    }

    /// Appends one field of the current row from bytes (escaped for COPY's text format); `first` for the
    /// row's first field. End the row with `endRow()`.
    @inline(__always) public func field(_ bytes: UnsafeRawBufferPointer, first: Bool) {
        CopyText.appendField(bytes, first: first, to: &buffer)  // one exclusive access per field, not per byte
    }

    /// Appends a whole number field.
    @inline(__always) public func field(_ value: Int64, first: Bool) {
        CopyText.appendField(value, first: first, to: &buffer)
    }

    /// Appends a field as text (nil: NULL).
    public func field(_ text: String?, first: Bool) {
        CopyText.appendField(text, first: first, to: &buffer)
    }

    /// Ends the current row.
    public func endRow() throws {
        buffer.append(10)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Sends bytes that are already whole COPY lines, after anything buffered.
    func send(_ lines: UnsafeRawBufferPointer) throws {
        try flush()
        try connection.putCopyData(lines)
    }

    func flush() throws {
        try buffer.withUnsafeBytes { try connection.putCopyData($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// COPY's text format: tab-separated fields, `\N` for NULL, backslash escapes for tab, newline, CR and backslash.
public enum CopyText {
    /// One whole row, as `CopyInWriter` writes it field by field.
    public static func encodeLine(_ fields: [String?], into out: inout [UInt8]) {
        for (i, f) in fields.enumerated() { appendField(f, first: i == 0, to: &out) }
        out.append(10)
    }

    /// A text field (nil: `\N`).
    static func appendField(_ text: String?, first: Bool, to out: inout [UInt8]) {
        guard var text else {
            if !first { out.append(9) }
            out.append(92)
            out.append(78)
            return
        }
        text.withUTF8 { appendField(UnsafeRawBufferPointer($0), first: first, to: &out) }
    }

    /// The letter COPY's text format writes after a backslash for `byte` (backslash, tab, newline, carriage
    /// return), or nil for a byte written as it is.
    @inline(__always) static func escapeLetter(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 92: 92
        case 9: 116
        case 10: 110
        case 13: 114
        default: nil
        }
    }

    @inline(__always) static func appendField(_ bytes: UnsafeRawBufferPointer, first: Bool, to out: inout [UInt8]) {
        if !first { out.append(9) }
        for b in bytes {
            if let letter = escapeLetter(b) {
                out.append(92)
                out.append(letter)
            } else {
                out.append(b)
            }
        }
    }

    @inline(__always) static func appendField(_ value: Int64, first: Bool, to out: inout [UInt8]) {
        if !first { out.append(9) }
        if value < 0 { out.append(45) }
        var v = value.magnitude
        var divisor: UInt64 = 1
        while v / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(48 + (v / divisor) % 10))
            v %= divisor
            divisor /= 10
        }
    }

    /// One line as the server sends it (with its newline) back into fields.
    public static func decodeLine(_ bytes: UnsafeRawBufferPointer) -> [String?] {
        var end = bytes.count
        if end > 0, bytes[end - 1] == 10 { end -= 1 }
        var fields: [String?] = []
        var current: [UInt8] = []
        var isNull = false
        var i = 0
        func finish() {
            fields.append(isNull ? nil : String(decoding: current, as: UTF8.self))
            current.removeAll(keepingCapacity: true)
            isNull = false
        }
        while i < end {
            let b = bytes[i]
            if b == 9 {
                finish()
            } else if b == 92, i + 1 < end {
                i += 1
                switch bytes[i] {
                case 78: isNull = true
                case 116: current.append(9)
                case 110: current.append(10)
                case 114: current.append(13)
                case 98: current.append(8)
                case 102: current.append(12)
                case 118: current.append(11)
                default: current.append(bytes[i])
                }
            } else {
                current.append(b)
            }
            i += 1
        }
        finish()
        return fields
    }
}

/// `postgresql://` locations: recognising them and hiding their passwords.
public enum PostgresURL {
    /// Whether a `--db` value names a PostgreSQL database rather than a file.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// The location with its password replaced by `***` wherever it appears (`user:secret@`, `?password=`,
    /// conninfo `password=...`), also when libpq cannot parse the location.
    public static func redacted(_ location: String) -> String {
        replacing(passwords(in: location), in: redactedByShape(location))
    }

    /// `text` with every form of the password `location` holds (as written, percent-decoded, as libpq
    /// reads it) replaced by `***`, and any `scheme://user:secret@` or `password=` in it masked.
    public static func scrub(_ text: String, secretsOf location: String) -> String {
        maskCredentials(replacing(passwords(in: location), in: text))
    }

    /// Every form of the password `location` holds: as written in a URL's authority and percent-decoded, and as
    /// libpq reads it (URL or conninfo) and percent-encoded; longest first, so no form is half masked.
    static func passwords(in location: String) -> [String] {
        var found: [String] = []
        if let schemeEnd = location.range(of: "://") {
            let rest = location[schemeEnd.upperBound...]
            let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
            if let at = rest[..<queryStart].lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
                let raw = String(rest[rest.index(after: colon)..<at])
                found.append(raw)
                if let decoded = raw.removingPercentEncoding { found.append(decoded) }
            }
        }
        var error: UnsafeMutablePointer<CChar>?
        if let options = PQconninfoParse(location, &error) {
            defer { PQconninfoFree(options) }
            var o = options
            while let keyword = o.pointee.keyword {
                if String(cString: keyword) == "password", let v = o.pointee.val {
                    let password = String(cString: v)
                    found.append(password)
                    if let encoded = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
                        found.append(encoded)
                    }
                }
                o = o.advanced(by: 1)
            }
        }
        if let error { PQfreemem(error) }
        return Set(found.filter { !$0.isEmpty }).sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    private static func replacing(_ secrets: [String], in text: String) -> String {
        secrets.reduce(text) { $0.replacingOccurrences(of: $1, with: "***") }
    }

    /// Any `scheme://user:secret@` (whatever the scheme's case, one slash or two) and `password=...` in `text`
    /// masked: for messages that echo what a user typed as a path.
    public static func maskCredentials(_ text: String) -> String {
        text.replacingOccurrences(
            of: #"([A-Za-z][A-Za-z0-9+.-]*:/{1,2}[^:/@\s]*):[^@\s]*@"#, with: "$1:***@", options: .regularExpression
        ).replacingOccurrences(
            of: #"(?i)password\s*=\s*('([^'\\]|\\.)*'|[^\s&'"]*)"#, with: "password=***", options: .regularExpression)
    }

    static func redactedByShape(_ location: String) -> String {
        if isPostgres(location), let schemeEnd = location.range(of: "://") {
            let rest = location[schemeEnd.upperBound...]
            // The authority ends at the last '@' before any '?' (a password may hold an unescaped '/').
            let queryStart = rest.firstIndex(of: "?") ?? rest.endIndex
            let lastAt = rest[..<queryStart].lastIndex(of: "@")
            let authorityEnd =
                lastAt.map { at in rest[at...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex }
                ?? (rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)
            let authority = rest[..<authorityEnd]
            var masked = location
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                masked = String(location[..<schemeEnd.upperBound]) + authority[..<colon] + ":***" + rest[at...]
            }
            return masked.replacingOccurrences(
                of: #"password=[^&]*"#, with: "password=***", options: .regularExpression)
        }
        return location.replacingOccurrences(
            of: #"password\s*=\s*('([^'\\]|\\.)*'|\S*)"#, with: "password=***", options: .regularExpression)
    }
}
