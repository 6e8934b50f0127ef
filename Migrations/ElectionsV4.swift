import Foundation
import UrnaStore

/// The `elections` family at its latest version (4): what the importers write.
///
/// Identity holds in every year and generation (see ../tse facts):
/// - an election is `year/round/DESCRIPTION` (DS_ELEICAO upper-cased, accents folded), whether the file
///   names it by CD_ELEICAO (re-released) or not (originals): both generations meet on one Election;
/// - a candidacy is `<election id>/<SG_UE>/<SQ_CANDIDATO>`: SQ_CANDIDATO restarts in every municipality
///   in 2004 and earlier, and the unit makes it unique in every year;
/// - a party is `<year>/<NR_PARTIDO>`: its acronym and name are those of its own election year;
/// - a coalition is `<year>/<SG_UE>/<SQ_COLIGACAO>` (CODIGO_LEGENDA restarts per municipality too);
/// - a good is `<candidate id>/<NR_ORDEM_CANDIDATO>` and links its candidacy directly.
///
/// Every stored object records `generatedAt`, the DT_GERACAO + HH_GERACAO of the newest file generation it
/// took values from: an older generation never overwrites a newer one, and a null never erases a value.
/// Candidate columns the model does not name otherwise are kept typed under their TSE names
/// (`sourceColumns`), so an export gives every source column back.
public enum ElectionsV4 {
    public static let version = 4

    /// How a TSE column the model keeps under its own name is typed.
    public enum SourceColumnType: Sendable {
        /// A whole number (codes, ages, sequence numbers).
        case integer
        /// Text as published (descriptions, flags, codes whose leading zeros matter).
        case text
        /// A date or timestamp, stored as the store's ISO text.
        case date
    }

    /// TSE candidacy columns kept as Candidate properties of the same name: every column of every
    /// consulta_cand layout that no other property holds.
    public static let sourceColumns: [(name: String, type: SourceColumnType)] = [
        ("CD_SITUACAO_CANDIDATURA", .integer), ("CD_DETALHE_SITUACAO_CAND", .integer),
        ("DS_DETALHE_SITUACAO_CAND", .text), ("NR_FEDERACAO", .integer), ("NM_FEDERACAO", .text),
        ("SG_FEDERACAO", .text), ("DS_COMPOSICAO_FEDERACAO", .text), ("SG_COLIGACAO", .text),
        ("CD_NACIONALIDADE", .integer), ("CD_MUNICIPIO_NASCIMENTO", .integer), ("NR_IDADE_DATA_POSSE", .integer),
        ("NR_IDADE_DATA_ELEICAO", .integer), ("CD_GENERO", .integer), ("CD_GRAU_INSTRUCAO", .integer),
        ("CD_ESTADO_CIVIL", .integer), ("CD_COR_RACA", .text), ("CD_OCUPACAO", .integer),
        ("CD_SIT_TOT_TURNO", .integer), ("ST_REELEICAO", .text), ("ST_DECLARAR_BENS", .text),
        ("CD_SITUACAO_CANDIDATO_PLEITO", .integer), ("DS_SITUACAO_CANDIDATO_PLEITO", .text),
        ("CD_SITUACAO_CANDIDATO_URNA", .integer), ("DS_SITUACAO_CANDIDATO_URNA", .text),
        ("ST_CANDIDATO_INSERIDO_URNA", .text), ("NM_TIPO_DESTINACAO_VOTOS", .text),
        ("CD_SITUACAO_CANDIDATO_TOT", .integer), ("DS_SITUACAO_CANDIDATO_TOT", .text), ("ST_PREST_CONTAS", .text),
        ("ST_SUBSTITUIDO", .text), ("SQ_SUBSTITUIDO", .integer), ("SQ_ORDEM_SUPLENCIA", .integer),
        ("DT_ACEITE_CANDIDATURA", .date),
    ]

    /// An election's identity in every generation: `year/round/DESCRIPTION`, DS_ELEICAO upper-cased with
    /// accents folded and blanks collapsed ("Eleições Gerais 2014" and "ELEIÇÕES GERAIS 2014" meet).
    public static func electionKey(year: Int64, round: Int64, description: String) -> String {
        "\(year)/\(round)/\(foldedDescription(description))"
    }

