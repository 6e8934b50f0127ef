import UrnaSchemas
import UrnaStore

/// The XML candidate dump: what `XMLRecordReader` reads back.
///
/// ```xml
/// <?xml version="1.0" encoding="ISO-8859-1"?>
/// <candidatos>
///   <candidato>
///     <ANO_ELEICAO>2018</ANO_ELEICAO>
///     ...
///     <bens>
///       <bem><NR_ORDEM_CANDIDATO>1</NR_ORDEM_CANDIDATO>...</bem>
///     </bens>
///   </candidato>
///   <coligacoes>
///     <coligacao><TP_AGREMIACAO>COLIGAÇÃO</TP_AGREMIACAO>...<NR_PARTIDO>27</NR_PARTIDO>...</coligacao>
///   </coligacoes>
/// </candidatos>
/// ```
extension ElectionExporter {
    func writeXML(to sink: ExportSink, summary: inout ExportSummary) throws {
        let catalogues = try Catalogues(connection)
        let goods = try GoodsOfCandidate(connection, catalogues: catalogues)
        try sink.ascii(
            sink.encoding == .utf8
                ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n")
        try sink.ascii("<candidatos>\n")
        let candidateTags = XMLTags(indent: "    ", lineBreak: true)
        let inlineTags = XMLTags(indent: "", lineBreak: false)
        let cursor = try prepare(
            "SELECT \(StoredColumns.list(ElectionColumns.candidate, alias: "t0")) FROM \"Candidate\" t0"
                + whereClause() + " ORDER BY t0.rowid")
        var coalitionIDs = Set<String>()
        while try cursor.step() {
            var r = StoredRowReader(cursor)
            let candidate: CandidateValues
            do { candidate = try CandidateValues(&r) } catch {
                throw Self.decodeProblem(error, type: "Candidate", key: "row \(summary.objects + 1)")
            }
            let row = try catalogues.row(for: candidate)
            let election = row.election!
            try sink.ascii("  <candidato>\n")
            for c in ExportLayouts.candidateXML {
                try element(c, row, candidateTags, sink, type: "Candidate", key: candidate.id)
            }
            for k in ElectionsV4.sourceColumns.indices {
                let name = ElectionsV4.sourceColumns[k].name
                let text: String?
                do { text = try TSEColumnWriter.sourceText(k, row) } catch let p as TSEColumnWriter.Problem {
                    throw ExportError.unrepresentable(
                        type: "Candidate", key: candidate.id, column: name, reason: p.reason)
                }
                guard let text else {
                    try sink.ascii("    <\(name)/>\n")
                    continue
                }
                try sink.ascii("    <\(name)>")
                try write(text, .xml, to: sink, type: "Candidate", key: candidate.id, column: name)
                try sink.ascii("</\(name)>\n")
            }
            var openedBens = false
            try goods.forEach(candidate.id) { good, goodType in
                if election.round != 1 {
                    throw ExportError.unrepresentable(
                        type: "Good", key: good.id, column: "candidate",
                        reason: "belongs to round \(election.round), and asset rows name no round (they belong to the "
                            + "first-round candidacy): it would come back on another candidacy")
                }
                if !openedBens {
                    try sink.ascii("    <bens>\n")
                    openedBens = true
                }
                var assetRow = row
                assetRow.good = good
                assetRow.goodType = goodType
                try sink.ascii("      <bem>")
                // A <bem> inherits SQ_CANDIDATO from its <candidato>, not the election's year and description
                // nor the unit, which key the asset.
                for c in [MapperColumn.ANO_ELEICAO, .DS_ELEICAO, .SG_UE] {
                    try element(c, assetRow, inlineTags, sink, type: "Good", key: good.id)
                }
                for c in ExportLayouts.assetXML {
                    try element(c, assetRow, inlineTags, sink, type: "Good", key: good.id)
                }
                try sink.ascii("</bem>\n")
                summary.nestedGoods += 1
            }
            if openedBens { try sink.ascii("    </bens>\n") }
            try sink.ascii("  </candidato>\n")
            summary.objects += 1
            if filter != nil, let id = candidate.coalitionID { coalitionIDs.insert(id) }
        }
        // Unfiltered, every coalition goes out (with or without candidacies); filtered, those of the candidacies.
        var ids: [String] = []
        if filter == nil {
            let all = try connection.prepare("SELECT \"id\" FROM \"Coalition\" ORDER BY \"id\"")
            while try all.step() { if case .text(let id) = all.value(at: 0) { ids.append(id) } }
        } else {
            ids = coalitionIDs.sorted()
        }
        try writeCoalitionRecords(ids, catalogues: catalogues, tags: inlineTags, to: sink, summary: &summary)
        try sink.ascii("</candidatos>\n")
    }

    /// One `<coligacao>` per party of each coalition, in list order (one without a party for an empty list).
    private func writeCoalitionRecords(
        _ ids: [String], catalogues: Catalogues, tags: XMLTags, to sink: ExportSink, summary: inout ExportSummary
    ) throws {
        guard !ids.isEmpty else { return }
        let members = try CoalitionMembers(connection)
        try sink.ascii("  <coligacoes>\n")
        for id in ids {
            guard let coalition = try catalogues.coalitions.value(id) else { continue }
            try members.forEach(id, catalogues: catalogues) { party in
                var row = TSERowObjects(party: party, coalition: coalition)
                row.coalitionRow = true
                try sink.ascii("    <coligacao>")
                for c in ExportLayouts.coalitionXML {
                    try element(c, row, tags, sink, type: "Coalition", key: id)
                }
                try sink.ascii("</coligacao>\n")
                summary.coalitionRows += 1
            }
        }
        try sink.ascii("  </coligacoes>\n")
    }

    private func element(
        _ c: MapperColumn, _ row: TSERowObjects, _ tags: XMLTags, _ sink: ExportSink, type: String, key: String
    ) throws {
        guard let text = try columnText(c, row, type: type, key: key) else {
            try sink.bytes(tags.empty[c.rawValue])
            return
        }
        try sink.bytes(tags.open[c.rawValue])
        try write(text, .xml, to: sink, type: type, key: key, column: c.name)
        try sink.bytes(tags.close[c.rawValue])
    }
}

/// The parties of one coalition, in list order.
final class CoalitionMembers {
    private let statement: Statement

