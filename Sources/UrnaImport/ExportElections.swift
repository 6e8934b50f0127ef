import Foundation
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Exports the objects of an Urna file as XML candidate dumps, TSE CSV files or JSON lines, streaming: rows
/// are read with one SQL cursor and written through a 256 KiB buffer, so memory stays flat whatever the size.
///
/// XML and CSV are the mapper's inverse (`TSEColumnWriter`): importing an export into a fresh file gives the
/// same objects, property by property. XML writes one `<candidato>` per candidacy with its `<bens>`, then
/// `<coligacoes>` (one `<coligacao>` per party of each coalition, as legend files list them). CSV writes one
/// TSE file per call: consulta_cand rows (`Candidate`), bem_candidato rows (`Good`) or consulta_coligacao rows
/// (`Coalition`). JSON writes any type, one object per line. Personal data (CPF, e-mail, voter ID) is written
/// only where the file has it.
///
/// ```swift
/// let store = try Store.openExisting(path: "urna.sqlite", readOnly: true)
/// let exporter = try ElectionExporter(store: store, options: ExportOptions(format: .xml, predicate: "state == 'MG'"))
/// let summary = try exporter.export(toPath: "mg.xml")   // nil writes to standard output
/// print(summary.line)
/// ```
public final class ElectionExporter {
    /// The file exported from.
    public let store: Store
    /// What is exported and how.
    public let options: ExportOptions
    /// The exported type.
    let type: ObjectSchema
    /// The compiled filter on `t0` (the exported type's rows), if any.
    let filter: (sql: String, bindings: [SQLValue])?
    /// CSV cells seen that begin like a spreadsheet formula, and the first one's place (for the summary).
    var formulas = SpreadsheetFormula.Tally()
    /// The connection an export reads through: one commit of the file, on a connection of its own while it runs
    /// (see `Store.withReadSnapshot`), so other threads of the app go on writing through the store meanwhile.
    private(set) var connection: Connection

    /// Checks the options against the file (type, format, encoding, predicate) before anything is written.
    ///
    /// Throws `ExportError` (unsupported type or encoding, not an elections file) or the predicate's
    /// `QueryPredicateError`.
    public init(store: Store, options: ExportOptions) throws {
        self.store = store
        self.options = options
        self.connection = store.connection
        let typeName = options.effectiveTypeName
        if options.format != .json {
            do {
                try ElectionStoreWriter.checkSchema(store.schema)
            } catch {
                let family = store.schema.family
                throw ExportError.notAnElectionsFile(
                    reason: family == "elections" ? "\(error)" : "the file holds the '\(family)' family")
            }
        }
        let tableTypes = store.schema.tableTypes.map(\.name)
        let supported: [String]
        switch options.format {
        case .xml: supported = ["Candidate"]
        case .csv: supported = ["Candidate", "Good", "Coalition"]
        case .json: supported = tableTypes
        }
        guard let type = store.schema[type: typeName], !type.embedded, supported.contains(typeName) else {
            throw ExportError.unsupportedType(
                type: typeName, format: options.format, supported: supported.filter(tableTypes.contains))
        }
        self.type = type
        if options.format == .json && options.effectiveEncoding != .utf8 {
            throw ExportError.unsupportedEncoding(format: .json, encoding: options.effectiveEncoding)
        }
        if let text = options.predicate {
            let predicate = try QueryPredicate.parse(text)
            filter = try QueryCompiler(schema: store.schema).compile(predicate, on: typeName, alias: "t0")
        } else {
            filter = nil
        }
    }

