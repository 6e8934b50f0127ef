/// The records of one CSV stream (a file or one zip member) in a recognised TSE layout.
///
/// Recognition uses the first well-formed row: a header row is consumed, a header-less file's
/// first row is its first record. Malformed rows before it (say, broken quoting on line 1 of a
/// header-less original) are held and come out as rejects; only when no good row turns up within
/// the first `lookahead` rows is the file refused. Rows whose field count differs from the layout's
/// are rejects.
final class TSERecordStream {
    let csv: CSVReader
    let layout: TSELayout
    let columns: ColumnIndex
    /// Whether the file's lines may end with a separator after the last field, decided once per file: when its
    /// header row (or, header-less, its first row) does. Elsewhere a row with one field too many, even an empty
    /// last one, is a reject: an unquoted field holding a separator shifts every later column by one, and when
    /// the last column is empty the row looks the same (`JOÃO;APARECIDO ...` read as name and ballot name).
    let allowsTrailingSeparator: Bool
    /// Rows read so far that had one empty field past the layout's last column (a separator ending the line).
    private(set) var rowsWithTrailingSeparator = 0
    /// Rows read during recognition and not yet handed out.
    private var pending: [CSVReadResult] = []

    /// How many malformed rows may precede the first good one before the file is refused.
    static let lookahead = 100

    init(csv: CSVReader) throws {
        self.csv = csv
        var early: [MalformedRow] = []
        var firstGood: CSVRow?
        while firstGood == nil, early.count < Self.lookahead, let result = try csv.next() {
            switch result {
            case .malformed(let row): early.append(row)
            case .row(let row):
                // A line of spaces before any data is blank, as an empty line is (a member of only such lines
                // is empty).
                if Self.isBlank(row) { continue }
                firstGood = row
            }
        }
        guard let first = firstGood else {
            if let bad = early.first { throw Self.unreadable(bad, file: csv.name) }
            throw RecordFileError.empty(file: csv.name)
        }
        var later: [CSVReadResult] = []
        do {
            layout = try TSELayouts.recognize(firstRow: first.strings, file: csv.name)
        } catch {
            // A broken header makes the data row after it unrecognisable: report the header.
            if let bad = early.first { throw Self.unreadable(bad, file: csv.name) }
            // A header-less original whose first row lost or gained a field (historic files shift columns):
            // a later row gives the layout, and the first row is a reject like any other of the wrong length.
            guard Self.startsLikeAnOriginal(first), let (original, read) = try Self.headerlessLayout(after: csv),
                abs(original.fieldCount - first.count) <= 2
            else { throw error }
            layout = original
            later = read
        }
        allowsTrailingSeparator =
            first.count == layout.fieldCount + 1 && first.withFieldBytes(at: layout.fieldCount, { $0.isEmpty })
        pending = early.map { .malformed($0) }
        if !layout.hasHeader { pending.append(.row(first)) }
        pending += later
        pending.reverse()
        columns = ColumnIndex(names: layout.canonicalColumns)
        headerStart = Array((layout.fileColumns.first ?? "").utf8)
    }

    /// The error for a first row that cannot be read: a file whose separator was changed (quoted fields between
    /// commas read as one broken field) is said to be so, not reported as badly quoted.
    static func unreadable(_ bad: MalformedRow, file: String) -> RecordFileError {
        if let hint = TSELayouts.otherSeparator(firstLine: String(decoding: bad.rawBytes, as: UTF8.self)) {
            return .unrecognized(file: file, reason: hint, missingColumns: [])
        }
        return .unreadableFirstRow(bad)
    }

    /// Whether a row that is not a header begins as every header-less original does, with DATA_GERACAO
    /// (`dd/MM/yyyy`) and HORA_GERACAO (`HH:mm:ss`): a foreign file is not read as TSE data by its later rows.
    private static func startsLikeAnOriginal(_ row: CSVRow) -> Bool {
        let f = row.strings
        guard f.count >= 2, !TSELayouts.looksLikeHeader(f.map(TSELayouts.normalize)) else { return false }
        func shaped(_ text: String, _ pattern: String) -> Bool {
            let t = Array(text.utf8)
            let p = Array(pattern.utf8)
            guard t.count == p.count else { return false }
            return zip(t, p).allSatisfy { c, m in m == UInt8(ascii: "9") ? (0x30...0x39).contains(c) : c == m }
        }
        return shaped(f[0], "99/99/9999") && shaped(f[1], "99:99:99")
    }

