import Foundation
import UrnaImport
import UrnaStore

enum QueryCommand {
    static let spec = CommandSpec(
        name: "query", abstract: "Print the objects of one type that match a predicate.",
        usage:
            "urna query [--db PATH] TYPE [PREDICATE] [--sort KEY[,KEY]] [--desc] [--limit N] [--count] [--fields a,b,link.property] [--json|--csv|--table]",
        discussion: """
            PREDICATE uses Realm/NSPredicate syntax: = == != < <= > >= BEGINSWITH ENDSWITH CONTAINS LIKE IN BETWEEN,
            [c] case- and [d] diacritic-insensitive, AND OR NOT, parentheses, nil, key paths through links
            (owner.name == 'Ana'), @count and ANY on lists. Values are always bound, never pasted into SQL.
            --json prints one array of objects keyed by property name (links as the target's key);
            --count prints the number alone. --table aligns columns for reading (widths from the first 1,000
            objects). For GROUP BY, sums and joins, use `urna sql`.
            """,
        options: [
            .value("db", "PATH", "Database file (default: urna.sqlite)."),
            .value("sort", "KEYS", "Sort by these comma-separated key paths (through links allowed)."),
            .flag("desc", "Sort descending."),
            .value("limit", "N", "At most N objects."),
            .flag("count", "Print only how many objects match."),
            .value("fields", "LIST", "Only these fields: names, key paths (link.property), alias=path."),
            .flag("json", "Print a JSON array."),
            .flag("csv", "Print CSV with a header row."),
            .flag("table", "Print aligned columns with a header."),
        ],
        positionals: [
            ("TYPE", "Object type (one of the file's family)."),
            ("PREDICATE", "Optional filter, e.g. \"name BEGINSWITH 'A'\"."),
        ],
        minPositionals: 1, maxPositionals: 2,
        examples: [
            "urna query Candidate \"post ==[c] 'prefeito' AND unitName == 'RIO BRANCO'\" --sort nickname --fields nickname,party.acronym",
            "urna query Good \"value > 1000000\" --count",
            "urna query Party --json",
        ])

    static let command = Command(spec: spec) { p in
        try checkFormats(p)
        let store = try openExistingStore(databasePath(p), readOnly: true)
        let typeName = p.positionals[0]
        let type = try checkedType(typeName, in: store.schema)
        var results = try store.objects(typeName)
        if p.positionals.count > 1 {
            results = try results.filter(p.positionals[1])
            if let hint = likeHint(p.positionals[1]) { CLI.printError("warning: \(hint)") }
        }
        if let keys = sortKeys(p) { results = try results.sorted(by: keys) }
        if let n = try limit(p) { results = results.limit(n) }
        if p.has("count") {
            print(try results.count)
            return ExitCode.ok
        }
        let projection = try projection(p, type: type, schema: store.schema)
        try printObjects(p, typeName: typeName, names: projection.fields.map(\.name)) { row in
            for o in try results.objects() { try row(try projection.apply(to: o)) }
        }
        return ExitCode.ok
    }

    static func checkFormats(_ p: ParsedArguments) throws {
        if [p.has("json"), p.has("csv"), p.has("table")].filter({ $0 }).count > 1 {
            throw UsageError("choose one of --json, --csv and --table")
        }
    }

    /// The type named on the command line, or a usage error listing the database's types.
    static func checkedType(_ typeName: String, in schema: Schema) throws -> ObjectSchema {
        guard let type = schema[type: typeName], !type.embedded else {
            var msg =
                "unknown type '\(typeName)'; the file has: \(schema.tableTypes.map(\.name).joined(separator: ", "))"
            if let hint = ArgumentParser.suggestion(for: typeName, among: schema.tableTypes.map(\.name)) {
                msg += " (did you mean '\(hint)'?)"
            }
            throw UsageError(msg)
        }
        return type
    }

    /// `--sort` and `--desc` as sort keys (nil without `--sort`).
    static func sortKeys(_ p: ParsedArguments) -> [SortKey]? {
        guard let sort = p.value("sort") else { return nil }
        return sort.split(separator: ",").map { SortKey(keyPath: String($0), ascending: !p.has("desc")) }
    }

    /// `--limit`, checked.
    static func limit(_ p: ParsedArguments) throws -> Int? {
        guard let n = try p.int("limit") else { return nil }
        guard n >= 0 else { throw UsageError("--limit must be 0 or more") }
        return n
    }

