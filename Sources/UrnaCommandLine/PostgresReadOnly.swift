/// What `urna sql` without `--write` refuses on PostgreSQL before sending the statement.
///
/// A `READ ONLY` transaction stops writes to tables and sequences, but PostgreSQL lets some statements and
/// functions act outside it: `COPY ... TO` a server file or `PROGRAM` (a shell command on the server), large
/// objects (`lo_import`, `lo_unlink`, ...), signals to other sessions (`pg_terminate_backend`), `NOTIFY`,
/// advisory locks, reloading the configuration. So a read-only statement must start with SELECT, WITH,
/// VALUES, TABLE, SHOW or EXPLAIN, and may call none of the built-in functions below, under any schema or
/// quoting. Functions a user defined are not inspected: give untrusted SQL a role that can only read.
enum PostgresReadOnly {
    /// The first words a read-only statement may start with.
    static let statements: Set<String> = ["select", "with", "values", "table", "show", "explain"]

    /// Built-in functions with effects outside the transaction (on other sessions, server files, large objects,
    /// replication, statistics, indexes) or that run a query given as text, which this check cannot see into.
    static let functions: Set<String> = [
        "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_logical_emit_message",
        "pg_notify", "pg_switch_wal", "pg_promote", "pg_create_restore_point", "pg_backup_start", "pg_backup_stop",
        "pg_start_backup", "pg_stop_backup", "pg_wal_replay_pause", "pg_wal_replay_resume", "pg_read_file",
        "pg_read_binary_file", "pg_stat_file", "pg_import_system_collations", "pg_drop_replication_slot",
        "set_config", "nextval", "setval", "pg_log_backend_memory_contexts", "gin_clean_pending_list",
        "brin_summarize_new_values", "brin_summarize_range", "brin_desummarize_range", "pg_prewarm",
        // Large objects that write (lo_get, loread, lo_open for reading stay allowed).
        "lo_import", "lo_export", "lo_create", "lo_creat", "lo_unlink", "lo_from_bytea", "lo_put", "lowrite",
        "lo_truncate", "lo_truncate64",
        // A query given as text runs unchecked.
        "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml", "cursor_to_xmlschema",
        "ts_stat", "ts_rewrite", "crosstab", "crosstab2", "crosstab3", "crosstab4", "connectby",
    ]

    /// Prefixes of built-in function families with such effects (advisory locks, directory listings,
    /// replication slots and origins, statistics resets, server files from extensions, dblink).
    static let functionPrefixes = [
        "pg_advisory", "pg_try_advisory", "pg_ls_", "pg_create_", "pg_copy_", "pg_file_", "dblink",
        "pg_replication_", "pg_logical_slot_", "pg_stat_reset", "pg_wal_replay_",
    ]

    /// Why `sql` may not run read-only, or nil when it may.
    static func refusal(_ sql: String) -> String? {
        let tokens = tokenize(sql)
        // U&"..." identifiers spell names with escapes (U&"\006Co_import" is lo_import), which the checks below
        // would not see: not taken read-only.
        if tokens.contains(.ampersandQuote) {
            return "U&\"...\" identifiers (names written with escapes) cannot be checked"
        }
        var atStatementStart = true
        for (k, t) in tokens.enumerated() {
            switch t {
            case .semicolon:
                atStatementStart = true
            case .word(let w, let quoted):
                if atStatementStart {
                    atStatementStart = false
                    if quoted || !statements.contains(w) {
                        return "a read-only statement starts with SELECT, WITH, VALUES, TABLE, SHOW or EXPLAIN, not "
                            + "'\(w.uppercased())'"
                    }
                }
                let calls = k + 1 < tokens.count && tokens[k + 1] == .openParen
                if calls {
                    let name = w.split(separator: ".").last.map(String.init) ?? w
                    if functions.contains(name) || functionPrefixes.contains(where: { name.hasPrefix($0) }) {
                        return "\(name)() acts outside a read-only transaction (on other sessions, server files or "
                            + "large objects)"
                    }
                }
            case .openParen, .other, .ampersandQuote:
                atStatementStart = false
            }
        }
        return nil
    }

    enum Token: Equatable {
        /// A bare word (lowercased, with its schema qualifier joined by dots) or a "quoted" identifier.
        case word(String, quoted: Bool)
        case openParen
        case semicolon
        case other
        /// `U&` right before a quoted identifier (outside literals and comments).
        case ampersandQuote
    }

