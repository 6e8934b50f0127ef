/// Text from a file (a header's column name, a member's name, a field) made safe to print on a terminal:
/// control characters (C0 but line feed and tab, DEL, and the C1 range, which holds the 8-bit CSI) are
/// shown as `\xNN`, so an escape sequence planted in a file cannot retitle the window, write the clipboard
/// (OSC 52) or repaint what the user reads.
public enum TerminalSafe {
    /// A control character: C0, DEL or C1 (line feed and tab included).
    public static func isControl(_ u: Unicode.Scalar) -> Bool { u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F) }

    public static func text(_ s: String) -> String {
        func unsafe(_ u: Unicode.Scalar) -> Bool { isControl(u) && u != "\n" && u != "\t" }
        guard s.unicodeScalars.contains(where: unsafe) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if unsafe(u) {
                let hex = String(u.value, radix: 16, uppercase: true)
                out.append(contentsOf: ("\\x" + (hex.count < 2 ? "0" + hex : hex)).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }
}
