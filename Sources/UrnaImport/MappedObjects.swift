import UrnaRecords
import UrnaSchemas
import UrnaStore

/// What one TSE record means as election objects, before anything is written.
///
/// Values are already cleaned (nulls as nil, dates as the store's ISO text, money in cents); keys are
/// the ones the `ElectionsV4` comments define.
public enum MappedRecord: Sendable {
    /// A consulta_cand row: one candidacy, its election, party and coalition.
    case candidacy(CandidacyObjects)
    /// A bem_candidato row: one declared good and its type.
    case asset(AssetObjects)
    /// A consulta_legendas / consulta_coligacao row: one party inside one coalition.
    case coalitionMember(CoalitionMemberObjects)
}

// The three payloads are classes: a candidacy holds some forty strings, and the importer hands
// each one from its reading thread to its writing thread; a class moves as one reference.

/// The objects a candidacy row implies.
public final class CandidacyObjects: Sendable {
    public let election: ElectionValues
    public let candidate: CandidateValues
    public let party: PartyValues?
    public let coalition: CoalitionValues?
    /// Fields nulled because they could not be read.
    public let warnings: [FieldWarning]

    public init(
        election: ElectionValues, candidate: CandidateValues, party: PartyValues?, coalition: CoalitionValues?,
        warnings: [FieldWarning] = []
    ) {
        self.election = election
        self.candidate = candidate
        self.party = party
        self.coalition = coalition
        self.warnings = warnings
    }
}

/// The objects an asset row implies; the candidacy it belongs to is `good.candidateID`.
public final class AssetObjects: Sendable {
    public let good: GoodValues
    public let goodType: GoodTypeValues?
    /// The first-round election the row names by year and DS_ELEICAO, with what the row says of it (CD_ELEICAO,
    /// its kind and date) and no generation: an attached good fills only what the election does not know.
    public let election: ElectionValues?
    /// Fields nulled because they could not be read.
    public let warnings: [FieldWarning]

    public init(
        good: GoodValues, goodType: GoodTypeValues?, election: ElectionValues? = nil, warnings: [FieldWarning] = []
    ) {
        self.good = good
        self.goodType = goodType
        self.election = election
        self.warnings = warnings
    }
}

/// A legend row: a coalition and one of its parties.
public final class CoalitionMemberObjects: Sendable {
    public let coalition: CoalitionValues
    public let party: PartyValues?
    /// Fields nulled because they could not be read.
    public let warnings: [FieldWarning]

    public init(coalition: CoalitionValues, party: PartyValues?, warnings: [FieldWarning] = []) {
        self.coalition = coalition
        self.party = party
        self.warnings = warnings
    }
}

/// A field the mapper could not read: the row is kept and this field is null. Written to the rejects
/// file as a warning (file, line, column, reason, original text) and counted as a field nulled.
public struct FieldWarning: Sendable, Equatable {
    /// File, line and the column (field number) at fault.
    public var location: SourceLocation
    /// What is wrong and what would fix it.
    public var reason: String
    /// The field's text as read.
    public var original: String
    /// True when the field was left empty; false when its value was read back in its TSE form (an SG_UE whose
    /// leading zeros a spreadsheet dropped).
    public var nulled = true
}

/// An `Election`: `id` is `year/round/DESCRIPTION` in every generation (see `ElectionsV4`).
public struct ElectionValues: Equatable, Sendable, Codable {
    /// `year/round/DESCRIPTION` (DS_ELEICAO upper-cased, accents folded, spaces collapsed).
    public var id: String
    /// CD_ELEICAO, when the layout has it.
    public var code: Int64?
    /// ANO_ELEICAO.
    public var year: Int64
    /// NR_TURNO (1 when the layout has none).
    public var round: Int64
    /// DS_ELEICAO as published.
    public var electionDescription: String
    /// NM_TIPO_ELEICAO.
    public var kind: String?
    /// CD_TIPO_ELEICAO.
    public var kindCode: Int64? = nil
    /// TP_ABRANGENCIA.
    public var scope: String? = nil
    /// DT_ELEICAO as ISO text, as the store keeps dates.
    public var date: String?
    /// DT_GERACAO + HH_GERACAO of the row's file, as ISO text.
    public var generatedAt: String? = nil
}

