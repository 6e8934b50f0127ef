/// The records of one CSV stream (a file or one zip member) in a recognised TSE layout.
///
/// Reads the first row to recognise the layout; a header row is consumed, a header-less file's
/// first row is its first record. Rows whose field count differs from the layout's are rejects.
final class TSERecordStream {
    let csv: CSVReader
    let layout: TSELayout
    let columns: ColumnIndex
    private var pending: CSVRow?

    init(csv: CSVReader) throws {
        self.csv = csv
        guard let first = try csv.next() else { throw RecordFileError.empty(file: csv.name) }
        switch first {
        case let .malformed(row):
            throw RecordFileError.unreadableFirstRow(row)
        case let .row(row):
            layout = try TSELayouts.recognize(firstRow: row.strings, file: csv.name)
            if !layout.hasHeader { pending = row }
        }
        columns = ColumnIndex(names: layout.canonicalColumns)
    }

    func next() throws -> RecordOrReject? {
        let row: CSVRow
        if let first = pending {
            pending = nil
            row = first
        } else {
            switch try csv.next() {
            case nil: return nil
            case let .malformed(bad)?: return .reject(bad)
            case let .row(good)?: row = good
            }
        }
        guard row.count == layout.fieldCount else {
            var reason = "expected \(layout.fieldCount) fields, found \(row.count)"
            if row.count == 1 {
                reason += " (a one-field line, such as an export trailer; delete it if it is not data)"
            } else {
                reason += " (\(layout.name)); look for a separator inside an unquoted field or a missing field"
            }
            return .reject(MalformedRow(location: row.location, reason: reason, rawBytes: row.rawBytes))
        }
        return .record(Record(kind: layout.kind, columns: columns, fields: row.fields, location: row.location))
    }
}
