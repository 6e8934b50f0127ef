import Foundation
import UrnaStore

extension MigrationRunner {
    /// An app's full-text index over a family table, kept as SQLite documents it
    /// (`CREATE VIRTUAL TABLE course_search USING fts5(title, content='Course')`), holds the rowids of that
    /// table's rows; a table the run rebuilt numbers its rows afresh (a deleted row left a gap), so the index would
    /// find nothing, or other rows. Each such index whose content table the run wrote is rebuilt from it with the
    /// module's own `'rebuild'` command (only the index's name is taken from the file); one that cannot be (its
    /// columns are gone) fails the run, naming it.
    func rebuildExternalContentIndexes(
        _ c: Connection, log: FailureLog, report: inout MigrationReport, written: WrittenTables
    ) throws {
        let writtenNames = Set(written.names.map { $0.lowercased() })
        var rebuilt: [String] = []
        let rows = try c.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")
        for r in rows {
            guard case .text(let name) = r[0], case .text(let sql) = r[1],
                let content = Self.externalContentTable(sql), writtenNames.contains(content.lowercased())
            else { continue }
            let quoted = Identifier.quoted(name)
            do {
                try c.execute("INSERT INTO \(quoted)(\(quoted)) VALUES ('rebuild')")
                rebuilt.append("\(name) (over \(content))")
            } catch let e as SQLiteError {
                log.record(
                    ValidationFailure(
                        check: "user-objects", type: name,
                        message:
                            "your search index \(name) over \(content) could not be rebuilt after the run rewrote "
                            + "\(content) (\(e.message)): drop it in a step's sqlBefore and recreate it in its sqlAfter"
                    ))
            }
        }
        guard !rebuilt.isEmpty else { return }
        report.checks.append(
            CheckResult(
                name: "search indexes", passed: log.isEmpty,
                detail: "rebuilt over the rewritten rows: \(rebuilt.joined(separator: ", "))"))
    }

    /// The table an FTS3/4/5 table takes its text from (`content='Course'`), or nil (its own text, contentless,
    /// or another module).
    static func externalContentTable(_ sql: String) -> String? {
        // Words and the opening parenthesis are looked for outside quotes only: the table's own name may hold
        // spaces, parentheses or the word USING (`"course search (v2)"`).
        let chars = Array(sql)
        var words: [(text: String, end: Int)] = []
        var word = ""
        var quote: Character?
        var open: Int?
        for (i, ch) in chars.enumerated() {
            if let q = quote {
                if ch == q {
                    quote = nil
                    words.append((word, i))  // a quoted name is a word of its own (`USING "fts5"` too)
                    word = ""
                } else {
                    word.append(ch)
                }
                continue
            }
            if ch == "'" || ch == "\"" || ch == "`" || ch == "[" {
                quote = ch == "[" ? "]" : ch
                if !word.isEmpty { words.append((word, i)) }
                word = ""
            } else if ch.isWhitespace || ch == "(" {
                if !word.isEmpty { words.append((word, i)) }
                word = ""
                if ch == "(" {
                    open = i
                    break
                }
            } else {
                word.append(ch)
            }
        }
        guard let open, words.count >= 2, words[words.count - 2].text.uppercased() == "USING",
            ["fts3", "fts4", "fts5"].contains(words[words.count - 1].text.lowercased()),
            let close = chars.lastIndex(of: ")"), open < close
        else { return nil }
        for argument in arguments(String(chars[(open + 1)..<close])) {
            guard let equals = argument.firstIndex(of: "=") else { continue }
            let key = argument[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard key == "content" else { continue }
            let value = unquoted(argument[argument.index(after: equals)...].trimmingCharacters(in: .whitespaces))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// A module's arguments split at the commas outside quotes.
    static func arguments(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quote: Character?
        for ch in text {
            if let q = quote {
                if ch == q { quote = nil }
            } else if ch == "'" || ch == "\"" || ch == "`" {
                quote = ch
            } else if ch == "[" {
                quote = "]"
            } else if ch == "," {
                out.append(current)
                current = ""
                continue
            }
            current.append(ch)
        }
        out.append(current)
        return out
    }

    /// `'Course'`, `"Course"`, `` `Course` ``, `[Course]` or `Course` as the name it spells.
    static func unquoted(_ text: String) -> String {
        guard let first = text.first, let last = text.last, text.count >= 2 else { return text }
        switch (first, last) {
        case ("'", "'"), ("\"", "\""), ("`", "`"):
            return String(text.dropFirst().dropLast()).replacingOccurrences(of: "\(first)\(first)", with: "\(first)")
        case ("[", "]"):
            return String(text.dropFirst().dropLast())
        default:
            return text
        }
    }
}
