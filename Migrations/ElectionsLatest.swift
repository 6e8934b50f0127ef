import UrnaStore

/// The `elections` family at its latest version (3): what the importers write.
///
/// It keeps seed 000's type names (Candidate, Party, Coalition, Good, GoodType) and the names of the
/// properties it kept, so a query written for the seed's app still reads a file of this version.
/// Identity follows ../tse facts: a candidacy is one election + SQ_CANDIDATO (`id` = "CD_ELEICAO/SQ_CANDIDATO"),
/// a good is one candidacy + NR_ORDEM_CANDIDATO (`id` = "<candidate id>/<order>"), a party is its number.
public enum ElectionsV3 {
    public static let version = 3

    public static let election = ObjectSchema("Election", [
        Property("id", .string, primaryKey: true),  // CD_ELEICAO, or "year/round/description" for header-less originals
        Property("code", .int64, optional: true),  // CD_ELEICAO
        Property("year", .int64, default: 0),
        Property("round", .int64, default: 1),
        Property("electionDescription", .string, default: ""),
        Property("kind", .string, optional: true),  // NM_TIPO_ELEICAO
        Property("date", .date, optional: true),
        Property("candidates", .linkingObjects(type: "Candidate", property: "election")),
    ])

    public static let candidate = ObjectSchema("Candidate", [
        Property("id", .string, primaryKey: true),  // "<election id>/<SQ_CANDIDATO>"
        Property("sequence", .int64, default: 0, indexed: true),  // SQ_CANDIDATO (up to 12 digits)
        Property("election", .link("Election")),
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
        Property("vice", .link("Candidate")),
        Property("goods", .list("Good")),
        Property("holder", .linkingObjects(type: "Candidate", property: "vice")),
    ])

    public static let party = ObjectSchema("Party", [
        Property("id", .int64, primaryKey: true),  // = number
        Property("number", .int64, default: 0),
        Property("acronym", .string, default: "", indexed: true),
        Property("name", .string, default: ""),
        Property("president", .string, default: ""),
        Property("candidates", .linkingObjects(type: "Candidate", property: "party")),
        Property("coalition", .linkingObjects(type: "Coalition", property: "parties")),
    ])

    public static let coalition = ObjectSchema("Coalition", [
        Property("id", .int64, primaryKey: true),  // SQ_COLIGACAO
        Property("name", .string, default: ""),
        Property("composition", .string, optional: true),  // DS_COMPOSICAO_COLIGACAO as published
        Property("kind", .string, optional: true),  // TP_AGREMIACAO
        Property("parties", .list("Party")),
        Property("candidates", .linkingObjects(type: "Candidate", property: "coalition")),
    ])

    public static let good = ObjectSchema("Good", [
        Property("id", .string, primaryKey: true),  // "<candidate id>/<NR_ORDEM_CANDIDATO>"
        Property("order", .int64, default: 0),
        Property("goodDescription", .string, default: ""),
        Property("type", .link("GoodType")),
        Property("value", .decimal(scale: 2), default: 0),
        Property("updatedAt", .date, optional: true),
        Property("candidate", .linkingObjects(type: "Candidate", property: "goods")),
    ])

    public static let goodType = ObjectSchema("GoodType", [
        Property("id", .int64, primaryKey: true),  // CD_TIPO_BEM_CANDIDATO
        Property("typedescription", .string, default: ""),
        Property("goods", .linkingObjects(type: "Good", property: "type")),
    ])

    /// The validated schema.
    public static let schema: Schema = {
        do {
            return try Schema(family: "elections", version: version, types: [election, candidate, party, coalition, good, goodType])
        } catch {
            preconditionFailure("ElectionsV3 is invalid: \(error)")
        }
    }()
}
