import Foundation

/// One option a command accepts: `--db PATH` (takes a value) or `--json` (a flag).
struct OptionSpec: Sendable {
    let name: String
    let valueName: String?
    let help: String
    var repeatable = false
    /// The one-letter spelling (`-q` for `--quiet`), where one is conventional.
    var short: Character? = nil

    static func flag(_ name: String, _ help: String, short: Character? = nil) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, short: short ?? conventionalShort[name])
    }
    static func value(
        _ name: String, _ valueName: String, _ help: String, repeatable: Bool = false, short: Character? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, valueName: valueName, help: help, repeatable: repeatable,
            short: short ?? conventionalShort[name])
    }

    /// Short options every command spells the same way (`-h` for help is handled before parsing).
    static let conventionalShort: [String: Character] = ["quiet": "q", "out": "o", "limit": "n"]

    /// `-q, --quiet` or `--db <PATH>`, as help shows it.
    var helpLabel: String {
        (short.map { "-\($0), " } ?? "") + "--\(name)" + (valueName.map { " <\($0)>" } ?? "")
    }
}

/// A subcommand's interface: what `--help` prints and what the parser accepts.
struct CommandSpec: Sendable {
    let name: String
    let abstract: String
    let usage: String
    let discussion: String
    let options: [OptionSpec]
    /// Names of positional arguments, for help; `minPositionals`/`maxPositionals` bound how many.
    let positionals: [(String, String)]
    let minPositionals: Int
    let maxPositionals: Int?
    let examples: [String]

    func helpText() -> String {
        var s = "OVERVIEW: \(abstract)\n\nUSAGE: \(ToolName.apply(usage))\n"
        if !discussion.isEmpty { s += "\n\(ToolName.apply(ToolName.fill(discussion)))\n" }
        if !positionals.isEmpty {
            s += "\nARGUMENTS:\n"
            for (n, h) in positionals { s += "  " + n.padding(toLength: 24, withPad: " ", startingAt: 0) + h + "\n" }
        }
        s += "\nOPTIONS:\n"
        for o in options + [.flag("help", "Show this help.", short: "h")] {
            let left = o.helpLabel
            s +=
                "  " + left.padding(toLength: max(24, left.count + 2), withPad: " ", startingAt: 0)
                + ToolName.database(o.help) + "\n"
        }
        let shown = AppExamples.fitting(examples, command: name)
        if !shown.isEmpty {
            s += "\nEXAMPLES:\n" + shown.map { "  \(ToolName.apply(ToolName.fill($0)))" }.joined(separator: "\n") + "\n"
        }
        return s
    }
}

/// Help examples for the families this command line knows: an app's own executable does not show examples of
/// urna's built-in families or of TSE files it cannot import; where none is left, one for each of its families.
enum AppExamples {
    static func fitting(_ examples: [String], command: String, context: CommandContext = .current) -> [String] {
        let known = Set(context.families.map(\.name))
        let tse = known.contains("elections")
        let kept = examples.filter { e in
            let families = e.components(separatedBy: "--family ").dropFirst().compactMap {
                $0.split(separator: " ").first
            }
            if families.contains(where: { !known.contains(String($0)) }) { return false }
            if !tse,
                ["consulta_", "bem_candidato", "Candidate", "Party", "Good", "tse", "urna.sqlite", "SampleData"]
                    .contains(where: { e.contains($0) })
            {
                return false
            }
            if !known.contains("people"), e.contains("Person") || e.contains("people") { return false }
            return true
        }
        guard kept.isEmpty, !examples.isEmpty, !tse else { return kept }
        return context.families.prefix(2).compactMap { f -> String? in
            switch command {
            case "init":
                "urna init --db \(f.name).sqlite --family \(f.name) --version \(f.versions.first?.schema.version ?? 0)"
            case "schema": "urna schema --family \(f.name) --version \(f.latest.version)"
            case "status", "migrate", "restore": "urna \(command) --db \(f.name).sqlite"
            case "query": f.latest.tableTypes.first.map { "urna query --db \(f.name).sqlite \($0.name) --count" }
            case "export": "urna export --db \(f.name).sqlite --format json"
            default: nil
            }
        }
    }
}

/// What the user typed, checked against a spec.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    /// Values the program filled in itself for options the user left out (the PostgreSQL staging's rejects file),
    /// kept apart from `values`: a name the user gave may be written through (a FIFO), one the program chose not.
    var programDefaults: [String: String] = [:]

    func value(_ name: String) -> String? { values[name]?.last }
    func has(_ name: String) -> Bool { flags.contains(name) }

    func int(_ name: String) throws -> Int? {
        guard let v = value(name) else { return nil }
        guard let i = Int(v) else { throw UsageError("--\(name) takes a whole number, not '\(v)'") }
        return i
    }
}

