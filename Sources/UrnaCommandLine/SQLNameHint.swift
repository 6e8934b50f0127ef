import CSQLite
import Foundation

/// "did you mean" for `urna sql`'s misspelt names: SQLite says only "no such table: Parti" or "no such column:
/// nam"; this names the closest table or view of the file, or the closest column of the tables the SQL names.
enum SQLNameHint {
    /// The text to add to SQLite's `message`, or "" when it is about no name or nothing is close.
    static func hint(for message: String, sql: String, connection: OpaquePointer) -> String {
        let tables = names(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                + "AND name NOT LIKE '\\_urna\\_%' ESCAPE '\\' ORDER BY name",
            connection: connection)
        if let missing = missingName(in: message, after: "no such table: ") {
            let bare = missing.split(separator: ".").last.map(String.init) ?? missing
            // At most 20 names: a file of thousands of tables made a 140 KB message.
            let shown = tables.prefix(20).joined(separator: ", ")
            let more = tables.count > 20 ? ", and \(tables.count - 20) more" : ""
            let tablesHint = tables.isEmpty ? "" : " (the file has: \(shown)\(more))"
            guard let close = closest(bare, among: tables) else { return tablesHint }
            return "; did you mean '\(close)'?" + tablesHint
        }
        if let missing = missingName(in: message, after: "no such column: ") {
            let bare = missing.split(separator: ".").last.map(String.init) ?? missing
            let words = Set(sql.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
            var columns: [String] = []
            for table in tables where words.contains(table) {
                let quoted = table.replacingOccurrences(of: "\"", with: "\"\"")
                columns += columnNames(of: "SELECT * FROM \"\(quoted)\" LIMIT 0", connection: connection)
            }
            guard let close = closest(bare, among: columns) else { return "" }
            return "; did you mean '\(close)'?"
        }
        return ""
    }

    static func missingName(in message: String, after prefix: String) -> String? {
        guard let range = message.range(of: prefix) else { return nil }
        let name = String(message[range.upperBound...]).trimmingCharacters(in: .whitespaces)
        return name.isEmpty ? nil : name
    }

    /// The name closest to `name` within two edits, ignoring case (SQLite's names are case-insensitive).
    static func closest(_ name: String, among candidates: [String]) -> String? {
        let lowered = name.lowercased()
        let scored = candidates.map { ($0, ArgumentParser.editDistance(lowered, $0.lowercased())) }
            .filter { $0.1 <= 2 && $0.1 < max(lowered.count, 1) }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// The names of the columns `sql` would give (prepared, never stepped).
    static func columnNames(of sql: String, connection: OpaquePointer) -> [String] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            return []
        }
        defer { sqlite3_finalize(stmt) }
        return (0..<sqlite3_column_count(stmt)).compactMap { i in
            sqlite3_column_name(stmt, i).map { String(cString: $0) }
        }
    }

    /// The first column of each row of `sql`, read on `connection`; empty when it cannot run.
    static func names(_ sql: String, connection: OpaquePointer) -> [String] {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            return []
        }
        defer { sqlite3_finalize(stmt) }
        var out: [String] = []
        while sqlite3_step(stmt) == SQLITE_ROW {
            if let text = sqlite3_column_text(stmt, 0) { out.append(String(cString: text)) }
        }
        return out
    }
}