    /// Words, quoted identifiers, `(` and `;` outside string literals, dollar quotes and comments.
    static func tokenize(_ sql: String) -> [Token] {
        let b = Array(sql.utf8)
        var out: [Token] = []
        var i = 0
        func isWordByte(_ c: UInt8) -> Bool {
            (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 95 || c == 36 || c >= 128
        }
        while i < b.count {
            let c = b[i]
            if c == 45, i + 1 < b.count, b[i + 1] == 45 {  // -- comment, to the line end (LF or CR, as PostgreSQL)
                while i < b.count, b[i] != 10, b[i] != 13 { i += 1 }
                continue
            }
            if c == 47, i + 1 < b.count, b[i + 1] == 42 {  // /* comment */ (nested, as PostgreSQL reads them)
                var depth = 1
                i += 2
                while i < b.count, depth > 0 {
                    if b[i] == 47, i + 1 < b.count, b[i + 1] == 42 {
                        depth += 1
                        i += 2
                    } else if b[i] == 42, i + 1 < b.count, b[i + 1] == 47 {
                        depth -= 1
                        i += 2
                    } else {
                        i += 1
                    }
                }
                continue
            }
            if c == 36, let tagEnd = PostgresParameters.dollarTagEnd(b, from: i) {  // $tag$ ... $tag$
                let tag = Array(b[i...tagEnd])
                var j = tagEnd + 1
                while j < b.count, !(b[j] == 36 && j + tag.count <= b.count && Array(b[j..<(j + tag.count)]) == tag) { j += 1 }
                i = min(j + tag.count, b.count)
                out.append(.other)
                continue
            }
            if c == 39 {  // 'literal' (E'...' takes backslash escapes; name' is no E-string)
                let escapes = i > 0 && (b[i - 1] == 69 || b[i - 1] == 101) && (i < 2 || !isWordByte(b[i - 2]))
                i += 1
                while i < b.count {
                    if escapes, b[i] == 92 {
                        i += 2
                        continue
                    }
                    if b[i] == 39 {
                        if i + 1 < b.count, b[i + 1] == 39 {
                            i += 2
                            continue
                        }
                        break
                    }
                    i += 1
                }
                i += 1
                out.append(.other)
                continue
            }
            if c == 38, i + 1 < b.count, b[i + 1] == 34, case .word(let w, false)? = out.last, w == "u" || w.hasSuffix(".u") {
                out.append(.ampersandQuote)  // U&"...": a name spelt with escapes
                i += 1
                continue
            }
            if c == 34 {  // "identifier", maybe followed by .name parts
                var name: [UInt8] = []
                i += 1
                while i < b.count {
                    if b[i] == 34 {
                        if i + 1 < b.count, b[i + 1] == 34 {
                            name.append(34)
                            i += 2
                            continue
                        }
                        break
                    }
                    name.append(b[i])
                    i += 1
                }
                i += 1
                appendWord(String(decoding: name, as: UTF8.self), quoted: true, to: &out)
                continue
            }
            if isWordByte(c) {
                let start = i
                while i < b.count, isWordByte(b[i]) { i += 1 }
                appendWord(String(decoding: b[start..<i], as: UTF8.self).lowercased(), quoted: false, to: &out)
                continue
            }
            if c == 46, case .word(let w, let q)? = out.last, i + 1 < b.count, isWordByte(b[i + 1]) || b[i + 1] == 34 {
                // schema.name: joined into one word (the name part decides)
                out[out.count - 1] = .word(w + ".", quoted: q)
                i += 1
                continue
            }
            switch c {
            case 40: out.append(.openParen)
            case 59: out.append(.semicolon)
            case 32, 9, 10, 11, 12, 13: break  // PostgreSQL's whitespace, form feed included
            default: out.append(.other)
            }
            i += 1
        }
        return out
    }

    /// Appends a word, joining it to a preceding `schema.` part.
    private static func appendWord(_ w: String, quoted: Bool, to out: inout [Token]) {
        if case .word(let prefix, let q)? = out.last, prefix.hasSuffix(".") {
            out[out.count - 1] = .word(prefix + w, quoted: q || quoted)
        } else {
            out.append(.word(w, quoted: quoted))
        }
    }
}
