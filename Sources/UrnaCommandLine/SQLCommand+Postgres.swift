import Foundation
import UrnaPostgres
import UrnaStore

extension SQLCommand {
    /// `urna sql --db postgresql://...`: the statement is PostgreSQL's dialect and runs on the server, in a
    /// READ ONLY transaction unless --write (then in one transaction that commits only if it succeeds).
    static func runOnPostgres(_ p: ParsedArguments, location: String) throws -> Int32 {
        let (format, parameters) = try options(p)
        let write = p.has("write")
        let (sql, values) = try PostgresParameters.rewrite(p.positionals[0], parameters)
        if !write, let reason = PostgresReadOnly.refusal(sql) {
            throw UsageError(
                "\(CommandContext.current.toolName) sql is read-only and this statement is not: \(reason); nothing "
                    + "was sent to the server "
                    + "(add --write to run it, in one transaction, if you trust it)")
        }
        let pg = try PostgresConnection(location)
        try pg.execute("SET lock_timeout = \(PostgresStaging.lockTimeoutMilliseconds)")
        // A reader's snapshot comes after any urna write in progress has committed (never a half-refilled table).
        if write { try pg.execute("BEGIN") } else { try PostgresTransfer.beginSnapshot(pg) }
        let result: PostgresRows
        var userTimeout = ""
        do {
            // What the statement may not change, read with urna's own settings before it runs.
            let guarded = write ? try PostgresSQLGuard.before(pg) : nil
            // The statement is the user's own SQL: names resolve through their search path and row-level
            // security policies apply, as in psql.
            try pg.restoreUserSettings()
            userTimeout = try pg.scalar("SHOW statement_timeout") ?? ""
            result = try pg.query(sql, values)
            if let guarded { try refuseChanges(guarded, of: sql, in: pg, allowTriggers: p.has("allow-triggers")) }
        } catch let e as PostgresError where e.sqlState == "25006" {
            try? pg.execute("ROLLBACK")
            if write {
                // --write was given: the server itself makes this session's transactions read-only.
                throw CLIError(
                    ExitCode.failure,
                    "\(pg.displayName) is read-only for this session (default_transaction_read_only is on for the "
                        + "role or database, or the server is a standby); nothing was changed: connect to the primary, "
                        + "or as a role that may write")
            }
            throw UsageError(
                "this statement would change the database, and \(CommandContext.current.toolName) sql is read-only: "
                    + "add --write to run it "
                    + "(in one transaction)")
        } catch let e as PostgresError where e.sqlState == "57014" && e.message.contains("statement timeout") {
            try? pg.execute("ROLLBACK")
            // The user's statement ran under the role's or database's own limit (as in psql): say which.
            throw CLIError(
                ExitCode.failure,
                "\(pg.displayName): the statement ran longer than the statement_timeout (\(userTimeout)) the role, "
                    + "database or PGOPTIONS set, and the server cancelled it; nothing was changed: run it with "
                    + "PGOPTIONS=-cstatement_timeout=0 (or a longer limit) to let it finish")
        } catch let e as PostgresError where e.isBadStatement {
            try? pg.execute("ROLLBACK")
            // As on SQLite: bad usage (64), with the place under the statement as sent (:name shown as $n).
            let offset = e.position.map { sql.prefix(max($0 - 1, 0)).utf8.count } ?? -1
            throw UsageError(SQLStatement.describe(e.message, in: sql, byteOffset: offset))
        } catch {
            try? pg.execute("ROLLBACK")
            throw error
        }
        if write { try PostgresInterrupt.committing { try pg.execute("COMMIT") } } else { try pg.execute("COMMIT") }
        var index = 0
        let rows = try printRows(
            names: result.columns,
            next: {
                guard index < result.rows.count else { return nil }
                defer { index += 1 }
                return zip(result.rows[index], result.types).map { PostgresParameters.value($0, type: $1) }
            }, as: format)
        if write {
            CLI.printError("\(result.affected) row\(result.affected == 1 ? "" : "s") changed")
        } else if format == .table {
            CLI.printError("\(rows) row\(rows == 1 ? "" : "s")")
        }
        return ExitCode.ok
    }
}