/// Bad usage: printed as `Error: ...` with the command's usage line; exit code 64.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

enum ArgumentParser {
    /// Parses `args` (after the subcommand name) against `spec`.
    static func parse(_ args: [String], spec: CommandSpec) throws -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        // For each positional: the repeatable option whose value came just before it (`--allow-loss A.b C.d`).
        var afterRepeatable: [String?] = []
        while i < args.count {
            let a = args[i]
            if !onlyPositionals, a.count == 2, a.hasPrefix("-"), a != "--", let letter = a.last, letter != "-" {
                guard let o = spec.options.first(where: { $0.short == letter }) else {
                    if letter.isNumber {  // a negative number as an argument
                        out.positionals.append(a)
                        afterRepeatable.append(nil)
                        i += 1
                        continue
                    }
                    let known = spec.options.compactMap { o in o.short.map { "-\($0) (--\(o.name))" } }
                    throw UsageError(
                        "unknown option '\(a)'"
                            + (known.isEmpty ? "" : "; short options here: " + known.joined(separator: ", ")))
                }
                if o.valueName != nil {
                    guard i + 1 < args.count else { throw UsageError("\(a) needs a value (<\(o.valueName!)>)") }
                    try refuseOptionAsValue(args[i + 1], of: a, long: o.name, spec: spec)
                    if !o.repeatable, out.values[o.name] != nil { throw UsageError("--\(o.name) was given twice") }
                    out.values[o.name, default: []].append(args[i + 1])
                    i += 2
                } else {
                    out.flags.insert(o.name)
                    i += 1
                }
                continue
            }
            if onlyPositionals || !a.hasPrefix("--") || a == "-" {
                var previous: String?
                if !onlyPositionals, i >= 2, args[i - 2].hasPrefix("-"), args[i - 2] != "--",
                    let o = spec.options.first(where: {
                        "--\($0.name)" == args[i - 2] || $0.short.map { "-\($0)" } == args[i - 2]
                    }), o.repeatable, o.valueName != nil
                {
                    previous = o.name
                }
                out.positionals.append(a)
                afterRepeatable.append(previous)
                i += 1
                continue
            }
            if a == "--" {
                onlyPositionals = true
                i += 1
                continue
            }
            var name = String(a.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let o = spec.options.first(where: { $0.name == name }) else {
                var msg = "unknown option '--\(name)'"
                if let hint = suggestion(for: name, among: spec.options.map(\.name)) {
                    msg += "; did you mean '--\(hint)'?"
                }
                throw UsageError(msg)
            }
            if o.valueName != nil {
                let v: String
                if let inlineValue {
                    v = inlineValue
                } else {
                    guard i + 1 < args.count else { throw UsageError("--\(name) needs a value (<\(o.valueName!)>)") }
                    try refuseOptionAsValue(args[i + 1], of: "--\(name)", long: name, spec: spec)
                    v = args[i + 1]
                    i += 1
                }
                if !o.repeatable, out.values[name] != nil { throw UsageError("--\(name) was given twice") }
                out.values[name, default: []].append(v)
            } else {
                if inlineValue != nil { throw UsageError("--\(name) is a flag and takes no value") }
                out.flags.insert(name)
            }
            i += 1
        }
        if out.positionals.count < spec.minPositionals {
            let missing = spec.positionals.dropFirst(out.positionals.count).first?.0 ?? "argument"
            throw UsageError("missing \(missing)")
        }
        if let max = spec.maxPositionals, out.positionals.count > max {
            // One value per option: `migrate --allow-loss Good.x Party.y` took Party.y for an argument (a command
            // that takes no arguments at all: elsewhere the word after an option's value may be a real argument).
            if max == 0, let j = afterRepeatable.firstIndex(where: { $0 != nil }), let name = afterRepeatable[j] {
                throw UsageError(
                    "unexpected argument '\(out.positionals[j])': --\(name) takes one value each time, "
                        + "so write --\(name) \(out.positionals[j])")
            }
            // `sql --param a=1 b=2 "SELECT ..."`: b=2 has the form of --param's values, so it is one.
            for (j, name) in afterRepeatable.enumerated() {
                guard let name, let form = spec.options.first(where: { $0.name == name })?.valueName,
                    form.contains("="), out.positionals[j].contains("=")
                else { continue }
                throw UsageError(
                    "unexpected argument '\(out.positionals[j])': --\(name) takes one value each time, "
                        + "so write --\(name) \(out.positionals[j])")
            }
            // An unquoted predicate or statement reaches us as words: `query Candidate state == MG`.
            if let last = spec.positionals.last?.0, ["PREDICATE", "SQL"].contains(last), max > 0 {
                let words = out.positionals[(max - 1)...].joined(separator: " ")
                throw UsageError(
                    "unexpected argument '\(out.positionals[max])': the \(last) is one argument, so quote it whole: "
                        + "\"\(words)\"")
            }
            throw UsageError("unexpected argument '\(out.positionals[max])'")
        }
        for option in spec.options where option.valueName.map(namesAFile) == true {
            out.values[option.name] = out.values[option.name]?.map(plainFileName)
        }
        return out
    }