    /// The fields printed: `--fields`, or every stored property (lists as their members' keys).
    static func projection(_ p: ParsedArguments, type: ObjectSchema, schema: Schema) throws -> FieldProjection {
        if let f = p.value("fields") {
            do {
                return try FieldProjection(type: type, spec: f, schema: schema)
            } catch StoreError.unknownProperty(let owner, let property) {
                var msg = "--fields: \(owner) has no property '\(property)'"
                let names = schema[type: owner]?.properties.map(\.name) ?? []
                if let hint = ArgumentParser.suggestion(for: property, among: names) {
                    msg += "; did you mean '\(hint)'?"
                }
                throw UsageError(msg)
            }
        }
        let fields =
            (type.primaryKey == nil ? [FieldProjection.Field(name: "_id", keyPath: "_id")] : [])
            + type.properties.filter { p in
                if p.ignored { return false }
                if case .linkingObjects = p.type { return false }
                return true
            }.map { FieldProjection.Field(name: $0.name, keyPath: $0.name) }
        return try FieldProjection(type: type, fields: fields.filter { $0.name != "_id" }, schema: schema)
    }

    /// One object's projected fields.
    typealias Row = [(String, FieldProjection.Output)]

    /// Prints the rows `each` produces (in order) as `--json`, `--csv`, `--table` or the human form.
    static func printObjects(
        _ p: ParsedArguments, typeName: String, names: [String], each: ((Row) throws -> Void) throws -> Void
    ) throws {
        if p.has("json") {
            var out = "["
            var first = true
            try each { row in
                out += (first ? "\n" : ",\n") + JSONText.object(row.map { ($0.0, JSONText.output($0.1)) })
                first = false
                if out.utf8.count > 1 << 16 {
                    print(out, terminator: "")
                    out = ""
                }
            }
            out += first ? "]" : "\n]"
            print(out)
        } else if p.has("csv") {
            print(names.map { CSVText.field($0) }.joined(separator: ","))
            var formulas = CSVText.FormulaCells()
            var n = 0
            try each { row in
                n += 1
                let cells = row.map { ($0.0, CSVText.output($0.1)) }
                for (name, cell) in cells { formulas.note(cell, row: n, column: name) }
                print(cells.map { CSVText.field($0.1) }.joined(separator: ","))
            }
            formulas.warn()
        } else if p.has("table") {
            var table = TableText(header: names) { print($0) }
            var n = 0
            try each { row in
                n += 1
                table.add(row.map { CSVText.output($0.1) })
            }
            table.finish()
            CLI.printError("\(n) \(typeName) object\(n == 1 ? "" : "s")")
        } else {
            var n = 0
            try each { row in
                n += 1
                // The human form: control characters a value holds are shown escaped (\x1B), never sent to the
                // terminal (--csv and --json give the exact values).
                print(row.map { "\($0.0): \(TerminalSafe.text(CSVText.output($0.1)))" }.joined(separator: " | "))
            }
            CLI.printError("\(n) \(typeName) object\(n == 1 ? "" : "s")")
        }
    }

    /// A warning for `LIKE '%lula%'`: here LIKE takes NSPredicate's `*` and `?`, so SQL's `%` and `_` match
    /// themselves and such a pattern usually finds nothing. (A literal `%` is still allowed, hence a warning.)
    static func likeHint(_ predicate: String) -> String? {
        guard
            let regex = try? NSRegularExpression(
                pattern: #"LIKE(\[[a-z]+\])?\s*(['"])([^'"]*[%_][^'"]*)\2"#, options: [.caseInsensitive]),
            let match = regex.firstMatch(in: predicate, range: NSRange(predicate.startIndex..., in: predicate)),
            let range = Range(match.range(at: 3), in: predicate)
        else { return nil }
        let pattern = String(predicate[range])
        guard pattern.contains("%"), !pattern.contains("*"), !pattern.contains("?") else { return nil }
        return "LIKE takes * (any run) and ? (one character) as wildcards, not SQL's % and _, which match "
            + "themselves here: for what you probably meant, write LIKE '"
            + pattern.replacingOccurrences(of: "%", with: "*").replacingOccurrences(of: "_", with: "?") + "'"
    }
}
