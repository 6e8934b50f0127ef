import Foundation
import UrnaImport

/// Aligned columns for people to read (`--table`): a header, a rule, then the rows.
///
/// Memory stays flat: the widths come from the header and the first `sampleSize` rows, which are held;
/// later rows are printed as they come, and a longer cell pushes its own line out rather than the columns.
/// Widths count what a terminal shows: combining marks take no column, East Asian wide characters and
/// emoji two.
struct TableText {
    let header: [String]
    let rightAligned: [Bool]
    let sampleSize: Int
    private var held: [[String]] = []
    private var widths: [Int]?
    private let write: (String) -> Void

    init(header: [String], rightAligned: [Bool]? = nil, sampleSize: Int = 1000, write: @escaping (String) -> Void) {
        self.header = header.map(Self.printable)
        self.rightAligned = rightAligned ?? header.map { _ in false }
        self.sampleSize = sampleSize
        self.write = write
    }

    /// Adds one row (as many cells as the header).
    mutating func add(_ row: [String]) {
        let cells = row.map(Self.printable)
        if let widths {
            write(render(cells, widths))
            return
        }
        held.append(cells)
        if held.count >= sampleSize { flush() }
    }

    /// Prints what is still held (call once at the end).
    mutating func finish() { flush() }

    private mutating func flush() {
        if widths == nil {
            var w = header.map(Self.width)
            for row in held { for (i, c) in row.enumerated() where i < w.count { w[i] = max(w[i], Self.width(c)) } }
            widths = w
            write(render(header, w, header: true))
            write(w.map { String(repeating: "-", count: $0) }.joined(separator: "-+-"))
        }
        for row in held { write(render(row, widths!)) }
        held.removeAll()
    }

    private func render(_ cells: [String], _ widths: [Int], header: Bool = false) -> String {
        var parts: [String] = []
        for (i, c) in cells.enumerated() {
            let pad = String(repeating: " ", count: max(0, (i < widths.count ? widths[i] : 0) - Self.width(c)))
            let last = i == cells.count - 1
            if !header, i < rightAligned.count, rightAligned[i] {
                parts.append(pad + c)
            } else {
                parts.append(last ? c : c + pad)
            }
        }
        return parts.joined(separator: " | ")
    }

    /// A cell on one line: line breaks and tabs shown as `\n`, `\t`; other control characters (C1 too) and the
    /// bidirectional formatting characters (which would reorder the row's other cells) as `?`.
    static func printable(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: TerminalSafe.isUnsafe) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where TerminalSafe.isUnsafe(u): out += "?"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// Columns a terminal uses for `s`.
    static func width(_ s: String) -> Int {
        var n = 0
        for character in s {
            guard let first = character.unicodeScalars.first else { continue }
            n += isWide(first.value) ? 2 : 1
        }
        return n
    }

    private static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default: return false
        }
    }
}
