import Foundation

/// Case and diacritic folding for `[c]`, `[d]` and `[cd]`: the same Swift code folds the bound values
/// and, through the SQL function `urna_fold(text, flags)`, the column values they are compared with.
///
/// ```swift
/// TextFolding.fold("JOSÉ", [.caseInsensitive, .diacriticInsensitive])  // "jose"
/// ```
///
/// Diacritic folding removes combining marks after canonical decomposition (É -> E, ç -> c); letters
/// that do not decompose (ø, ł, æ) stay as they are. Folded text is in canonical composed form, so
/// precomposed and decomposed spellings of the same letter compare equal under any modifier.
public enum TextFolding {
    /// The name of the SQL function registered by `QueryCompiler.registerFunctions(on:)`.
    public static let functionName = "urna_fold"

    /// `text` folded as `options` ask (`[]` returns it unchanged).
    public static func fold(_ text: String, _ options: PredicateOptions) -> String {
        if options.isEmpty { return text }
        if let ascii = foldASCII(text, options) { return ascii }
        var s = text
        if options.contains(.diacriticInsensitive) {
            var scalars = String.UnicodeScalarView()
            for u in s.decomposedStringWithCanonicalMapping.unicodeScalars
            where u.properties.generalCategory != .nonspacingMark {
                scalars.append(u)
            }
            s = String(scalars)
        }
        if options.contains(.caseInsensitive) { s = s.lowercased() }
        return composed(s)
    }

    /// `text` in canonical composed form (NFC), by the standard library's own normalizer (the one `String`
    /// comparison uses). Foundation's `precomposedStringWithCanonicalMapping` on Linux mangles a character
    /// outside the Basic Multilingual Plane followed by a combining mark ("e" + U+10055 + U+0301 became
    /// "e" + U+00DA), so `[c]` matched other text on a file than on the server.
    static func composed(_ text: String) -> String {
        String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }

    /// The fast path for ASCII text (most keys and names): byte-level lower-casing, nothing to strip.
    private static func foldASCII(_ text: String, _ options: PredicateOptions) -> String? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.utf8.count)
        let lower = options.contains(.caseInsensitive)
        for b in text.utf8 {
            if b >= 0x80 { return nil }
            bytes.append(lower && b >= 65 && b <= 90 ? b + 32 : b)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The SQL function body: `urna_fold(text, flags)`; NULL stays NULL, numbers pass through.
    static func sqlFold(_ args: [SQLValue]) -> SQLValue {
        guard args.count == 2, case .text(let s) = args[0] else { return args.first ?? .null }
        let flags: Int64 = if case .integer(let f) = args[1] { f } else { 0 }
        return .text(fold(s, PredicateOptions(rawValue: Int(flags & 3))))
    }
}