    /// Writes the export to `path` (through a temporary file renamed at the end), or to standard output
    /// when `path` is nil.
    public func export(toPath path: String?) throws -> ExportSummary {
        guard let path else {
            let sink = ExportSink(fd: STDOUT_FILENO, path: "standard output", encoding: options.effectiveEncoding)
            return try export(to: sink)
        }
        return try onSnapshot {
            let file = try ExportOutputFile(path: path, private: try holdsPersonalData())
            do {
                let sink = ExportSink(
                    fd: file.fd, path: path, encoding: options.effectiveEncoding,
                    measuresWhenFull: file.temporaryPath != nil)
                let summary = try export(to: sink)
                if let full = sink.diskFull {
                    throw ExportError.output(
                        path: path,
                        message: ExportError.diskFullMessage(
                            errno: full.errno, needed: sink.bytesWritten, free: full.freeBytes))
                }
                try file.commit()
                return summary
            } catch {
                file.discard()
                throw error
            }
        }
    }

    /// Runs `body` with `connection` reading one commit (a consistent snapshot), the store's writer again after it.
    private func onSnapshot<T>(_ body: () throws -> T) throws -> T {
        try store.withReadSnapshot { snapshot in
            let previous = connection
            connection = snapshot
            defer { connection = previous }
            return try body()
        }
    }

    /// Writes the export to a sink, inside one read transaction (a consistent snapshot).
    func export(to sink: ExportSink) throws -> ExportSummary {
        try onSnapshot { try exportOnSnapshot(to: sink) }
    }

    private func exportOnSnapshot(to sink: ExportSink) throws -> ExportSummary {
        var summary = ExportSummary()
        summary.typeName = type.name
        switch (options.format, type.name) {
        case (.xml, _): try writeXML(to: sink, summary: &summary)
        case (.csv, "Good"): try writeGoodsCSV(to: sink, summary: &summary)
        case (.csv, "Coalition"): try writeCoalitionsCSV(to: sink, summary: &summary)
        case (.csv, _): try writeCandidatesCSV(to: sink, summary: &summary)
        case (.json, _): try writeJSONLines(to: sink, summary: &summary)
        }
        try sink.flush()
        summary.bytes = sink.bytesWritten
        summary.formulas = formulas
        return summary
    }

    // MARK: - Shared pieces