    /// DS_ELEICAO as identity: upper case, no accents, single spaces.
    public static func foldedDescription(_ text: String) -> String {
        text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: Locale(identifier: "en_US_POSIX"))
            .uppercased().split(whereSeparator: { $0 == " " || $0 == "\u{A0}" || $0 == "\t" }).joined(separator: " ")
    }

    public static let election = ObjectSchema(
        "Election",
        [
            Property("id", .string, primaryKey: true),  // "year/round/DESCRIPTION"
            Property("code", .int64, optional: true),  // CD_ELEICAO (re-released files)
            Property("year", .int64, default: 0),
            Property("round", .int64, default: 1),
            Property("electionDescription", .string, default: ""),
            Property("kind", .string, optional: true),  // NM_TIPO_ELEICAO
            Property("kindCode", .int64, optional: true),  // CD_TIPO_ELEICAO
            Property("scope", .string, optional: true),  // TP_ABRANGENCIA
            Property("date", .date, optional: true),
            Property("generatedAt", .date, optional: true),
            Property("candidates", .linkingObjects(type: "Candidate", property: "election")),
        ])

    public static let candidate = ObjectSchema(
        "Candidate",
        [
            Property("id", .string, primaryKey: true),  // "<election id>/<SG_UE>/<SQ_CANDIDATO>"
            Property("sequence", .int64, default: 0, indexed: true),  // SQ_CANDIDATO (up to 12 digits)
            Property("election", .link("Election")),
            Property("round", .int64, default: 1),  // NR_TURNO, as its election's
            Property("number", .int64, optional: true),  // NR_CANDIDATO: the ticket number
            Property("nickname", .string, default: "", indexed: true),  // NM_URNA_CANDIDATO
            Property("name", .string, default: ""),  // NM_CANDIDATO
            Property("socialName", .string, optional: true),
            Property("post", .string, default: ""),  // DS_CARGO
            Property("postCode", .int64, default: 0, indexed: true),  // CD_CARGO
            Property("state", .string, default: ""),  // SG_UF
            Property("unit", .string, default: "", indexed: true),  // SG_UE (text: leading zeros matter)
            Property("unitName", .string, default: ""),  // NM_UE
            Property("birthdate", .date, optional: true),
            Property("sex", .string, default: ""),
            Property("colorRace", .string, default: ""),
            Property("maritalStatus", .string, default: ""),
            Property("nationality", .string, default: ""),
            Property("birthState", .string, optional: true),
            Property("birthCity", .string, optional: true),
            Property("literacy", .string, default: ""),
            Property("occupation", .string, default: ""),
            Property("party", .link("Party")),
            Property("coalition", .link("Coalition")),
            Property("processNumber", .string, default: ""),
            Property("protocolNumber", .string, default: ""),
            Property("spendingLimitFirstRound", .decimal(scale: 2), optional: true),
            Property("spendingLimitSecondRound", .decimal(scale: 2), optional: true),
            Property("image", .string, default: ""),
            Property("site", .string, optional: true),
            Property("email", .string, optional: true),
            Property("cpf", .string, optional: true),
            Property("voterId", .string, optional: true),
            Property("status", .string, optional: true),  // DS_SITUACAO_CANDIDATURA
            Property("result", .string, optional: true),  // DS_SIT_TOT_TURNO
            Property("generatedAt", .date, optional: true),  // DT_GERACAO + HH_GERACAO of the newest generation
            Property("vice", .link("Candidate")),
            Property("goods", .list("Good")),
            Property("holder", .linkingObjects(type: "Candidate", property: "vice")),
        ]
            + sourceColumns.map { column in
                switch column.type {
                case .integer: Property(column.name, .int64, optional: true)
                case .text: Property(column.name, .string, optional: true)
                case .date: Property(column.name, .date, optional: true)
                }
            })

    public static let party = ObjectSchema(
        "Party",
        [
            Property("id", .string, primaryKey: true),  // "<year>/<NR_PARTIDO>"
            Property("year", .int64, default: 0),
            Property("number", .int64, default: 0),
            Property("acronym", .string, default: "", indexed: true),
            Property("name", .string, default: ""),
            Property("president", .string, default: ""),
            Property("generatedAt", .date, optional: true),
            Property("candidates", .linkingObjects(type: "Candidate", property: "party")),
            Property("coalition", .linkingObjects(type: "Coalition", property: "parties")),
        ])

    public static let coalition = ObjectSchema(
        "Coalition",
        [
            Property("id", .string, primaryKey: true),  // "<year>/<SG_UE>/<SQ_COLIGACAO>"
            Property("year", .int64, default: 0),
            Property("unit", .string, default: ""),  // SG_UE
            Property("sequence", .int64, default: 0, indexed: true),  // SQ_COLIGACAO
            Property("name", .string, default: ""),
            Property("composition", .string, optional: true),  // DS_COMPOSICAO_COLIGACAO as published
            Property("kind", .string, optional: true),  // TP_AGREMIACAO
            Property("generatedAt", .date, optional: true),
            Property("parties", .list("Party")),
            Property("candidates", .linkingObjects(type: "Candidate", property: "coalition")),
        ])

    public static let good = ObjectSchema(
        "Good",
        [
            Property("id", .string, primaryKey: true),  // "<candidate id>/<NR_ORDEM_CANDIDATO>"
            Property("candidacy", .link("Candidate")),  // the candidacy that declared it
            Property("order", .int64, default: 0),
            Property("goodDescription", .string, default: ""),
            Property("type", .link("GoodType")),
            Property("value", .decimal(scale: 2), optional: true),
            Property("updatedAt", .date, optional: true),
            Property("generatedAt", .date, optional: true),
            Property("candidate", .linkingObjects(type: "Candidate", property: "goods")),
        ])

    public static let goodType = ObjectSchema(
        "GoodType",
        [
            Property("id", .int64, primaryKey: true),  // CD_TIPO_BEM_CANDIDATO
            Property("typedescription", .string, default: ""),
            Property("generatedAt", .date, optional: true),
            Property("goods", .linkingObjects(type: "Good", property: "type")),
        ])

    /// The validated schema.
    public static let schema: Schema = {
        do {
            return try Schema(
                family: "elections", version: version, types: [election, candidate, party, coalition, good, goodType])
        } catch {
            preconditionFailure("ElectionsV4 is invalid: \(error)")
        }
    }()
}