    init(_ c: Connection) throws {
        let list = Identifier.quoted(StorageLayout.listTable(type: "Coalition", property: "parties"))
        statement = try c.prepare("SELECT \"target\" FROM \(list) WHERE \"owner\" = ?1 ORDER BY \"position\"")
    }

    /// Calls `body` with each party of coalition `id` (once with nil when it has none, so the coalition itself
    /// is still written).
    func forEach(_ id: String, catalogues: ElectionExporter.Catalogues, _ body: (PartyValues?) throws -> Void) throws {
        statement.bindText(id, at: 1)
        var numbers: [String] = []
        while try statement.step() { if case .text(let t) = statement.value(at: 0) { numbers.append(t) } }
        statement.reset()
        var wrote = false
        for n in numbers {
            guard let party = try catalogues.parties.value(n) else { continue }
            try body(party)
            wrote = true
        }
        if !wrote { try body(nil) }
    }
}

/// Start, end and empty tags of every mapper column, rendered once.
struct XMLTags {
    let open: [[UInt8]]
    let close: [[UInt8]]
    let empty: [[UInt8]]

    init(indent: String, lineBreak: Bool) {
        let end = lineBreak ? "\n" : ""
        open = MapperColumn.allCases.map { Array("\(indent)<\($0.name)>".utf8) }
        close = MapperColumn.allCases.map { Array("</\($0.name)>\(end)".utf8) }
        empty = MapperColumn.allCases.map { Array("\(indent)<\($0.name)/>\(end)".utf8) }
    }
}
