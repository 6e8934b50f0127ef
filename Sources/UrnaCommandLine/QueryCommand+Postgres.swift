import Foundation
import UrnaPostgres
import UrnaStore

/// `urna query --db postgresql://...` answered on the server: the predicate and sort keys compiled to
/// PostgreSQL SQL (values bound), counted or read in a READ ONLY REPEATABLE READ transaction taken after
/// locking `_urna_schema` (`PostgresQuery`), printed by the same code as from a file.
///
/// What is not compiled runs on the working copy, as before (`PostgresStaging`): a `--fields` key path into
/// an embedded object's properties, through two lists, through an inverse list, or through a link before a
/// list; `[c]`/`[d]` on a server that cannot fold exactly as `TextFolding` does (not UTF-8, before
/// PostgreSQL 13, or Unicode tables that disagree: `PostgresQuery.foldsExactly`).
extension QueryCommand {
    /// Runs `query` on the server, or returns nil (having printed nothing) when the working copy must.
    static func runOnPostgres(_ p: ParsedArguments, location: String) throws -> Int32? {
        if PostgresStaging.forcesWorkingCopy { return nil }
        try checkFormats(p)
        let (query, schema) = try PostgresStaging.openQuery(location)
        let typeName = p.positionals[0]
        let type = try checkedType(typeName, in: schema)
        let compiler = QueryCompiler(schema: schema, dialect: .postgres)
        var predicate: QueryPredicate?
        if p.positionals.count > 1 {
            let parsed = try QueryPredicate.parse(p.positionals[1])
            _ = try compiler.compile(parsed, on: typeName)  // its errors first, as Results.filter reports them
            if PostgresQuery.folds(parsed), try !query.foldsExactly() { return nil }
            predicate = parsed
        }
        let sorts = sortKeys(p) ?? []
        var columns: [ProjectedColumn]?
        var projection: FieldProjection?
        if !p.has("count"), let fields = try? self.projection(p, type: type, schema: schema) {
            guard let compiled = try? query.projection(fields.fields, of: typeName) else { return nil }
            projection = fields
            columns = compiled
        }
        // From here on the messages and warnings come in the order the file's command gives them.
        if predicate != nil, let hint = likeHint(p.positionals[1]) { CLI.printError("warning: \(hint)") }
        _ = try compiler.orderBy(sorts, on: typeName, alias: "t0")
        let limit = try limit(p)
        if p.has("count") {
            print(try query.count(of: typeName, where: predicate, limit: limit))
            return ExitCode.ok
        }
        guard let projection, let columns else {
            _ = try self.projection(p, type: type, schema: schema)  // throws the --fields error
            return nil
        }
        let names = projection.fields.map(\.name)
        try printObjects(p, typeName: typeName, names: names) { row in
            try query.read(columns, names: names, of: typeName, where: predicate, sortedBy: sorts, limit: limit, row)
        }
        return ExitCode.ok
    }
}

extension PostgresStaging {
    /// `URNA_PG_WORKING_COPY=1`: every command runs on the working copy (for comparing the two ways).
    static var forcesWorkingCopy: Bool { ProcessInfo.processInfo.environment["URNA_PG_WORKING_COPY"] == "1" }

    /// A read-only snapshot of the database at `location` and the schema it records, with urna's lock wait
    /// (a timeout says how to wait longer) and the message for a database without Urna data.
    static func openQuery(_ location: String) throws -> (PostgresQuery, Schema) {
        let query: PostgresQuery
        do {
            query = try PostgresQuery(url: location, lockTimeoutMilliseconds: lockTimeoutMilliseconds)
        } catch let e as PostgresWorkingCopy.LockTimeout {
            throw CLIError(ExitCode.failure, "\(e); or set URNA_PG_LOCK_TIMEOUT (milliseconds) to wait longer")
        }
        guard let schema = query.recorded else { throw noUrnaData(query.connection.displayName) }
        return (query, schema)
    }
}

extension StatusCommand {
    /// `status` on the server: the recorded schema and one `count(*)` per type, in the same snapshot; nil
    /// (nothing printed) when `URNA_PG_WORKING_COPY=1` asks for the working copy.
    static func runOnPostgres(_ p: ParsedArguments, location: String) throws -> Int32? {
        if PostgresStaging.forcesWorkingCopy { return nil }
        let (query, schema) = try PostgresStaging.openQuery(location)
        var counts: [String: Int] = [:]
        for t in schema.tableTypes { counts[t.name] = try query.count(of: t.name, where: nil) }
        try report(p, schema: schema, counts: counts, name: query.connection.displayName)
        return ExitCode.ok
    }
}
