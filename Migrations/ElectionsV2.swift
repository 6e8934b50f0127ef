import Foundation
import UrnaMigrator
import UrnaStore

/// `elections` version 2: identities that fit real TSE data.
///
/// - `Election` (new): CD_ELEICAO (or "year/round/description"), year, round, description.
/// - `Candidate` is a candidacy: `id` = "<election id>/<SQ_CANDIDATO>" (text; SQ_CANDIDATO has up to
///   12 digits, kept in `sequence`), linked to its `election`; the ticket `number` (NR_CANDIDATO);
///   the post split from its electoral unit: `post`, `postCode` (CD_CARGO), `state` (SG_UF),
///   `unit` (SG_UE, text), `unitName` (NM_UE).
/// - `Party.id` is the party number (NR_PARTIDO); ids that were Int16 are Int64.
/// - `Good.id` = "<candidate id>/<order>" with `order` = NR_ORDEM_CANDIDATO.
///
/// Type and property names of v1 are kept.
public enum ElectionsV2 {
    public static let version = 2

    public static let election = ObjectSchema(
        "Election",
        [
            Property("id", .string, primaryKey: true),
            Property("code", .int64, optional: true),
            Property("year", .int64, default: 0),
            Property("round", .int64, default: 1),
            Property("electionDescription", .string, default: ""),
            Property("candidates", .linkingObjects(type: "Candidate", property: "election")),
        ])

