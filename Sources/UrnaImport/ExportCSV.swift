import Foundation
import UrnaStore

/// TSE CSV files: `;` between fields, every field double-quoted (`"` doubled inside), LF line ends, a header
/// row of modern column names, the null markers TSE uses (`#NULO#`, `-1`). Latin-1 unless UTF-8 is asked
/// for (then with a byte-order mark).
extension ElectionExporter {
    /// consulta_cand rows, one per candidacy.
    func writeCandidatesCSV(to sink: ExportSink, summary: inout ExportSummary) throws {
        let catalogues = try Catalogues(connection)
        let columns = ExportLayouts.candidateCSV
        let csvColumns = try writeHeader(columns, to: sink)
        let cursor = try prepare(
            "SELECT \(StoredColumns.list(ElectionColumns.candidate, alias: "t0")) FROM \"Candidate\" t0"
                + whereClause() + " ORDER BY t0.rowid")
        while try cursor.step() {
            var r = StoredRowReader(cursor)
            let candidate: CandidateValues
            do { candidate = try CandidateValues(&r) } catch {
                throw Self.decodeProblem(error, type: "Candidate", key: "row \(summary.objects + 1)")
            }
            try writeRow(
                csvColumns, try catalogues.row(for: candidate), to: sink, type: "Candidate", key: candidate.id)
            summary.objects += 1
        }
    }

    /// bem_candidato rows, one per good, grouped by candidacy (in import order) and in list order.
    func writeGoodsCSV(to sink: ExportSink, summary: inout ExportSummary) throws {
        let catalogues = try Catalogues(connection)
        let list = Identifier.quoted(StorageLayout.listTable(type: "Candidate", property: "goods"))
        // CROSS JOIN fixes the loop order: candidacies by rowid, then each one's list by position, no sort.
        let from =
            "\"Candidate\" oc CROSS JOIN \(list) ol ON ol.\"owner\" = oc.\"id\" "
            + "CROSS JOIN \"Good\" t0 ON t0.\"id\" = ol.\"target\""
        let columns = ExportLayouts.assetCSV
        let csvColumns = try writeHeader(columns, to: sink)
        let cursor = try prepare(
            "SELECT ol.\"owner\", \(StoredColumns.list(ElectionColumns.good, alias: "t0")) FROM \(from)"
                + whereClause() + " ORDER BY oc.rowid, ol.\"position\"")
        while try cursor.step() {
            var r = StoredRowReader(cursor)
            let owner: String
            let good: GoodValues
            do {
                owner = try r.text()
                good = try GoodValues(&r, candidateID: owner)
            } catch {
                throw Self.decodeProblem(error, type: "Good", key: "row \(summary.objects + 1)")
            }
            guard let candidate = try catalogues.candidates.value(owner) else { continue }
            var row = try catalogues.row(for: candidate)
            if row.election!.round != 1 {
                throw ExportError.unrepresentable(
                    type: "Good", key: good.id, column: "candidate",
                    reason: "belongs to round \(row.election!.round), and asset rows name no round (they belong to "
                        + "the first-round candidacy): it would come back on another candidacy")
            }
            row.good = good
            row.goodType = try good.typeKey.flatMap(catalogues.goodTypes.value)
            try writeRow(csvColumns, row, to: sink, type: "Good", key: good.id)
            summary.objects += 1
        }
    }

    /// consulta_coligacao rows: one per party of each coalition, in list order; the election, office and unit
    /// columns come from the coalition's first candidacy (the mapper does not read them).
    func writeCoalitionsCSV(to sink: ExportSink, summary: inout ExportSummary) throws {
        let catalogues = try Catalogues(connection)
        let members = try CoalitionMembers(connection)
        let columns = ExportLayouts.coalitionCSV
        let csvColumns = try writeHeader(columns, to: sink)
        let firstCandidate = try connection.prepare(
            "SELECT \(StoredColumns.list(ElectionColumns.candidate, alias: "c")) FROM \"Candidate\" c "
                + "WHERE c.\"coalition\" = ?1 ORDER BY c.rowid LIMIT 1")
        let cursor = try prepare(
            "SELECT \(StoredColumns.list(ElectionColumns.coalition, alias: "t0")) FROM \"Coalition\" t0"
                + whereClause() + " ORDER BY t0.\"id\"")
        while try cursor.step() {
            var r = StoredRowReader(cursor)
            let coalition: CoalitionValues
            do { coalition = try CoalitionValues(&r) } catch {
                throw Self.decodeProblem(error, type: "Coalition", key: "row \(summary.objects + 1)")
            }
            var base = TSERowObjects(coalition: coalition)
            base.coalitionRow = true
            firstCandidate.bindText(coalition.id, at: 1)
            if try firstCandidate.step() {
                var cr = StoredRowReader(firstCandidate)
                if let candidate = try? CandidateValues(&cr) {
                    base.candidate = candidate
                    base.election = try catalogues.elections.value(candidate.electionID)
                }
            }
            firstCandidate.reset()
            try members.forEach(coalition.id, catalogues: catalogues) { party in
                var row = base
                row.party = party
                try writeRow(csvColumns, row, to: sink, type: "Coalition", key: coalition.id)
                summary.coalitionRows += 1
            }
            summary.objects += 1
        }
    }

    // MARK: - Rows

    private func writeHeader(_ columns: [ExportColumn], to sink: ExportSink) throws -> CSVColumns {
        if sink.encoding == .utf8 { try sink.bytes([0xEF, 0xBB, 0xBF]) }
        for (i, c) in columns.enumerated() {
            if i > 0 { try sink.byte(0x3B) }
            try sink.byte(0x22)
            try sink.ascii(c.name)
            try sink.byte(0x22)
        }
        try sink.byte(0x0A)
        return CSVColumns(columns: columns, nulls: columns.map { TSEColumnWriter.nullText($0.name) })
    }

    private func writeRow(
        _ columns: CSVColumns, _ row: TSERowObjects, to sink: ExportSink,
        type: String, key: String
    ) throws {
        for (i, column) in columns.columns.enumerated() {
            if i > 0 { try sink.byte(0x3B) }
            try sink.byte(0x22)
            switch column {
            case .mapper(let c):
                if let text = try columnText(c, row, type: type, key: key) {
                    try write(text, .csv, to: sink, type: type, key: key, column: c.name)
                } else {
                    try sink.ascii(columns.nulls[i])
                }
            case .generationDate:
                try sink.ascii(try row.generation.map { try TSEText.date($0, withTime: false) } ?? "#NULO#")
            case .generationTime: try sink.ascii(try row.generation.map { try TSEText.time($0) } ?? "#NULO#")
            case .source(let k):
                if let text = try TSEColumnWriter.sourceText(k, row) {
                    try write(text, .csv, to: sink, type: type, key: key, column: column.name)
                } else {
                    try sink.ascii(columns.nulls[i])
                }
            case .unread: try sink.ascii(columns.nulls[i])
            }
            try sink.byte(0x22)
        }
        try sink.byte(0x0A)
    }
}

/// A CSV file's columns and the null marker of each, worked out once per file.
struct CSVColumns {
    let columns: [ExportColumn]
    let nulls: [StaticString]
}
