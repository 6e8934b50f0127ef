import Foundation

/// Telling a TSE file whose separator was changed (a spreadsheet saving in an English locale, a script's
/// `to_csv`) from one that is no TSE file: its first line, split at commas or tabs instead of semicolons, holds
/// TSE column names or a header-less original's field count.
extension TSELayouts {
    /// Why a first line that did not read as a TSE row looks like one with another separator, or nil.
    ///
    /// ```swift
    /// TSELayouts.otherSeparator(firstLine: "DT_GERACAO,HH_GERACAO,ANO_ELEICAO,SQ_CANDIDATO")
    /// // "its rows are separated by commas, not by semicolons as TSE writes them (...)"
    /// ```
    public static func otherSeparator(firstLine: String) -> String? {
        guard !firstLine.contains(";") else { return nil }
        for (separator, name) in [(Character(","), "commas"), ("\t", "tabs"), ("|", "vertical bars")] {
            let fields = firstLine.split(separator: separator, omittingEmptySubsequences: false).map {
                normalize(String($0).trimmingCharacters(in: .init(charactersIn: "\" \r")))
            }
            guard fields.count >= 3 else { continue }
            let known = fields.filter { knownColumnNames.contains($0) }.count
            guard known >= 2 || headerless(fieldCount: fields.count) != nil else { continue }
            return "its rows are separated by \(name), not by semicolons as TSE writes them (the first line holds "
                + "\(fields.count) fields between \(name)\(known > 0 ? ", \(known) of them TSE column names" : "")): "
                + "a spreadsheet or a script saved it again; import TSE's own file, or save this one with ';' as the "
                + "separator"
        }
        return nil
    }
}
