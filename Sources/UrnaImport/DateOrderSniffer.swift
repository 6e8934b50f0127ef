import UrnaRecords

/// Decides, per file, whether its slash dates are day first (TSE's `dd/MM/yyyy`) or month first (`M/d/yyyy`, as a
/// spreadsheet in a US locale saves a file), from the dates of its first rows, so that `3/7/1967` is never read one
/// way without a reason.
///
/// A date whose first number is over 12 (`27/3/1967`) shows day first; one whose second is (`3/27/1967`) shows
/// month first. A file showing only one order is read in it; a file showing both, or showing neither while writing
/// dates TSE never writes (`3/7/1967`, without leading zeros), is `.undecided`: a date that could be read either way
/// is left empty with a warning. A file whose dates are all TSE's two-digit form and show nothing is day first.
///
/// ```swift
/// var sniffer = DateOrderSniffer()
/// for record in firstRows { sniffer.observe(record) }
/// mapper.dateOrder = sniffer.order
/// ```
struct DateOrderSniffer {
    /// Records looked at before the order is decided (the pipeline holds them back until then); a file whose dates
    /// are written without zeros and show no order by then is held on, up to `maximumHeldBytes`.
    static let window = 2_000
    /// The memory the rows held back may take before the order is decided anyway (a file of very long rows).
    static let maximumHeldBytes = 16 << 20

    /// The memory one held row takes, about.
    static func heldSize(_ item: RecordOrReject) -> Int {
        switch item {
        case .record(let r): r.withEncodedRow { $0?.byteCount ?? 0 } + 64 * r.fieldCount
        case .reject(let bad): bad.rawBytes.count
        }
    }

    /// A date that showed something, for the messages.
    struct Example {
        var location: SourceLocation
        var column: String
        var text: String

        var description: String { "\(column) '\(text)' at line \(location.line)" }
    }

    /// The file (or zip member) whose records are being looked at.
    private(set) var file: String?
    /// Records looked at.
    private(set) var records = 0
    private(set) var firstDayFirst: Example?
    private(set) var firstMonthFirst: Example?
    private(set) var firstUnpaddedAmbiguous: Example?
    private var dateColumns: (index: ColumnIndex, columns: [(position: Int, name: String)])?
    /// Per date column, the first date that showed day first and the first that showed month first.
    private var columnEvidence: [String: (day: Example?, month: Example?)] = [:]

    /// The date columns of every layout (canonical names): only these are looked at, so a hostile header naming a
    /// million `DT_` columns costs nothing.
    static let dateColumnNames: Set<String> = [
        "DT_GERACAO", "DT_ELEICAO", "DT_NASCIMENTO", "DT_ULTIMA_ATUALIZACAO", "DT_ACEITE_CANDIDATURA",
    ]

    /// Looks at the date columns (`dateColumnNames`) of one record of the file.
    mutating func observe(_ record: Record) {
        if file == nil { file = record.location.file }
        records += 1
        for (p, name) in columns(of: record.columns) {
            guard let raw = record.value(at: p), let evidence = TSEDate.orderEvidence(raw) else { continue }
            func example() -> Example {
                var location = record.location
                location.column = p + 1
                return Example(location: location, column: name, text: TSEField.text(raw) ?? raw)
            }
            switch evidence {
            case .dayFirst:
                if firstDayFirst == nil { firstDayFirst = example() }
                if columnEvidence[name]?.day == nil { columnEvidence[name, default: (nil, nil)].day = example() }
            case .monthFirst:
                if firstMonthFirst == nil { firstMonthFirst = example() }
                if columnEvidence[name]?.month == nil { columnEvidence[name, default: (nil, nil)].month = example() }
            case .ambiguous(let padded):
                if !padded, firstUnpaddedAmbiguous == nil { firstUnpaddedAmbiguous = example() }
            }
        }
    }

    /// Whether some date showed its order (without one, rows are held until one does, up to `maximumHeldBytes`).
    var hasEvidence: Bool { firstDayFirst != nil || firstMonthFirst != nil }