    /// ` WHERE (filter)` (or nothing) and its bindings, optionally joined to more conditions.
    func whereClause(_ extra: [String] = []) -> String {
        let conditions = extra + (filter.map { ["(\($0.sql))"] } ?? [])
        return conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// A prepared statement with the filter's values bound.
    func prepare(_ sql: String) throws -> Statement {
        let s = try connection.prepare(sql)
        try s.bind(filter?.bindings ?? [])
        return s
    }

    /// Whether the output holds personal data (so the file is created readable by its owner only): some
    /// exported object has a CPF, e-mail or voter ID.
    private func holdsPersonalData() throws -> Bool {
        let columns = ["cpf", "email", "voterId"].filter { type[property: $0]?.isStored == true }
        guard !columns.isEmpty else { return false }
        let test = columns.map { "coalesce(\(Identifier.quoted($0)), '') <> ''" }.joined(separator: " OR ")
        return try connection.integer(
            "SELECT EXISTS (SELECT 1 FROM \(Identifier.quoted(type.name)) WHERE \(test))") != 0
    }

    /// The catalogue lookups every TSE writer shares.
    final class Catalogues {
        let elections: CatalogueLookup<String, ElectionValues>
        let parties: CatalogueLookup<String, PartyValues>
        let coalitions: CatalogueLookup<String, CoalitionValues>
        let goodTypes: CatalogueLookup<String, GoodTypeValues>
        let candidates: CatalogueLookup<String, CandidateValues>

        init(_ c: Connection) throws {
            elections = try CatalogueLookup(
                c, table: "Election", columns: ElectionColumns.election, bind: { $0.bindText($1, at: 1) },
                decode: { try ElectionValues(&$0) })
            parties = try CatalogueLookup(
                c, table: "Party", columns: ElectionColumns.party, bind: { $0.bindText($1, at: 1) },
                decode: { try PartyValues(&$0) })
            coalitions = try CatalogueLookup(
                c, table: "Coalition", columns: ElectionColumns.coalition, bind: { $0.bindText($1, at: 1) },
                decode: { try CoalitionValues(&$0) })
            goodTypes = try CatalogueLookup(
                c, table: "GoodType", columns: ElectionColumns.goodType, bind: { $0.bindText($1, at: 1) },
                decode: { try GoodTypeValues(&$0) })
            candidates = try CatalogueLookup(
                c, table: "Candidate", columns: ElectionColumns.candidate, limit: 64,
                bind: { $0.bindText($1, at: 1) }, decode: { try CandidateValues(&$0) })
        }

        /// A candidacy's row objects: its election (required: it keys the row), party and coalition.
        func row(for candidate: CandidateValues) throws -> TSERowObjects {
            guard let election = try elections.value(candidate.electionID) else {
                throw ExportError.unrepresentable(
                    type: "Candidate", key: candidate.id, column: "election",
                    reason: "names no stored election, and TSE rows are keyed by their election")
            }
            return TSERowObjects(
                election: election, candidate: candidate, party: try candidate.partyID.flatMap(parties.value),
                coalition: try candidate.coalitionID.flatMap(coalitions.value))
        }
    }

    /// The goods of one candidacy in list order, with their types.
    final class GoodsOfCandidate {
        private let statement: Statement
        private let catalogues: Catalogues

        init(_ c: Connection, catalogues: Catalogues) throws {
            let list = Identifier.quoted(StorageLayout.listTable(type: "Candidate", property: "goods"))
            statement = try c.prepare(
                "SELECT \(StoredColumns.list(ElectionColumns.good, alias: "g")) FROM \(list) l "
                    + "JOIN \"Good\" g ON g.\"id\" = l.\"target\" WHERE l.\"owner\" = ?1 ORDER BY l.\"position\"")
            self.catalogues = catalogues
        }

        /// Calls `body` with each good of `candidateID` and its type.
        func forEach(_ candidateID: String, _ body: (GoodValues, GoodTypeValues?) throws -> Void) throws {
            statement.bindText(candidateID, at: 1)
            defer { statement.reset() }
            while try statement.step() {
                var r = StoredRowReader(statement)
                let good = try GoodValues(&r, candidateID: candidateID)
                try body(good, try good.typeKey.flatMap(catalogues.goodTypes.value))
            }
        }
    }

    /// A column's text, with the object and column named when it has no TSE rendering.
    func columnText(_ c: MapperColumn, _ row: TSERowObjects, type: String, key: String) throws -> String? {
        do {
            return try TSEColumnWriter.text(c, row)
        } catch let p as TSEColumnWriter.Problem {
            throw ExportError.unrepresentable(type: type, key: key, column: c.name, reason: p.reason)
        }
    }

    /// Writes text through the sink, naming the object and column when a character cannot be carried. CSV cells
    /// that begin like a spreadsheet formula are counted, and prefixed with `'` when `spreadsheetSafe`.
    func write(
        _ text: String, _ escaping: ExportSink.Escaping, to sink: ExportSink, type: String, key: String,
        column: @autoclosure () -> String
    ) throws {
        do {
            if escaping == .csv, formulas.note(text, place: "\(type) \(key), column \(column())"),
                options.spreadsheetSafe
            {
                try sink.byte(UInt8(ascii: "'"))
            }
            try sink.text(text, escaping)
        } catch let u as ExportSink.Unencodable {
            throw ExportError.unencodable(type: type, key: key, column: column(), scalar: u.scalar, hint: u.hint)
        }
    }

    /// A stored value that could not be read, with the object it belongs to named.
    static func decodeProblem(_ error: Error, type: String, key: String) -> Error {
        if let p = error as? TSEColumnWriter.Problem {
            return ExportError.unrepresentable(type: type, key: key, column: "a column", reason: p.reason)
        }
        return error
    }
}