    public static let candidate = ObjectSchema(
        "Candidate",
        [
            Property("id", .string, primaryKey: true),
            Property("sequence", .int64, default: 0, indexed: true),
            Property("election", .link("Election")),
            Property("number", .int64, optional: true),
            Property("nickname", .string, default: "", indexed: true),
            Property("name", .string, default: ""),
            Property("post", .string, default: ""),
            Property("postCode", .int64, default: 0, indexed: true),
            Property("state", .string, default: ""),
            Property("unit", .string, default: "", indexed: true),
            Property("unitName", .string, default: ""),
            Property("birthdate", .date, default: "1970-01-01T00:00:00.000Z"),
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

    public static let party = ObjectSchema(
        "Party",
        [
            Property("id", .int64, primaryKey: true),
            Property("number", .int64, default: 0),
            Property("acronym", .string, default: ""),
            Property("name", .string, default: ""),
            Property("president", .string, default: ""),
            Property("candidates", .linkingObjects(type: "Candidate", property: "party")),
            Property("coalition", .linkingObjects(type: "Coalition", property: "parties")),
        ])

    public static let coalition = ObjectSchema(
        "Coalition",
        [
            Property("id", .int64, primaryKey: true),
            Property("name", .string, default: ""),
            Property("parties", .list("Party")),
            Property("candidates", .linkingObjects(type: "Candidate", property: "coalition")),
        ])

    public static let good = ObjectSchema(
        "Good",
        [
            Property("id", .string, primaryKey: true),
            Property("order", .int64, default: 0),
            Property("goodDescription", .string, default: ""),
            Property("type", .link("GoodType")),
            Property("value", .double, default: 0),
            Property("candidate", .linkingObjects(type: "Candidate", property: "goods")),
        ])

    public static let goodType = ObjectSchema(
        "GoodType",
        [
            Property("id", .int64, primaryKey: true),
            Property("typedescription", .string, default: ""),
            Property("goods", .linkingObjects(type: "Good", property: "type")),
        ])

    public static let schema: Schema = {
        do {
            return try Schema(
                family: "elections", version: version, types: [election, candidate, party, coalition, good, goodType])
        } catch {
            preconditionFailure("ElectionsV2 is invalid: \(error)")
        }
    }()

    /// v1 → v2. Parties are re-keyed by their number; every candidacy gets its election (created from
    /// the year in its process number) and its key "<election>/<SQ_CANDIDATO>" (the seed's `image`
    /// field holds SQ_CANDIDATO: TSE names candidate photos by it); the post text is split into
    /// post, unit name and state; goods are keyed by candidacy and their order in its list. Links
    /// and lists pointing at re-keyed objects follow by themselves.
    public static let step = MigrationStep(
        "elections and TSE identities: candidacy = election + SQ_CANDIDATO, party = number, good = candidacy + order"
    ) { migration in
        try migration.enumerateObjects(ofType: "Party") { old, new in
            new["id"] = old["number"]
        }
        try migration.enumerateObjects(ofType: "Candidate") { old, new in
            let post = PostText(old["post"].stringValue ?? "")
            let year = ElectionsText.year(ofProcess: old["processNumber"].stringValue ?? "")
            let election = try ElectionsV2.election(year: year, post: post.post, migration: migration)
            let oldKey = old["id"].intValue ?? 0
            let sequence = Int64(old["image"].stringValue ?? "") ?? oldKey
            new["id"] = .string("\(election.primaryKeyValue)/\(sequence)")
            new["sequence"] = .int(sequence)
            new["election"] = election.link
            new["post"] = .string(post.post)
            new["postCode"] = .int(ElectionsText.postCode(post.post) ?? 0)
            new["unitName"] = .string(post.unitName)
            new["state"] = .string(post.state)
            if ElectionsText.isMajoritarian(post.post), case .link(let party) = old["party"],
                let p = try migration.oldObject(ofType: "Party", forPrimaryKey: party.key)
            {
                new["number"] = p["number"]  // a majoritarian ticket runs under its party's number
            }
        }
        try migration.enumerateObjects(ofType: "Good") { old, new in
            guard case .list(let owners) = old["candidate"], let owner = owners.first,
                let ownerOld = try migration.oldObject(ofType: "Candidate", forPrimaryKey: owner.key),
                case .list(let goods) = ownerOld["goods"],
                let position = goods.firstIndex(where: { $0.key == old["id"] }),
                let ownerNew = try migration.newObject(for: ownerOld)
            else {
                new["id"] = .string("-/\(old["id"])")  // a good nobody declared keeps its old number
                return
            }
            new["order"] = .int(Int64(position + 1))
            new["id"] = .string("\(ownerNew["id"].stringValue ?? "")/\(position + 1)")
        }
    }

    /// The election a v1 candidacy belongs to (created the first time it is needed).
    static func election(year: Int?, post: String, migration: Migration) throws -> MigrationObject {
        let municipal = ElectionsText.isMunicipal(post)
        let description =
            year.map { municipal ? "Eleições Municipais \($0)" : "Eleições Gerais \($0)" } ?? "Eleição desconhecida"
        let code = year.flatMap { municipal ? ElectionsText.municipalFirstRoundCodes[$0] : nil }
        let id = code.map(String.init) ?? "\(year.map(String.init) ?? "0")/1/\(description)"
        if let existing = try migration.newObject(ofType: "Election", forPrimaryKey: .string(id)) { return existing }
        return try migration.create(
            "Election",
            value: [
                "id": .string(id), "code": code.map { .int($0) } ?? .null, "year": .int(Int64(year ?? 0)), "round": 1,
                "electionDescription": .string(description),
            ])
    }
}

/// The seed's post text: "Prefeito - BELO HORIZONTE/MG" → post, unit name, state.
struct PostText {
    let post: String
    let unitName: String
    let state: String

    init(_ text: String) {
        let parts = text.components(separatedBy: " - ")
        post = parts[0].trimmingCharacters(in: .whitespaces)
        let place = parts.count > 1 ? parts[1...].joined(separator: " - ") : ""
        if let slash = place.lastIndex(of: "/"), place.distance(from: slash, to: place.endIndex) == 3 {
            unitName = String(place[..<slash]).trimmingCharacters(in: .whitespaces)
            state = String(place[place.index(after: slash)...])
        } else {
            unitName = place.trimmingCharacters(in: .whitespaces)
            state = ""
        }
    }
}

/// TSE facts the elections steps use.
enum ElectionsText {
    /// CD_ELEICAO of the first round of municipal elections, by year (TSE open data).
    static let municipalFirstRoundCodes: [Int: Int64] = [2016: 220, 2020: 426]
    /// DT_ELEICAO by CD_ELEICAO.
    static let electionDates: [Int64: String] = [220: "2016-10-02", 426: "2020-11-15"]

    /// CD_CARGO by DS_CARGO (case and accents as the seed or TSE write them).
    static func postCode(_ post: String) -> Int64? {
        let codes: [String: Int64] = [
            "presidente": 1, "vice-presidente": 2, "governador": 3, "vice-governador": 4, "senador": 5,
            "deputado federal": 6, "deputado estadual": 7, "deputado distrital": 8, "1º suplente": 9, "2º suplente": 10,
            "prefeito": 11, "vice-prefeito": 12, "vereador": 13,
        ]
        return codes[post.lowercased()]
    }

    /// Majoritarian posts run under the party's number (NR_CANDIDATO = NR_PARTIDO).
    static func isMajoritarian(_ post: String) -> Bool {
        guard let code = postCode(post) else { return false }
        return [1, 2, 3, 4, 11, 12].contains(code)
    }

    static func isMunicipal(_ post: String) -> Bool {
        guard let code = postCode(post) else { return false }
        return code >= 11
    }

    /// The year in a CNJ process number "NNNNNNN-DD.AAAA.J.TR.OOOO" ("1458-37.2016.6.13.0029" → 2016).
    static func year(ofProcess text: String) -> Int? {
        let parts = text.split(separator: ".")
        guard parts.count >= 2, parts[1].count == 4, let y = Int(parts[1]) else { return nil }
        return y
    }

    /// "MG-BOA ESPERANÇA" → ("MG", "BOA ESPERANÇA"); a text without a state gives (nil, text).
    static func naturalness(_ text: String) -> (state: String?, city: String?) {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.isEmpty { return (nil, nil) }
        let u = Array(t.unicodeScalars)
        if u.count > 3, u[2] == "-", u[0].properties.isUppercase, u[1].properties.isUppercase {
            let city = String(String.UnicodeScalarView(u[3...])).trimmingCharacters(in: .whitespaces)
            return (String(String.UnicodeScalarView(u[0..<2])), city.isEmpty ? nil : city)
        }
        return (nil, t)
    }

    /// Money held as Double (v1, v2) as exact cents: the shortest decimal text that reads back as the
    /// Double (26697376.47, not 26697376.469999998). A value that is not a whole number of cents
    /// (123456.789, 0.005) or not a number at all (infinity) throws `MoneyNotInCents` naming the object: rounding
    /// it, or storing nil, would change the data without a word. Float noise (0.30000000000000004) is cents.
    static func cents(_ v: Value, of object: MigrationObject, _ property: String) throws -> Value {
        guard v != .null else { return .null }
        guard let d = v.doubleValue, d.isFinite,
            let exact = Decimal(string: String(d), locale: Locale(identifier: "en_US_POSIX"))
        else { throw MoneyNotInCents(object: "\(object.typeName) \(object.primaryKeyValue)", property: property, value: "\(v)") }
        var value = exact
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 2, .bankers)
        let off = NSDecimalNumber(decimal: abs(exact - rounded)).doubleValue * 100
        guard off <= 0.001 else {
            throw MoneyNotInCents(object: "\(object.typeName) \(object.primaryKeyValue)", property: property, value: String(d))
        }
        return .decimal(rounded)
    }
}

/// A money value of a v1/v2 file that exact cents cannot hold as it is.
struct MoneyNotInCents: Error, CustomStringConvertible {
    let object: String
    let property: String
    let value: String

    var description: String {
        "\(object): \(property) is \(value), not a whole number of cents; exact cents would change it, so the upgrade "
            + "stops: correct the value in the file (urna sql --write), then migrate"
    }
}