extension SQLCommand {
    /// Rolls back (exit 65) a `--write` statement that set off a trigger on the family's tables (unless
    /// `allowTriggers`) or changed what `guarded` keeps, as on SQLite files. A statement-level or BEFORE row
    /// trigger leaves no row count behind when it fires, so while one is there any statement that writes
    /// (`sql` is not read-only, or the transaction wrote something) is taken to have set it off.
    static func refuseChanges(
        _ guarded: PostgresSQLGuard, of sql: String, in pg: PostgresConnection, allowTriggers: Bool
    ) throws {
        if !guarded.unseen.isEmpty, !allowTriggers,
            try PostgresReadOnly.refusal(sql) != nil || PostgresSQLGuard.wrote(in: pg)
        {
            let names = guarded.unseen.map(\.qualifiedName)
            throw CLIError(
                ExitCode.badData,
                "the \(guarded.schema.family) family's tables have \(names.count == 1 ? "a trigger" : "\(names.count) triggers") "
                    + "made on the server that fire\(names.count == 1 ? "s" : "") per statement or before each row "
                    + "(\(names.joined(separator: ", "))), even when no row changes, so PostgreSQL leaves no count "
                    + "of \(names.count == 1 ? "it" : "them") firing and this statement, which writes, is taken to have "
                    + "set \(names.count == 1 ? "it" : "them") off; it was rolled back (nothing was changed): pass "
                    + "--allow-triggers to let \(names.count == 1 ? "it" : "them") run, or disable "
                    + "\(names.count == 1 ? "it" : "them") first (ALTER TABLE ... DISABLE TRIGGER name)")
        }
        let fired = try guarded.firedTriggers(in: pg)
        if !fired.isEmpty, !allowTriggers {
            throw CLIError(
                ExitCode.badData,
                "the statement set off \(fired.count == 1 ? "a trigger" : "\(fired.count) triggers") made on the "
                    + "server on the \(guarded.schema.family) family's tables (\(fired.map(\.qualifiedName).joined(separator: ", "))); "
                    + "it was rolled back (nothing was changed): pass --allow-triggers to let "
                    + "\(fired.count == 1 ? "it" : "them") run")
        }
        let problems = try guarded.problems(after: pg)
        guard problems.isEmpty else {
            throw CLIError(
                ExitCode.badData,
                "this statement changes the \(guarded.schema.family) family's tables or what "
                    + "\(CommandContext.current.toolName) records about the database, which its imports and migrations "
                    + "rely on: \(problems.joined(separator: "; ")); it was rolled back (nothing was changed): change "
                    + "them with a migration step instead")
        }
    }
}