    /// The header-less original layout of the first of the next `lookahead` rows whose field count names one,
    /// with every row read up to it (nil when none does).
    private static func headerlessLayout(after csv: CSVReader) throws -> (TSELayout, [CSVReadResult])? {
        var read: [CSVReadResult] = []
        while read.count < lookahead, let result = try csv.next() {
            read.append(result)
            if case .row(let row) = result, let layout = TSELayouts.headerless(fieldCount: row.count) {
                return (layout, read)
            }
        }
        return nil
    }

    func next() throws -> RecordOrReject? {
        var row: CSVRow
        repeat {
            switch pending.isEmpty ? try csv.next() : pending.removeLast() {
            case nil: return nil
            case .malformed(let bad)?: return .reject(bad)
            case .row(let good)?: row = good
            }
            // A line of spaces is blank, as an empty line is, here as before the first row: one at the end of a
            // file (an editor's) was a reject, "a one-field line, such as an export trailer".
        } while Self.isBlank(row)
        if allowsTrailingSeparator, row.count == layout.fieldCount + 1,
            row.withFieldBytes(at: layout.fieldCount, { $0.isEmpty })
        {
            // A file whose lines end in a separator (a tool that writes one after each field): the field after the
            // last column is empty, so nothing is lost by reading the row; each such row was rejected, and a
            // header-less original so written was refused whole (seventh real-files trial).
            rowsWithTrailingSeparator += 1
        } else if row.count != layout.fieldCount {
            var reason = "expected \(layout.fieldCount) fields, found \(row.count)"
            if row.count == 1 {
                reason += " (a one-field line, such as an export trailer; delete it if it is not data)"
            } else {
                reason += " (\(layout.name)); look for a separator inside an unquoted field or a missing field"
            }
            if row.count < layout.fieldCount, try isLastRow() {
                // A download that stopped ends mid-row: the usual advice sent people looking for a separator.
                reason +=
                    "; this is the file's last line: if the file was cut short (a download that stopped), "
                    + "download it again"
            }
            // The column named is the first one missing (a short row) or the first one too many (a long row).
            var location = row.location
            location.column = min(row.count, layout.fieldCount) + 1
            return .reject(MalformedRow(location: location, reason: reason, rawBytes: row.rawBytes))
        }
        if layout.hasHeader, repeatsHeader(row) {
            // Two files joined with `cat`: the second header was rejected as "ANO_ELEICAO is not a whole number".
            return .reject(
                MalformedRow(
                    location: row.location,
                    reason: "this line repeats the file's header row (two files joined one after the other?): delete "
                        + "it; the rows after it are read under the first header",
                    rawBytes: row.rawBytes))
        }
        return .record(Record(kind: layout.kind, columns: columns, fields: row.fields, location: row.location))
    }

    /// Whether `row` is one field of white space only (a blank line).
    static func isBlank(_ row: CSVRow) -> Bool { row.count == 1 && row[0].allSatisfy(\.isWhitespace) }

    /// Whether no row follows the one just read (the next one, if any, is kept for `next()`).
    private func isLastRow() throws -> Bool {
        guard pending.isEmpty else { return false }
        guard let following = try csv.next() else { return true }
        pending.append(following)
        return false
    }

    /// The header's first name, as bytes, for a cheap first look at each row.
    private let headerStart: [UInt8]

    /// Whether `row` holds exactly the header's names (compared in full only when its first field starts so).
    private func repeatsHeader(_ row: CSVRow) -> Bool {
        let start = headerStart
        let same = row.withFieldBytes(at: 0) { bytes in bytes.count == start.count && bytes.elementsEqual(start) }
        return same && row.strings.prefix(layout.fieldCount).elementsEqual(layout.fileColumns)
    }
}