/// A `Party` as it was in one election year, keyed `<year>/<number>`.
public struct PartyValues: Equatable, Sendable {
    /// `<year>/<NR_PARTIDO>`.
    public var id: String
    /// ANO_ELEICAO.
    public var year: Int64
    /// NR_PARTIDO.
    public var number: Int64
    /// SG_PARTIDO ("" when unknown).
    public var acronym: String
    /// NM_PARTIDO ("" when unknown).
    public var name: String
    /// DT_GERACAO + HH_GERACAO.
    public var generatedAt: String? = nil
}

/// A `Coalition`, keyed `<year>/<SG_UE>/<SQ_COLIGACAO>`; `composition` is the published text.
public struct CoalitionValues: Equatable, Sendable {
    /// `<year>/<SG_UE>/<SQ_COLIGACAO>`.
    public var id: String
    /// ANO_ELEICAO.
    public var year: Int64
    /// SG_UE of the coalition's unit.
    public var unit: String
    /// SQ_COLIGACAO (CODIGO_LEGENDA / SEQUENCIAL_COLIGACAO in originals).
    public var sequence: Int64
    /// NM_COLIGACAO ("" when unknown).
    public var name: String
    /// DS_COMPOSICAO_COLIGACAO as published (see `CoalitionComposition`).
    public var composition: String?
    /// TP_AGREMIACAO (COLIGAÇÃO, PARTIDO ISOLADO, FEDERAÇÃO).
    public var kind: String?
    /// DT_GERACAO + HH_GERACAO.
    public var generatedAt: String? = nil
}

/// A `Candidate` (one candidacy); `id` is `<election id>/<SG_UE>/<SQ_CANDIDATO>`. The vice link is decided
/// later, once every candidacy is in. Properties are named as `ElectionsV4.candidate`'s; the TSE
/// column each comes from is in `ElectionMapper`.
public struct CandidateValues: Equatable, Sendable {
    public var id: String
    public var sequence: Int64
    public var electionID: String
    public var round: Int64 = 1
    public var number: Int64?
    public var nickname: String
    public var name: String
    public var socialName: String?
    public var post: String
    public var postCode: Int64
    public var state: String
    public var unit: String
    public var unitName: String
    public var birthdate: String?
    public var sex: String
    public var colorRace: String
    public var maritalStatus: String
    public var nationality: String
    public var birthState: String?
    public var birthCity: String?
    public var literacy: String
    public var occupation: String
    /// `<year>/<NR_PARTIDO>`.
    public var partyID: String?
    /// `<year>/<SG_UE>/<SQ_COLIGACAO>`.
    public var coalitionID: String?
    public var processNumber: String
    public var protocolNumber: String
    public var spendingLimitFirstRound: Int64?
    public var spendingLimitSecondRound: Int64?
    /// Personal data: nil unless the mapper keeps it.
    public var email: String?
    public var cpf: String?
    public var voterId: String?
    public var status: String?
    public var result: String?
    /// DT_GERACAO + HH_GERACAO.
    public var generatedAt: String? = nil
    /// `ElectionsV4.sourceColumns`, in that order (`.null` when the layout lacks the column).
    public var sourceValues: [SQLValue] = []
}