    /// Whether the rows looked at are enough to decide: `window` of them once one showed its order.
    func isDecided(heldBytes: Int) -> Bool {
        (records >= Self.window && (hasEvidence || firstUnpaddedAmbiguous == nil)) || heldBytes >= Self.maximumHeldBytes
    }

    /// The order the dates looked at show.
    var order: TSEDate.Order {
        switch (firstDayFirst != nil, firstMonthFirst != nil) {
        case (true, false): return .dayFirst
        case (false, true): return .monthFirst
        case (true, true): return .undecided
        case (false, false): return firstUnpaddedAmbiguous == nil ? .dayFirst : .undecided
        }
    }

    /// When the file shows both orders, the order of each date column whose own dates showed one: a column a
    /// spreadsheet re-saved month first beside TSE's day-first columns is read in its own order (ninth real-files
    /// trial: the whole file was undecided, and every date of the other columns that reads either way was
    /// emptied). A column showing both is undecided; columns showing none follow `order` (undecided). Empty when
    /// the file shows one order or none.
    var columnOrders: [String: TSEDate.Order] {
        guard firstDayFirst != nil, firstMonthFirst != nil else { return [:] }
        return columnEvidence.mapValues { e in
            switch (e.day != nil, e.month != nil) {
            case (true, false): .dayFirst
            case (false, true): .monthFirst
            default: .undecided
            }
        }
    }

    /// What the summary says of the file's dates, when they are not simply TSE's.
    var warning: String? {
        guard let file else { return nil }
        let byColumn = columnOrders
        let dayColumns = byColumn.filter { $0.value == .dayFirst }.keys.sorted()
        let monthColumns = byColumn.filter { $0.value == .monthFirst }.keys.sorted()
        if !dayColumns.isEmpty, !monthColumns.isEmpty {
            let day = dayColumns.compactMap { columnEvidence[$0]?.day?.description }.joined(separator: ", ")
            let month = monthColumns.compactMap { columnEvidence[$0]?.month?.description }.joined(separator: ", ")
            let rest = Self.dateColumnNames.subtracting(dayColumns + monthColumns)
                .filter { name in dateColumns?.columns.contains { $0.name == name } ?? false }.sorted()
            let others =
                rest.isEmpty
                ? ""
                : "; in \(rest.joined(separator: ", ")), which show no order of their own (or both), a date that "
                    + "reads either way was left empty, with a warning for each"
            return "\(file): dates are written day first in \(dayColumns.joined(separator: ", ")) (\(day)) and month "
                + "first in \(monthColumns.joined(separator: ", ")) (\(month)), as when a spreadsheet re-saved some "
                + "columns: each was read in the order its own dates show\(others)"
        }
        switch order {
        case .dayFirst:
            return nil
        case .monthFirst:
            return "\(file): dates are written month first (M/d/yyyy, as a spreadsheet in a US locale saves them; "
                + "\(firstMonthFirst!.description)), and no date shows day first: every date of the file was read "
                + "month first"
        case .undecided:
            if let day = firstDayFirst, let month = firstMonthFirst {
                return "\(file): dates are written both day first (\(day.description)) and month first "
                    + "(\(month.description)): a date that reads either way (like 3/7/1967) was left empty, with a "
                    + "warning for each; import TSE's file itself, or save every date as dd/MM/yyyy"
            }
            let example = firstUnpaddedAmbiguous.map { " (\($0.description))" } ?? ""
            return "\(file): no date tells whether the file writes day/month or month/day\(example), and TSE writes "
                + "them as dd/MM/yyyy: every date that reads either way was left empty, with a warning for each; "
                + "import TSE's file itself, or save the dates as dd/MM/yyyy or yyyy-MM-dd"
        }
    }

    private mutating func columns(of index: ColumnIndex) -> [(position: Int, name: String)] {
        if let cached = dateColumns, cached.index === index { return cached.columns }
        var columns: [(position: Int, name: String)] = []
        for name in Self.dateColumnNames.sorted() {
            if let p = index.position(of: name) { columns.append((p, name)) }
        }
        dateColumns = (index, columns)
        return columns
    }
}
