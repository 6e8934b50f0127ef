/// Checks SQL a file recorded for one of its objects (`sqlite_master.sql` of an index, view or trigger)
/// before anything runs it again: the text must be exactly one `CREATE` statement of the recorded kind,
/// naming the recorded object, on the recorded table, and must end where that statement ends.
///
/// A file is data: its `sqlite_master` can be edited (`PRAGMA writable_schema`) to carry
/// `CREATE INDEX i ON t(x); COMMIT; ATTACH '/elsewhere/x.db' AS a; ...`. SQLite itself only parses the
/// first statement when it loads the schema, but `sqlite3_exec` of that text would run them all.
///
/// ```swift
/// try SchemaObjectSQL.check(sql, type: "index", name: "Candidate_by_name", table: "Candidate")
/// ```
public enum SchemaObjectSQL {
    /// Why recorded SQL was refused.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// "index", "view" or "trigger".
        public let type: String
        public let name: String
        public let reason: String

        public var description: String {
            "the \(type) \(name) recorded in the file is not one plain CREATE \(type.uppercased()) statement "
                + "(\(reason)); Urna runs no other SQL from a file: drop the \(type) "
                + "(sqlite3 FILE 'DROP \(type.uppercased()) \"\(name)\"') or recreate it, then run again"
        }
    }

    /// Throws `Refusal` unless `sql` is one `CREATE <type>` statement for `name` on `table` and nothing else.
    public static func check(_ sql: String, type: String, name: String, table: String) throws {
        let kind = type.lowercased()
        func refuse(_ reason: String) -> Refusal { Refusal(type: kind, name: name, reason: reason) }
        let tokens: [SQLToken]
        do {
            tokens = try SQLToken.scan(sql)
        } catch let e as SQLToken.Unterminated {
            throw refuse(e.what)
        }
        var cursor = TokenCursor(tokens: tokens)
        guard cursor.takeKeyword("CREATE") else { throw refuse("it does not start with CREATE") }
        switch kind {
        case "index": _ = cursor.takeKeyword("UNIQUE")
        case "view", "trigger": _ = cursor.takeKeyword("TEMP") || cursor.takeKeyword("TEMPORARY")
        default: throw refuse("Urna only recreates indexes, views and triggers")
        }
        guard cursor.takeKeyword(kind.uppercased()) else { throw refuse("it creates something other than a \(kind)") }
        if cursor.takeKeyword("IF") {
            guard cursor.takeKeyword("NOT"), cursor.takeKeyword("EXISTS") else { throw refuse("IF without NOT EXISTS") }
        }
        guard let created = cursor.takeQualifiedName() else {
            throw refuse("no name after CREATE \(kind.uppercased())")
        }
        guard created.caseInsensitiveEquals(name) else { throw refuse("it creates \(created), not \(name)") }
        if kind == "view" {
            // A view's recorded table is itself; its body is a SELECT, which holds no statement end.
            guard !tokens.contains(where: { $0.kind == .semicolon }) else { throw refuse("a ';' ends it early") }
            return
        }
        guard cursor.skip(untilKeyword: "ON"), let onTable = cursor.takeQualifiedName() else {
            throw refuse("no ON <table>")
        }
        guard onTable.caseInsensitiveEquals(table) else { throw refuse("it is on \(onTable), not on \(table)") }
        if kind == "index" {
            guard !tokens.contains(where: { $0.kind == .semicolon }) else { throw refuse("a ';' ends it early") }
            return
        }
        // A trigger: [FOR EACH ROW] [WHEN expr] BEGIN stmt; ... stmt; END — and nothing after that END.
        // Statements in the body end with ';'; an END right after a ';' (outside a CASE ... END) closes the
        // body, so any token after it is a statement of its own.
        guard let begin = cursor.indexOfKeyword("BEGIN"), !tokens[..<begin].contains(where: { $0.kind == .semicolon })
        else { throw refuse("no BEGIN ... END body") }
        var caseDepth = 0
        var afterSemicolon = false
        var i = begin + 1
        while i < tokens.count {
            let t = tokens[i]
            if t.kind == .semicolon {
                afterSemicolon = true
                i += 1
                continue
            }
            if t.isKeyword("CASE") {
                caseDepth += 1
            } else if t.isKeyword("END") {
                if caseDepth > 0 {
                    caseDepth -= 1
                } else if afterSemicolon {
                    guard i == tokens.count - 1 else { throw refuse("more SQL follows the trigger's END") }
                    return
                } else {
                    throw refuse("END where a statement should end with ';'")
                }
            }
            afterSemicolon = false
            i += 1
        }
        throw refuse("its body has no END")
    }
}

/// A position in a token list, with the few moves the check needs.
private struct TokenCursor {
    let tokens: [SQLToken]
    var position = 0

    mutating func takeKeyword(_ word: String) -> Bool {
        guard position < tokens.count, tokens[position].isKeyword(word) else { return false }
        position += 1
        return true
    }

    /// `name` or `schema.name`; the name part, unquoted.
    mutating func takeQualifiedName() -> String? {
        guard position < tokens.count, let first = tokens[position].identifier else { return nil }
        position += 1
        if position + 1 < tokens.count, tokens[position].kind == .punctuation, tokens[position].text == ".",
            let second = tokens[position + 1].identifier
        {
            position += 2
            return second
        }
        return first
    }

    /// Moves past the next bare `word` (at any depth of parentheses); false when there is none.
    mutating func skip(untilKeyword word: String) -> Bool {
        while position < tokens.count {
            defer { position += 1 }
            if tokens[position].isKeyword(word) { return true }
        }
        return false
    }

    func indexOfKeyword(_ word: String) -> Int? {
        tokens[position...].firstIndex(where: { $0.isKeyword(word) })
    }
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        // SQLite folds ASCII letters only.
        func fold(_ s: String) -> [UInt8] { s.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
        return fold(self) == fold(other)
    }
}
