import UrnaStore

/// Writes the rows of one stored table in COPY's text format straight from SQLite's column bytes: text is
/// copied (escaped only where it holds a tab, newline, CR or backslash), whole numbers and exact money are
/// printed digit by digit, NULL is `\N`, and only the rare cases (floats, blobs, a value of another storage
/// class than its column's) go through `PostgresColumnKind.postgresText`, which also refuses a value that
/// cannot be its column's type, naming the column. The output is byte for byte what that conversion gives.
struct CopyRowEncoder {
    private enum Plan {
        case text
        case integer
        case numeric(scale: Int)
        case boolean
        case converted
    }

    private let plans: [Plan]
    private let kinds: [PostgresColumnKind]
    /// `Table.column`, for messages (made once, not per value).
    private let labels: [String]

    init(_ table: PostgresTable) {
        kinds = table.columns.map(\.kind)
        labels = table.columns.map { "\(table.name).\($0.name)" }
        plans = table.columns.map { column in
            switch column.kind {
            case .text, .json, .uuid, .timestamp: .text
            case .integer: .integer
            case .numeric(let scale): .numeric(scale: scale)
            case .boolean: .boolean
            case .real, .bytea: .converted
            }
        }
    }

    /// Appends the current row of `select` (its columns in the table's order) as one COPY line.
    func encodeRow(of select: Statement, into out: inout CopyBuffer) throws {
        for i in 0..<plans.count {
            if i > 0 { out.append(9) }
            let storage = select.storageClass(at: i)
            if storage == 5 {
                out.append(92)
                out.append(78)
                continue
            }
            switch (plans[i], storage) {
            case (.text, 3):
                select.withText(at: i) { out.appendEscaped($0) }
            case (.integer, 1):
                out.appendDecimal(select.int(at: i), scale: 0)
            case (.numeric(let scale), 1):
                out.appendDecimal(select.int(at: i), scale: scale)
            case (.boolean, 1):
                out.append(select.int(at: i) != 0 ? 116 : 102)
            default:
                if var text = try kinds[i].postgresText(select.value(at: i), column: labels[i]) {
                    text.withUTF8 { out.appendEscaped(UnsafeRawBufferPointer($0)) }
                } else {
                    out.append(92)
                    out.append(78)
                }
            }
        }
        out.append(10)
    }
}
