import UrnaStore

/// `elections` version 1: seed 000's iElections model exactly as the seed writes it (Realm classes
/// Candidate, Coalition, Party, Good, GoodType): Int16 ids, `naturalness` as one string
/// ("MG-BOA ESPERANÇA"), the post and its place in one string ("Prefeito - BELO HORIZONTE/MG"),
/// money as Double, no election. An old app's file looks like this.
public enum ElectionsV1 {
    public static let version = 1

    public static let candidate = ObjectSchema(
        "Candidate",
        [
            Property("id", .int16, primaryKey: true),
            Property("nickname", .string, default: "", indexed: true),
            Property("name", .string, default: ""),
            Property("post", .string, default: ""),
            Property("birthdate", .date, default: "1970-01-01T00:00:00.000Z"),  // NSDate(timeIntervalSince1970: 0)
            Property("sex", .string, default: ""),
            Property("colorRace", .string, default: ""),
            Property("maritalStatus", .string, default: ""),
            Property("nationality", .string, default: ""),
            Property("naturalness", .string, default: ""),
            Property("literacy", .string, default: ""),
            Property("occupation", .string, default: ""),
            Property("party", .link("Party")),
            Property("coalition", .link("Coalition")),
            Property("processNumber", .string, default: ""),
            Property("protocolNumber", .string, default: ""),
            Property("spendingLimitFirstRound", .double, default: 0.0),
            Property("spendingLimitSecondRound", .double, default: 0.0),
            Property("image", .string, default: ""),
            Property("site", .string, optional: true),
            Property("vice", .link("Candidate")),
            Property("goods", .list("Good")),
            Property("holder", .linkingObjects(type: "Candidate", property: "vice")),
        ])

    public static let coalition = ObjectSchema(
        "Coalition",
        [
            Property("id", .int16, primaryKey: true),
            Property("name", .string, default: ""),
            Property("parties", .list("Party")),
            Property("candidates", .linkingObjects(type: "Candidate", property: "coalition")),
        ])

    public static let party = ObjectSchema(
        "Party",
        [
            Property("id", .int16, primaryKey: true),
            Property("number", .int16, default: 0),
            Property("acronym", .string, default: ""),
            Property("name", .string, default: ""),
            Property("president", .string, default: ""),
            Property("candidates", .linkingObjects(type: "Candidate", property: "party")),
            Property("coalition", .linkingObjects(type: "Coalition", property: "parties")),
        ])

    public static let good = ObjectSchema(
        "Good",
        [
            Property("id", .int16, primaryKey: true),
            Property("goodDescription", .string, default: ""),
            Property("type", .link("GoodType")),
            Property("value", .double, default: 0),
            Property("candidate", .linkingObjects(type: "Candidate", property: "goods")),
        ])

    public static let goodType = ObjectSchema(
        "GoodType",
        [
            Property("id", .int16, primaryKey: true),
            Property("typedescription", .string, default: ""),
            Property("goods", .linkingObjects(type: "Good", property: "type")),
        ])

    public static let schema: Schema = {
        do {
            return try Schema(
                family: "elections", version: version, types: [candidate, coalition, party, good, goodType])
        } catch {
            preconditionFailure("ElectionsV1 is invalid: \(error)")
        }
    }()
}