/// `:name` parameters (as urna sql takes them on SQLite) turned into PostgreSQL's `$n`.
enum PostgresParameters {
    /// The SQL with `:name` replaced by `$1`, `$2`, ... outside quotes and comments (a `::cast` is left
    /// alone), and the values in that order. Every parameter must be given and every given one used.
    static func rewrite(_ sql: String, _ given: [(name: String, value: String)]) throws -> (String, [String?]) {
        let b = Array(sql.utf8)
        var out: [UInt8] = []
        var order: [String] = []
        var i = 0
        while i < b.count {
            let c = b[i]
            if c == 36, let tagEnd = dollarTagEnd(b, from: i) {  // $$...$$ or $tag$...$tag$: copied through
                let tag = Array(b[i...tagEnd])
                var j = tagEnd + 1
                while j < b.count, !(b[j] == 36 && j + tag.count <= b.count && Array(b[j..<(j + tag.count)]) == tag) {
                    j += 1
                }
                let end = min(j + tag.count, b.count)
                out += b[i..<end]
                i = end
                continue
            }
            if c == 47, i + 1 < b.count, b[i + 1] == 42 {  // /* comment */
                var j = i + 2
                while j + 1 < b.count, !(b[j] == 42 && b[j + 1] == 47) { j += 1 }
                let end = min(j + 2, b.count)
                out += b[i..<end]
                i = end
                continue
            }
            if c == 39 || c == 34 {  // 'text' or "identifier": copied through, doubled quotes included
                let quote = c
                // E'...' strings take backslash escapes: \' does not end them.
                let escapes =
                    c == 39 && i > 0 && (b[i - 1] == 69 || b[i - 1] == 101) && (i < 2 || !isNameByte(b[i - 2]))
                out.append(c)
                i += 1
                while i < b.count {
                    out.append(b[i])
                    if escapes, b[i] == 92, i + 1 < b.count {
                        out.append(b[i + 1])
                        i += 2
                        continue
                    }
                    if b[i] == quote {
                        if i + 1 < b.count, b[i + 1] == quote {
                            out.append(b[i + 1])
                            i += 2
                            continue
                        }
                        i += 1
                        break
                    }
                    i += 1
                }
                continue
            }
            if c == 45, i + 1 < b.count, b[i + 1] == 45 {  // -- comment to the end of the line
                while i < b.count, b[i] != 10 {
                    out.append(b[i])
                    i += 1
                }
                continue
            }
            if c == 58, i + 1 < b.count, b[i + 1] == 58 {  // ::type
                out += [58, 58]
                i += 2
                continue
            }
            if c == 58, i + 1 < b.count, isNameByte(b[i + 1]), !isDigit(b[i + 1]) {
                var j = i + 1
                while j < b.count, isNameByte(b[j]) { j += 1 }
                let name = String(decoding: b[(i + 1)..<j], as: UTF8.self)
                if !order.contains(name) { order.append(name) }
                out += Array("$\(order.firstIndex(of: name)! + 1)".utf8)
                i = j
                continue
            }
            out.append(c)
            i += 1
        }
        var values: [String?] = []
        for name in order {
            guard let v = given.last(where: { $0.name == name }) else {
                throw UsageError("the SQL uses :\(name) but no --param \(name)=VALUE is given")
            }
            values.append(v.value)
        }
        if let unused = given.first(where: { !order.contains($0.name) }) {
            throw UsageError("--param \(unused.name) is given but the SQL does not use :\(unused.name)")
        }
        return (String(decoding: out, as: UTF8.self), values)
    }

    /// A letter, digit or `_` (identifier bytes).
    static func isNameByte(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || isDigit(c)
    }
    static func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }

    /// Where the opening `$tag$` of a dollar-quoted string starting at `start` ends, or nil (`$1` is not one).
    /// The tag is a name as PostgreSQL reads one: letters (any non-ASCII byte counts as one), digits after the
    /// first, `_`.
    static func dollarTagEnd(_ b: [UInt8], from start: Int) -> Int? {
        func isTagByte(_ c: UInt8) -> Bool { isNameByte(c) || c >= 128 }
        if start > 0, isTagByte(b[start - 1]) { return nil }  // part of an identifier (a$b$)
        var j = start + 1
        while j < b.count, isTagByte(b[j]), !(j == start + 1 && isDigit(b[j])) { j += 1 }
        return j < b.count && b[j] == 36 ? j : nil
    }

    /// A PostgreSQL text value as urna sql prints it: whole numbers and floats as numbers, numeric as its
    /// exact text, booleans as 1/0 like SQLite.
    static func value(_ text: String?, type: UInt32) -> SQLValue {
        guard let text else { return .null }
        switch type {
        case 20, 21, 23: return Int64(text).map(SQLValue.integer) ?? .text(text)
        case 700, 701: return Double(text).map(SQLValue.real) ?? .text(text)
        case 16: return .integer(text == "t" ? 1 : 0)
        default: return .text(text)
        }
    }
}