    /// Whether a value name (`PATH`, `FILE|URL`, `BACKUP`) says the value is a file's path.
    static func namesAFile(_ valueName: String) -> Bool {
        ["PATH", "FILE", "BACKUP"].contains { valueName.contains($0) }
    }

    /// A path as a name SQLite cannot read as anything else. The system's SQLite is built with URI file names
    /// on: it took `--db file:votes.sqlite` for the URI of `votes.sqlite` (another file, which none of urna's
    /// checks had looked at: `sql --write` changed it) and `file:x.sqlite?mode=memory` for a database in memory.
    /// Only a name that starts with `file:` is read so; `./` in front makes it the file of that name.
    static func plainFileName(_ path: String) -> String {
        path.hasPrefix("file:") ? "./" + path : path
    }

    /// A value option followed by one of the command's own options (`--backup --dry-run`) lost its value:
    /// taking the option as the value would silently drop it (that migration ran for real, its backup named
    /// `--dry-run`). `--backup=--dry-run` still names such a file.
    static func refuseOptionAsValue(_ next: String, of option: String, long: String, spec: CommandSpec) throws {
        let known: Bool
        if next == "--" {
            known = true
        } else if next.hasPrefix("--") {
            let name =
                next.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first
                .map(String.init) ?? ""
            known = spec.options.contains { $0.name == name } || name == "help"
        } else if next.count == 2, next.hasPrefix("-"), let letter = next.last, !letter.isNumber {
            known = spec.options.contains { $0.short == letter } || letter == "h"
        } else {
            known = false
        }
        guard known else { return }
        throw UsageError(
            "\(option) needs a value, but the next argument is the option '\(next)' (nothing was done); "
                + "to give that very text as the value, write --\(long)=\(next)")
    }

    /// The closest known name within two edits, for "did you mean".
    static func suggestion(for name: String, among names: [String]) -> String? {
        let scored = names.map { ($0, editDistance(name, $0)) }.filter { $0.1 <= 2 }.sorted { $0.1 < $1.1 }
        return scored.first?.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        for i in 1...a.count {
            var cur = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                cur[j] = Swift.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }
}

/// The program's own name in help and messages: usage lines and examples are written with `urna`, and an
/// app's executable that reuses these commands shows its own name instead.
enum ToolName {
    /// `text` with each command-leading `urna` (at the start of a line, after `&&`, `|`, `;` or a backquote, as in
    /// "use `urna sql`") replaced by the tool's name.
    /// `text` with every `{tool}` replaced by the tool's name, for the places `apply` does not reach: file names
    /// and commands inside other text (`source <({tool} completion bash)`, `completions/{tool}.fish`).
    static func fill(_ text: String, name: String = CommandContext.current.toolName) -> String {
        text.replacingOccurrences(of: "{tool}", with: name)
    }

    /// `text` with urna's default database (`urna.sqlite`) replaced by the program's own, as in an option's help
    /// "(default: urna.sqlite)".
    static func database(_ text: String, context: CommandContext = .current) -> String {
        guard context.toolName != "urna" else { return text }
        return text.replacingOccurrences(of: "urna.sqlite", with: context.defaultDatabase)
    }

    static func apply(_ text: String, name: String = CommandContext.current.toolName) -> String {
        guard name != "urna" else { return text }
        var out = text.hasPrefix("urna ") ? name + " " + text.dropFirst(5) : Substring(text)
        for separator in ["&& ", "| ", "; ", "\n", "`"] {
            out = Substring(out.replacingOccurrences(of: separator + "urna ", with: separator + name + " "))
        }
        return String(out)
    }
}
