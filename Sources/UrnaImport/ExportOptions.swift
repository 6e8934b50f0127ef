import Foundation

/// The file an export writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// `<candidatos><candidato>...<bens><bem>...` with one element per TSE column (see `ElectionExporter`).
    case xml
    /// A TSE file: `;`-separated, every field double-quoted, a header of modern column names.
    case csv
    /// Newline-delimited JSON objects of one type; links as the target's key, lists as arrays of keys.
    case json
}

/// How an export's text becomes bytes.
public enum ExportEncoding: String, Sendable, CaseIterable {
    /// ISO-8859-1, as TSE ships its files. XML writes characters past U+00FF as `&#N;`; CSV refuses them.
    case latin1
    /// UTF-8 (CSV gets a byte-order mark, so readers that guess the encoding cannot guess wrong).
    case utf8
}

/// What to export and how.
///
/// ```swift
/// var options = ExportOptions(format: .csv)
/// options.typeName = "Good"              // bem_candidato rows instead of consulta_cand rows
/// options.predicate = "value > 1000000"  // Realm syntax, on the exported type
/// ```
public struct ExportOptions: Sendable {
    /// The file format.
    public var format: ExportFormat
    /// The type exported; nil means `Candidate`. XML exports candidacies only; CSV exports `Candidate`
    /// (consulta_cand), `Good` (bem_candidato) or `Coalition` (consulta_coligacao); JSON any type.
    public var typeName: String?
    /// A filter on the exported type, in the syntax of `urna query`.
    public var predicate: String?
    /// The output encoding; nil means Latin-1 for XML and CSV, UTF-8 for JSON (the only one JSON allows).
    public var encoding: ExportEncoding?
    /// When the export ran. DT_GERACAO / HH_GERACAO are not this: every row carries the generation its object
    /// was read from (so re-importing an export never makes old data look newer), `#NULO#` when unknown.
    public var generatedAt: Date
    /// CSV only: a cell a spreadsheet would run as a formula (see `SpreadsheetFormula.looksLikeFormula`) is
    /// written with a leading `'`. Off by default: the file then gives back exactly what was imported, and the
    /// summary counts such cells (`formulaLikeCells`).
    public var spreadsheetSafe = false

    /// Options for an export in `format`.
    public init(
        format: ExportFormat, typeName: String? = nil, predicate: String? = nil, encoding: ExportEncoding? = nil,
        generatedAt: Date = Date()
    ) {
        self.format = format
        self.typeName = typeName
        self.predicate = predicate
        self.encoding = encoding
        self.generatedAt = generatedAt
    }

    /// The type actually exported.
    public var effectiveTypeName: String { typeName ?? "Candidate" }

    /// The encoding actually used.
    public var effectiveEncoding: ExportEncoding { encoding ?? (format == .json ? .utf8 : .latin1) }
}

/// What an export wrote.
public struct ExportSummary: Sendable, Equatable {
    /// The exported type.
    public var typeName: String = ""
    /// Objects of that type written (candidacies, goods, coalitions...).
    public var objects = 0
    /// Goods written inside candidacies (XML).
    public var nestedGoods = 0
    /// Coalition memberships written (XML `<coligacao>` records, CSV consulta_coligacao rows).
    public var coalitionRows = 0
    /// Bytes written.
    public var bytes: Int64 = 0
    /// CSV cells that begin like a spreadsheet formula (see `ExportOptions.spreadsheetSafe`): prefixed with `'`
    /// when that is on, written as they are otherwise; `firstFormulaLikeCell` names the first.
    public var formulaLikeCells: Int { formulas.count }
    public var firstFormulaLikeCell: String? { formulas.first }
    /// The count and place behind the two above.
    public var formulas = SpreadsheetFormula.Tally()

    /// One line for people: `2388 Candidate objects (8583 goods), 4.1 MB`.
    public var line: String {
        var s = "\(objects) \(typeName) object\(objects == 1 ? "" : "s")"
        var extras: [String] = []
        if nestedGoods > 0 { extras.append("\(nestedGoods) good\(nestedGoods == 1 ? "" : "s")") }
        if coalitionRows > 0 { extras.append("\(coalitionRows) coalition membership\(coalitionRows == 1 ? "" : "s")") }
        if !extras.isEmpty { s += " (" + extras.joined(separator: ", ") + ")" }
        return s + String(format: ", %.1f MB", Double(bytes) / 1_048_576)
    }
}

/// Cells a spreadsheet would take for a formula when it opens a CSV file (OWASP's "CSV injection").
public enum SpreadsheetFormula {
    /// How many cells of an output looked like formulas, and where the first was.
    public struct Tally: Sendable, Equatable {
        public private(set) var count = 0
        public private(set) var first: String?

        public init() {}

        /// Counts `text` when it looks like a formula (`place` names it, for the first one); true when it does.
        @discardableResult
        public mutating func note(_ text: String, place: @autoclosure () -> String) -> Bool {
            guard SpreadsheetFormula.looksLikeFormula(text) else { return false }
            count += 1
            if first == nil { first = place() }
            return true
        }
    }

    /// Whether `text` begins like a formula: `=`, `+`, `-`, `@`, a tab or a carriage return first, unless the
    /// whole cell is a plain number (`-1`, `-0,5`, `12.5`), which a spreadsheet reads as a number.
    /// The first bytes `looksLikeFormula` looks at: a text starting with none of them is no formula.
    static let leadingBytes: [UInt8] = [
        UInt8(ascii: "="), UInt8(ascii: "@"), 0x09, 0x0D, UInt8(ascii: "+"), UInt8(ascii: "-"),
    ]

    public static func looksLikeFormula(_ text: String) -> Bool {
        let u = text.utf8
        guard let first = u.first else { return false }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "@"), 0x09, 0x0D: return true
        case UInt8(ascii: "+"), UInt8(ascii: "-"): return !isPlainNumber(u.dropFirst())
        default: return false
        }
    }

    /// Digits with at most one decimal point or comma between digits (the sign already taken off).
    static func isPlainNumber(_ u: Substring.UTF8View) -> Bool {
        var digits = 0
        var separators = 0
        var last: UInt8 = 0
        for c in u {
            if c >= 0x30 && c <= 0x39 {
                digits += 1
            } else if (c == UInt8(ascii: ".") || c == UInt8(ascii: ",")) && digits > 0 && separators == 0 {
                separators += 1
            } else {
                return false
            }
            last = c
        }
        return digits > 0 && last >= 0x30 && last <= 0x39
    }
}
