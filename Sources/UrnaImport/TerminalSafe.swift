/// Text from a file (a header's column name, a member's name, a field) made safe to print on a terminal:
/// control characters (C0 but line feed and tab, DEL, and the C1 range, which holds the 8-bit CSI) are
/// shown as `\xNN`, so an escape sequence planted in a file cannot retitle the window, write the clipboard
/// (OSC 52) or repaint what the user reads; the bidirectional formatting characters (U+202E RIGHT-TO-LEFT
/// OVERRIDE and its kin) are shown as `\u{202E}`, so a value cannot make the rest of the line read backwards
/// (a name that shows as `BACAMARTE` while it holds `ETRAMACAB`, a file name whose extension seems another).
public enum TerminalSafe {
    /// A control character: C0, DEL or C1 (line feed and tab included).
    public static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F) }

    /// A bidirectional formatting character: the marks (U+061C, U+200E, U+200F), the embeddings and overrides
    /// (U+202A-U+202E) and the isolates (U+2066-U+2069). They change the order a terminal shows the text in.
    public static func isBidiFormatting(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Whether a terminal could be driven or misled by `u`: a control character or a bidirectional one.
    public static func isUnsafe(_ u: Unicode.Scalar) -> Bool { isControl(u) || isBidiFormatting(u) }

    /// `s` with every control and bidirectional character escaped (`\x1B`, `\u{202E}`), keeping line feeds and
    /// tabs: for messages whose own text spans lines.
    public static func text(_ s: String) -> String { escaped(s, keepingLines: true) }

    /// `s` as one line: line feeds, carriage returns and tabs escaped too (`\x0A`). For a warning, which is one
    /// line: a file or zip member named `notes\nrows: 5000 inserted` printed a forged line of its own.
    public static func line(_ s: String) -> String { escaped(s, keepingLines: false) }

    static func escaped(_ s: String, keepingLines: Bool) -> String {
        func unsafe(_ u: Unicode.Scalar) -> Bool { isUnsafe(u) && !(keepingLines && (u == "\n" || u == "\t")) }
        guard s.unicodeScalars.contains(where: unsafe) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if isBidiFormatting(u) {
                out.append(contentsOf: "\\u{\(String(u.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else if unsafe(u) {
                let hex = String(u.value, radix: 16, uppercase: true)
                out.append(contentsOf: ("\\x" + (hex.count < 2 ? "0" + hex : hex)).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }
}
