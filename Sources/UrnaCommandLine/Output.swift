import Foundation
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

    static func output(_ o: Projection.Output) -> String {
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

    static func output(_ o: Projection.Output) -> String {
        switch o {
        case .value(let v): plain(v)
        case .values(let vs): vs.map(plain).joined(separator: "|")
        }
    }
}

/// Writes a progress line to stderr only when stderr is a terminal.
final class TerminalProgress {
    let enabled: Bool
    private var lastDraw = Date.distantPast

    init(quiet: Bool) { enabled = !quiet && isatty(STDERR_FILENO) != 0 }

    func draw(_ text: @autoclosure () -> String, force: Bool = false) {
        guard enabled else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + text()).utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
