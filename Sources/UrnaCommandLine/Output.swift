import Foundation
import UrnaImport
import UrnaStore

/// Hand-built JSON text: keys stay in the order given, numbers stay exact (money is not a Double).
enum JSONText {
    static func string(_ s: String) -> String { JSONString.quote(s) }

    static func value(_ v: Value) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .string(let s): return string(s)
        case .date(let d): return string(ISODate.format(d))
        case .data(let d): return string(d.base64EncodedString())
        case .uuid(let u): return string(u.uuidString.lowercased())
        case .decimal(let d): return "\(d)"
        case .link(let t): return value(t.key)
        case .list(let l): return "[" + l.map { value($0.key) }.joined(separator: ",") + "]"
        case .embedded(let e): return object(e.keys.sorted().map { ($0, value(e[$0]!)) })
        }
    }

    static func output(_ o: FieldProjection.Output) -> String {
        switch o {
        case .value(let v): value(v)
        case .values(let vs): "[" + vs.map(value).joined(separator: ",") + "]"
        }
    }

    static func object(_ pairs: [(String, String)]) -> String {
        "{" + pairs.map { string($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}

/// CSV text as RFC 4180 writes it (comma, quotes doubled).
enum CSVText {
    /// Counts the cells of a CSV output that a spreadsheet would run as formulas, and says so at the end.
    struct FormulaCells {
        private var tally = SpreadsheetFormula.Tally()

        mutating func note(_ text: String, row: Int, column: String) {
            tally.note(text, place: "row \(row), column \(column)")
        }

        /// The warning on stderr, when there were such cells.
        func warn() {
            guard let first = tally.first else { return }
            let n = tally.count
            CLI.printError(
                "warning: \(n) cell\(n == 1 ? " begins" : "s begin") like a spreadsheet formula (first: \(first)): "
                    + "a spreadsheet opening this output may run them")
        }
    }

    static func field(_ s: String) -> String {
        if s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r") {
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return s
    }

    static func plain(_ v: Value) -> String {
        switch v {
        case .null: ""
        case .link(let t): plain(t.key)
        case .list(let l): l.map { plain($0.key) }.joined(separator: "|")
        case .date(let d): ISODate.format(d)
        default: v.description
        }
    }

    static func output(_ o: FieldProjection.Output) -> String {
        switch o {
        case .value(let v): plain(v)
        case .values(let vs): vs.map(plain).joined(separator: "|")
        }
    }
}

/// Writes a progress line to stderr only when stderr is a terminal.
///
/// Escape codes (clear to end of line) only where the terminal understands them: not with `TERM=dumb`,
/// an unset TERM or `NO_COLOR`; there the line is redrawn with a carriage return and padded with spaces.
final class TerminalProgress {
    let enabled: Bool
    let useEscapes: Bool
    private var lastDraw = Date.distantPast
    private var lastWidth = 0

    init(quiet: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) {
        enabled = !quiet && isatty(STDERR_FILENO) != 0
        useEscapes = Self.terminalTakesEscapes(environment)
    }

    /// Whether a terminal described by these environment variables gets escape codes.
    static func terminalTakesEscapes(_ environment: [String: String]) -> Bool {
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return false }
        return environment["NO_COLOR"].map(\.isEmpty) ?? true
    }

    func draw(_ text: @autoclosure () -> String, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        StandardError.write(line(text()))
    }

    func finish() {
        guard enabled else { return }
        StandardError.write(line("") + "\r")
    }

    private func line(_ text: String) -> String {
        if useEscapes { return "\r\u{1B}[K" + text }
        let width = text.count
        defer { lastWidth = width }
        return "\r" + text + String(repeating: " ", count: max(0, lastWidth - width))
    }
}
