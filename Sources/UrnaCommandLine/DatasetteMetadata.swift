import Foundation
import UrnaStore

/// Datasette's metadata for an Urna file, built from its recorded schema: which tables to hide (Urna's own
/// bookkeeping and the link tables of lists), which column labels a row when another table links to it,
/// and a description of every table and column (what it holds, the TSE column it comes from, its unit).
///
/// ```swift
/// let json = DatasetteMetadata(schema: store.schema, databaseName: "urna").json()
/// ```
struct DatasetteMetadata {
    let schema: Schema
    /// The name Datasette gives the file: its name without the extension (`urna.sqlite` -> `urna`).
    let databaseName: String
    /// The program writing it (`urna`, or an app's executable): its name titles the metadata.
    var tool = "urna"

    /// TSE's columns, units and wording apply to the elections family only: an app's "Party" or decimal(2) column
    /// is not TSE's (a newsroom's fee was described as "money in cents of a real (BRL)" from "TSE open data").
    var isElections: Bool { schema.family == "elections" }

    /// The name in titles and descriptions: Urna for urna itself, the app's name otherwise.
    var programName: String { tool == "urna" ? "Urna" : tool }

    static func databaseName(forPath path: String) -> String {
        ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// Urna's bookkeeping tables.
    static let internalTables = [StorageLayout.schemaTable, StorageLayout.historyTable]

    /// The link tables of list properties (`Candidate_goods`): rows of (owner, position, target).
    var linkTables: [String] {
        schema.tableTypes.flatMap { t in
            t.properties.compactMap { p -> String? in
                if case .list = p.type { return StorageLayout.listTable(type: t.name, property: p.name) }
                return nil
            }
        }
    }

    /// The column that names a row of `type` where other tables link to it.
    func labelColumn(of type: ObjectSchema) -> String? {
        let preferred = ["acronym", "nickname", "electionDescription", "typedescription", "goodDescription", "name"]
        for name in preferred where type[property: name]?.isStored == true {
            if case .string = type[property: name]!.type { return name }
        }
        return nil
    }

    /// What a column holds, from its type in the descriptor (and the TSE column, for the elections family).
    func describe(_ p: Property, of type: ObjectSchema) -> String {
        var parts: [String] = []
        if isElections, let tse = Self.tseColumns["\(type.name).\(p.name)"] { parts.append("TSE \(tse)") }
        switch p.type {
        case .decimal(let scale) where scale == 2 && isElections:
            parts.append("money in cents of a real (BRL): 230000000 is R$ 2,300,000.00; divide by 100 for reais")
        case .decimal(let scale): parts.append("exact decimal stored as an integer scaled by 10^\(scale)")
        case .date where isElections: parts.append("date and time as ISO-8601 text in UTC (TSE dates are at midnight)")
        case .date: parts.append("date and time as ISO-8601 text in UTC")
        case .link(let target): parts.append("link: the key of a \(target) row")
        case .bool: parts.append("0 or 1")
        case .uuid: parts.append("UUID")
        case .data: parts.append("bytes")
        case .embedded(let t): parts.append("embedded \(t) object")
        default: break
        }
        if p.primaryKey { parts.append("primary key") }
        if p.optional { parts.append("may be empty (null)") }
        return parts.joined(separator: "; ")
    }

    func describe(_ type: ObjectSchema) -> String {
        var s =
            (isElections ? Self.tableDescriptions[type.name] : nil) ?? "\(type.name) objects (\(schema.family) family)"
        let lists = type.properties.compactMap { p -> String? in
            if case .list(let target) = p.type {
                return "\(p.name) (\(target)) is in \(StorageLayout.listTable(type: type.name, property: p.name))"
            }
            return nil
        }
        if !lists.isEmpty { s += ". Lists: " + lists.joined(separator: "; ") + " (owner, position, target)" }
        return s + "."
    }

    /// The metadata as Datasette's JSON (keys in a fixed order, so the output is the same run after run).
    func json() -> String {
        var tables: [(String, String)] = []
        for name in Self.internalTables + linkTables { tables.append((name, JSONText.object([("hidden", "true")]))) }
        for t in schema.tableTypes {
            var pairs: [(String, String)] = [("description", JSONText.string(describe(t)))]
            if let label = labelColumn(of: t) { pairs.append(("label_column", JSONText.string(label))) }
            let columns = t.storedProperties.map { p in (p.name, JSONText.string(describe(p, of: t))) }
                .filter { $0.1 != "\"\"" }
            if !columns.isEmpty { pairs.append(("columns", JSONText.object(columns))) }
            tables.append((t.name, JSONText.object(pairs)))
        }
        // The family's views (Datasette lists them apart, and their descriptions come from the descriptor).
        for v in schema.views {
            let columns = v.columns.map { c in
                (c.name, JSONText.string(c.unit.map { "\(c.columnDescription) (\($0))" } ?? c.columnDescription))
            }
            var pairs: [(String, String)] = [("description", JSONText.string(v.viewDescription))]
            if !columns.isEmpty { pairs.append(("columns", JSONText.object(columns))) }
            tables.append((v.name, JSONText.object(pairs)))
        }
        let database = JSONText.object([
            (
                "description",
                JSONText.string("\(programName) file: \(schema.family) family, schema version \(schema.version)")
            ),
            ("tables", JSONText.object(tables)),
        ])
        let source: [(String, String)] =
            isElections
            ? [
                ("source", JSONText.string("TSE open data (dadosabertos.tse.jus.br), loaded by \(tool)")),
                ("source_url", JSONText.string("https://dadosabertos.tse.jus.br/")),
            ] : []
        return JSONText.object(
            [("title", JSONText.string("\(programName): \(databaseName)"))] + source + [
                ("databases", JSONText.object([(databaseName, database)]))
            ])
    }

    static let tableDescriptions: [String: String] = [
        "Election":
            "One election: year, round and description (ANO_ELEICAO/NR_TURNO/DS_ELEICAO), CD_ELEICAO beside it; each round is an election of its own",
        "Candidate":
            "One candidacy: one election + SG_UE + SQ_CANDIDATO (a second round is another row); the view candidacies names its columns as TSE does",
        "Party": "A party in one year (year/NR_PARTIDO), with the acronym and name it had that year",
        "Coalition": "A coalition or federation in one year and unit (year/SG_UE/SQ_COLIGACAO)",
        "Good":
            "One declared good (bem_candidato) of one candidacy (its candidacy column links it); the view goods gives its value in reais",
        "GoodType":
            "A kind of good in one year (year/CD_TIPO_BEM_CANDIDATO), with the description that year's files give it",
    ]

    /// Where the elections family's columns come from in TSE's files.
    static let tseColumns: [String: String] = [
        "Election.code": "CD_ELEICAO", "Election.year": "ANO_ELEICAO",
        "Election.round": "NR_TURNO", "Election.electionDescription": "DS_ELEICAO", "Election.kind": "NM_TIPO_ELEICAO",
        "Election.date": "DT_ELEICAO", "Candidate.sequence": "SQ_CANDIDATO", "Candidate.number": "NR_CANDIDATO",
        "Candidate.nickname": "NM_URNA_CANDIDATO", "Candidate.name": "NM_CANDIDATO",
        "Candidate.socialName": "NM_SOCIAL_CANDIDATO", "Candidate.post": "DS_CARGO", "Candidate.postCode": "CD_CARGO",
        "Candidate.state": "SG_UF", "Candidate.unit": "SG_UE", "Candidate.unitName": "NM_UE",
        "Candidate.birthdate": "DT_NASCIMENTO", "Candidate.sex": "DS_GENERO", "Candidate.colorRace": "DS_COR_RACA",
        "Candidate.maritalStatus": "DS_ESTADO_CIVIL", "Candidate.nationality": "DS_NACIONALIDADE",
        "Candidate.birthState": "SG_UF_NASCIMENTO", "Candidate.birthCity": "NM_MUNICIPIO_NASCIMENTO",
        "Candidate.literacy": "DS_GRAU_INSTRUCAO", "Candidate.occupation": "DS_OCUPACAO",
        "Candidate.party": "NR_PARTIDO", "Candidate.coalition": "SQ_COLIGACAO",
        "Candidate.processNumber": "NR_PROCESSO", "Candidate.protocolNumber": "NR_PROTOCOLO_CANDIDATURA",
        "Candidate.spendingLimitFirstRound": "VR_DESPESA_MAX_CAMPANHA",
        "Candidate.email": "DS_EMAIL", "Candidate.cpf": "NR_CPF_CANDIDATO",
        "Candidate.voterId": "NR_TITULO_ELEITORAL_CANDIDATO",
        "Candidate.status": "DS_SITUACAO_CANDIDATURA", "Candidate.result": "DS_SIT_TOT_TURNO",
        "Party.number": "NR_PARTIDO", "Party.acronym": "SG_PARTIDO",
        "Party.name": "NM_PARTIDO",
        "Coalition.sequence": "SQ_COLIGACAO", "Coalition.name": "NM_COLIGACAO",
        "Coalition.composition": "DS_COMPOSICAO_COLIGACAO",
        "Coalition.kind": "TP_AGREMIACAO", "Good.order": "NR_ORDEM_CANDIDATO",
        "Good.goodDescription": "DS_BEM_CANDIDATO",
        "Good.type": "CD_TIPO_BEM_CANDIDATO", "Good.value": "VR_BEM_CANDIDATO",
        "Good.updatedAt": "DT_ULTIMA_ATUALIZACAO", "GoodType.year": "ANO_ELEICAO",
        "GoodType.code": "CD_TIPO_BEM_CANDIDATO",
        "GoodType.typedescription": "DS_TIPO_BEM_CANDIDATO",
    ]
}
