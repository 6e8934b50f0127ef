import Foundation

/// `[c]`, `[d]` and `[cd]` on PostgreSQL, with built-in functions only (no extension such as unaccent, no
/// function created on the server, so a READ ONLY transaction can run it), giving exactly `TextFolding.fold`.
///
/// `TextFolding.fold` is: canonical decomposition with every nonspacing mark (Unicode category Mn) removed
/// for `[d]`, then each scalar replaced by its lowercase mapping for `[c]` (Swift's `lowercased()` maps scalar
/// by scalar, without context: "Σ" at a word's end is "σ"), then canonical composition. On the server:
///
/// - ASCII text (`octet_length = char_length` in UTF-8) is folded by `lower(x COLLATE "C")`, which under the
///   "C" collation lowers A-Z only, exactly the fold's ASCII fast path; `[d]` leaves it unchanged.
/// - Other text: `normalize(x, NFD)` and `regexp_replace` with a class of every Mn scalar for `[d]`;
///   `replace` for the one scalar whose lowercase is two scalars (İ -> i + U+0307) and `translate` with
///   every one-to-one lowercase mapping for `[c]`; `normalize(..., NFC)` last.
///
/// The tables are computed from Swift's own Unicode data when first used, so they are the fold's, not a copy
/// of them; they travel as bound parameters. `normalize()` needs PostgreSQL 13 and a UTF-8 database, and
/// its Unicode tables must agree with Swift's: `probe` is a text over every scalar the fold changes, whose
/// fold the server must give back (`PostgresQuery` checks it before compiling a folded comparison).
public enum PostgresTextFolding {
    /// The folding tables, built once.
    struct Tables: Sendable {
        /// `translate()`'s from and to: every scalar whose lowercase mapping is one other scalar.
        let lowerFrom: String
        let lowerTo: String
        /// Scalars whose lowercase mapping is more than one scalar, for `replace()`.
        let lowerMulti: [(from: String, to: String)]
        /// A regular-expression class matching every nonspacing mark, as `\uXXXX` / `\UXXXXXXXX` escapes.
        let marksClass: String
        /// Every scalar the fold changes under some options, or that marks or decomposes.
        let changed: [Unicode.Scalar]
    }

    static let tables: Tables = {
        var from = String.UnicodeScalarView()
        var to = String.UnicodeScalarView()
        var multi: [(String, String)] = []
        var marks: [ClosedRange<UInt32>] = []
        var changed: [Unicode.Scalar] = []
        for v in UInt32(0)...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            let lower = u.properties.lowercaseMapping
            let lowerScalars = Array(lower.unicodeScalars)
            var isChanged = false
            if lowerScalars != [u] {
                isChanged = true
                if lowerScalars.count == 1 {
                    from.append(u)
                    to.append(lowerScalars[0])
                } else {
                    multi.append((String(u), lower))
                }
            }
            if u.properties.generalCategory == .nonspacingMark {
                isChanged = true
                if let last = marks.last, last.upperBound + 1 == v {
                    marks[marks.count - 1] = last.lowerBound...v
                } else {
                    marks.append(v...v)
                }
            }
            if !isChanged {
                let s = String(u)
                isChanged = s.decomposedStringWithCanonicalMapping.unicodeScalars.count != 1
                    || s.precomposedStringWithCanonicalMapping != s
            }
            if isChanged { changed.append(u) }
        }
        func escape(_ v: UInt32) -> String {
            v <= 0xFFFF
                ? "\\u" + String(format: "%04X", v) : "\\U" + String(format: "%08X", v)
        }
        let marksClass =
            "["
            + marks.map { $0.count == 1 ? escape($0.lowerBound) : escape($0.lowerBound) + "-" + escape($0.upperBound) }
            .joined() + "]"
        return Tables(
            lowerFrom: String(from), lowerTo: String(to), lowerMulti: multi, marksClass: marksClass,
            changed: changed)
    }()

    /// A text holding every scalar the fold changes (after a space each, so marks have a base to sit on), and
    /// pairs that compose (e + U+0301, the Hangul jamo), for checking a server's folding against Swift's.
    public static var probe: String {
        var s = String.UnicodeScalarView()
        for u in tables.changed {
            s.append(" ")
            s.append(u)
        }
        for pair in ["e\u{301}", "E\u{301}\u{323}", "\u{1100}\u{1161}\u{11A8}", "I\u{307}", "ΟΔΟΣ", "ǅ"] {
            s.append(" ")
            s.append(contentsOf: pair.unicodeScalars)
        }
        return String(s)
    }

    /// The folded value of the SQL expression `x` (text), with the tables bound as parameters.
    static func sql(_ x: SQLFragment, _ options: PredicateOptions) -> SQLFragment {
        if options.isEmpty { return x }
        let t = tables
        let lowerCase = options.contains(.caseInsensitive)
        let ascii: SQLFragment = lowerCase ? "lower((\(x)) COLLATE \"C\")" : x
        var general: SQLFragment = x
        if options.contains(.diacriticInsensitive) {
            general = "regexp_replace(normalize(\(general), NFD), \(bind: .text(t.marksClass)), '', 'g')"
        }
        if lowerCase {
            for (from, to) in t.lowerMulti {
                general = "replace(\(general), \(bind: .text(from)), \(bind: .text(to)))"
            }
            general = "translate(\(general), \(bind: .text(t.lowerFrom)), \(bind: .text(t.lowerTo)))"
        }
        return "(CASE WHEN octet_length(\(x)) = char_length(\(x)) THEN \(ascii) ELSE normalize(\(general), NFC) END)"
    }
}
