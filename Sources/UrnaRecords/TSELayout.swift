/// One TSE file layout: which data it holds, whether it has a header row, and its columns in order.
///
/// Layouts are data (see `TSELayouts`); readers map fields by the canonical names, never by
/// position, so a column that moved between layouts is still found.
///
/// ```swift
/// let layout = TSELayouts.candidateOriginal46
/// print(layout.name, layout.canonicalColumns[11])  // ... SQ_CANDIDATO
/// ```
public struct TSELayout: Sendable, Equatable, CustomStringConvertible {
    /// A readable name such as "consulta_cand 58 columns (2014/2018)".
    public let name: String
    /// The data the records carry.
    public let kind: RecordKind
    /// True when files of this layout start with a header row naming the columns.
    public let hasHeader: Bool
    /// Column names as the file (or, for header-less originals, the TSE LEIAME) spells them, in field order.
    public let fileColumns: [String]
    /// The same columns under their canonical modern names (`TSELayouts.canonicalName`).
    public let canonicalColumns: [String]

    /// A layout; canonical names are derived from `fileColumns`.
    public init(name: String, kind: RecordKind, hasHeader: Bool, fileColumns: [String]) {
        self.name = name
        self.kind = kind
        self.hasHeader = hasHeader
        self.fileColumns = fileColumns
        self.canonicalColumns = fileColumns.map(TSELayouts.canonicalName)
    }

    /// A layout from a `;`-separated column list, as LAYOUTS.md writes them.
    init(name: String, kind: RecordKind, hasHeader: Bool, columnList: String) {
        self.init(
            name: name, kind: kind, hasHeader: hasHeader, fileColumns: columnList.split(separator: ";").map(String.init)
        )
    }

    /// Number of fields every row of this layout has.
    public var fieldCount: Int { fileColumns.count }

    /// The name.
    public var description: String { name }
}