/// A `Good`; `id` is `<candidate id>/<NR_ORDEM_CANDIDATO>`, value in cents.
public struct GoodValues: Equatable, Sendable, Codable {
    /// `<candidate id>/<order>`; for a layout without SG_UE it is settled when the candidacy is found.
    public var id: String
    /// The candidacy's id; for a layout without SG_UE (12-column originals) `<election id>/?/<SQ_CANDIDATO>`
    /// until the writer finds the one candidacy of that election with that SQ_CANDIDATO.
    public var candidateID: String
    /// NR_ORDEM_CANDIDATO, or 1, 2, 3... per candidacy in files without it.
    public var order: Int64
    /// DS_BEM_CANDIDATO ("" when a null marker).
    public var goodDescription: String
    /// CD_TIPO_BEM_CANDIDATO.
    public var typeID: Int64?
    /// VR_BEM_CANDIDATO in cents (nil when a null marker or unreadable).
    public var valueCents: Int64?
    /// DT_ULTIMA_ATUALIZACAO + HH_ULTIMA_ATUALIZACAO as ISO text.
    public var updatedAt: String?
    /// DT_GERACAO + HH_GERACAO.
    public var generatedAt: String? = nil
    /// The election to look the candidacy up in, when the layout has no SG_UE (nil otherwise).
    public var lookupElectionID: String? = nil
    /// CD_ELEICAO, when the record names its election by nothing else (then the election is looked up).
    public var lookupElectionCode: Int64? = nil
    /// SG_UE, when the election must be looked up by `lookupElectionCode`.
    public var lookupUnit: String? = nil
    /// Whether the candidacy must be looked up before the good can be written.
    public var needsLookup: Bool { lookupElectionID != nil || lookupElectionCode != nil }
    /// SQ_CANDIDATO of the candidacy (for the look-up).
    public var sequence: Int64 = 0
    /// The `GoodType` it links to, `<year>/<CD_TIPO_BEM_CANDIDATO>` with its candidacy's election year (nil
    /// without a type code): set by the mapper when the row names its year, else when the candidacy is settled
    /// (`settlingType()`). Not in the JSON of goods kept aside, which stays as earlier versions wrote it.
    public var typeKey: String? = nil

    enum CodingKeys: String, CodingKey {
        case id, candidateID, order, goodDescription, typeID, valueCents, updatedAt, generatedAt, lookupElectionID
        case lookupElectionCode, lookupUnit, sequence
    }

    /// The year its type is described for: its candidacy's election's (the first part of `candidateID`), 0 when
    /// the key names none (not seen: every candidacy key starts with its election's year).
    var typeYear: Int64 { ElectionsV6.year(ofCandidacyKey: candidateID) ?? 0 }

    /// The good with `typeKey` set from its settled candidacy, when the mapper could not set it.
    func settlingType() -> GoodValues {
        guard typeKey == nil, let code = typeID else { return self }
        var good = self
        good.typeKey = ElectionsV6.goodTypeKey(year: typeYear, code: code)
        return good
    }
}

/// A `GoodType`: one CD_TIPO_BEM_CANDIDATO in one election year, keyed `<year>/<code>`.
public struct GoodTypeValues: Equatable, Sendable, Codable {
    /// ANO_ELEICAO of the goods it describes (their candidacy's election year); 0 until the mapper or the
    /// settled candidacy gives it.
    public var year: Int64 = 0
    /// CD_TIPO_BEM_CANDIDATO.
    public var code: Int64
    /// DS_TIPO_BEM_CANDIDATO (the seed's spelling of the property), as that year's files give it.
    public var typedescription: String
    /// DT_GERACAO + HH_GERACAO.
    public var generatedAt: String? = nil

    /// `<year>/<CD_TIPO_BEM_CANDIDATO>`.
    public var id: String { ElectionsV6.goodTypeKey(year: year, code: code) }

    // Goods kept aside keep the JSON earlier versions wrote ("id" is the code); the year comes with the candidacy.
    enum CodingKeys: String, CodingKey {
        case code = "id"
        case typedescription, generatedAt
    }
}

/// Why a record cannot become objects: where (file:line:column) and what would fix it.
public struct MappingProblem: Error, Sendable, CustomStringConvertible {
    /// File, line and the column (field number) at fault.
    public let location: SourceLocation
    /// What is wrong and what would fix it (never the field's value: it may be personal data).
    public let reason: String

    /// A problem at `location`.
    public init(location: SourceLocation, reason: String) {
        self.location = location
        self.reason = reason
    }

    /// `file:line:column: reason`.
    public var description: String { "\(location): \(reason)" }
}
