import Foundation
import UrnaImport

/// Text the user typed on the command line (a path, a URL) as it shows inside a message or a report.
///
/// Messages span lines of their own, so the printer keeps their line feeds and tabs; a line feed inside a
/// typed path (`--out $'x\nError: nothing was imported'`, a script's unquoted name) then split the message or
/// forged a line of its own. Every argument holding a line feed, carriage return or tab, and each of its
/// `/`-separated parts and `--option=` values holding one, is shown with them escaped (`\x0A`) wherever it
/// appears in the text, also inside a longer path made from it (`/abs/x\nb-wal`).
enum TypedText {
    /// `text` with every typed piece that holds a line break or tab shown on one line.
    static func shown(_ text: String, arguments: [String] = CommandContext.current.arguments) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\t" }) else { return text }
        var out = text
        for piece in pieces(of: arguments) where out.contains(piece) {
            out = out.replacingOccurrences(of: piece, with: TerminalSafe.line(piece))
        }
        return out
    }

    /// The arguments' pieces that hold a line break or tab, longest first (a whole path before its parts).
    static func pieces(of arguments: [String]) -> [String] {
        func breaks(_ s: Substring) -> Bool { s.unicodeScalars.contains { $0 == "\n" || $0 == "\r" || $0 == "\t" } }
        var found = Set<String>()
        for argument in arguments where breaks(Substring(argument)) {
            found.insert(argument)
            var value = Substring(argument)
            if argument.hasPrefix("-"), let equals = argument.firstIndex(of: "=") {
                value = argument[argument.index(after: equals)...]
                found.insert(String(value))
            }
            for part in value.split(separator: "/") where breaks(part) { found.insert(String(part)) }
        }
        return found.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }
}

extension TypedText {
    /// Prints a report (not data) on standard output: typed paths kept on one line, and control and
    /// bidirectional characters from a file (a table's name in `adopt`'s "left alone" list) escaped.
    static func report(_ text: String, terminator: String = "\n") {
        print(TerminalSafe.text(shown(text)), terminator: terminator)
    }
}
