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
/// - Latin-1 text: `lower()`, then a `translate()` of a few dozen characters (`latinTable`).
/// - Other text: `normalize(x, NFD)` and `regexp_replace` with a class of every Mn scalar for `[d]`;
///   `replace` for the one scalar whose lowercase is two scalars (İ -> i + U+0307) and `translate` with
///   every one-to-one lowercase mapping for `[c]`; `normalize(..., NFC)` last.
///
/// The tables are computed from Swift's own Unicode data when first used, so they are the fold's, not a copy
/// of them; they travel as bound parameters. `normalize()` needs PostgreSQL 13 and a UTF-8 database, and
/// its Unicode tables must agree with Swift's: `probe` holds every assigned scalar, whose NFD and NFC a
/// server must give as Swift does (`PostgresQuery.foldsExactly` checks it before a folded query runs there).
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
    }

    static let tables: Tables = {
        var from = String.UnicodeScalarView()
        var to = String.UnicodeScalarView()
        var multi: [(String, String)] = []
        var marks: [ClosedRange<UInt32>] = []
        for v in UInt32(0)...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            if u.properties.changesWhenLowercased {
                let lower = u.properties.lowercaseMapping
                let scalars = Array(lower.unicodeScalars)
                if scalars.count == 1 {
                    from.append(u)
                    to.append(scalars[0])
                } else if scalars != [u] {
                    multi.append((String(u), lower))
                }
            }
            if u.properties.generalCategory == .nonspacingMark {
                if let last = marks.last, last.upperBound + 1 == v {
                    marks[marks.count - 1] = last.lowerBound...v
                } else {
                    marks.append(v...v)
                }
            }
        }
        let marksClass =
            "["
            + marks.map { r in
                r.count == 1 ? escape(r.lowerBound) : escape(r.lowerBound) + "-" + escape(r.upperBound)
            }.joined() + "]"
        return Tables(lowerFrom: String(from), lowerTo: String(to), lowerMulti: multi, marksClass: marksClass)
    }()

    static func escape(_ v: UInt32) -> String {
        v <= 0xFFFF ? "\\u" + String(format: "%04X", v) : "\\U" + String(format: "%08X", v)
    }

    /// For text within Latin-1 (most names and descriptions here), the fold is one character for one:
    /// no combining marks to reorder or compose, every letter's decomposition a base and one mark. So a
    /// short `translate()` folds it, with these tables computed by `TextFolding.fold` itself, character by
    /// character (the ones whose fold is not one character, none today, send the text the general way).
    struct LatinTable: Sendable {
        /// The class of the characters the table covers: `^[...]*$` tells text it can fold.
        let covered: String
        let from: String
        let to: String
    }

    static func latinTable(_ options: PredicateOptions) -> LatinTable {
        var covered: [ClosedRange<UInt32>] = []
        var from = String.UnicodeScalarView()
        var to = String.UnicodeScalarView()
        for v in UInt32(1)...0xFF {
            let u = Unicode.Scalar(v)!
            let folded = Array(TextFolding.fold(String(u), options).unicodeScalars)
            guard folded.count == 1 else { continue }
            if let last = covered.last, last.upperBound + 1 == v {
                covered[covered.count - 1] = last.lowerBound...v
            } else {
                covered.append(v...v)
            }
            // ASCII goes through lower() first under [c], unchanged under [d].
            if v >= 0x80, folded[0] != u {
                from.append(u)
                to.append(folded[0])
            }
        }
        let coveredClass = covered.map { r in
            r.count == 1 ? escape(r.lowerBound) : escape(r.lowerBound) + "-" + escape(r.upperBound)
        }.joined()
        return LatinTable(covered: "^[" + coveredClass + "]*$", from: String(from), to: String(to))
    }

    static let latinTables: [Int: LatinTable] = Dictionary(
        uniqueKeysWithValues: [1, 2, 3].map { ($0, latinTable(PredicateOptions(rawValue: $0))) })

    /// A text of the scalars whose normalization a server must agree on with Swift: every assigned scalar
    /// (after a space each, so marks have a base to sit on) but the ideographs and Hangul syllables, which
    /// do not decompose or decompose by arithmetic (one in 97 of those is kept).
    public static let probe: String = {
        var s = String.UnicodeScalarView()
        for v in UInt32(0x20)...0x10FFFF {
            guard let u = Unicode.Scalar(v) else { continue }
            switch u.properties.generalCategory {
            case .unassigned, .privateUse, .surrogate, .control: continue
            default: break
            }
            let sampled =
                (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v)
                || (0xAC00...0xD7A3).contains(v) || v >= 0x20000
            if sampled, v % 97 != 0 { continue }
            s.append(" ")
            s.append(u)
        }
        return String(s)
    }()

    /// The folded value of the SQL expression `x` (text), with the tables bound as parameters: ASCII by
    /// `lower()`, Latin-1 by a short `translate()`, anything else by the general way.
    static func sql(_ x: SQLFragment, _ options: PredicateOptions) -> SQLFragment {
        if options.isEmpty { return x }
        let t = tables
        let lowerCase = options.contains(.caseInsensitive)
        let lowered: SQLFragment = lowerCase ? "lower((\(x)) COLLATE \"C\")" : x
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
        let latin = latinTables[options.rawValue & 3]!
        let ascii: SQLFragment = "WHEN octet_length(\(x)) = char_length(\(x)) THEN \(lowered)"
        let latin1: SQLFragment =
            "WHEN \(x) ~ \(bind: .text(latin.covered)) THEN translate(\(lowered), \(bind: .text(latin.from)), \(bind: .text(latin.to)))"
        return "(CASE \(ascii) \(latin1) ELSE normalize(\(general), NFC) END)"
    }
}
