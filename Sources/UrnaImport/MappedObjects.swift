import UrnaRecords

/// What one TSE record means as election objects, before anything is written.
///
/// Values are already cleaned (nulls as nil, dates as the store's ISO text, money in cents); keys are
/// the ones the `ElectionsV3` comments define.
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

    public init(election: ElectionValues, candidate: CandidateValues, party: PartyValues?, coalition: CoalitionValues?)
    {
        self.election = election
        self.candidate = candidate
        self.party = party
        self.coalition = coalition
    }
}

/// The objects an asset row implies; the candidacy it belongs to is `good.candidateID`.
public final class AssetObjects: Sendable {
    public let good: GoodValues
    public let goodType: GoodTypeValues?

    public init(good: GoodValues, goodType: GoodTypeValues?) {
        self.good = good
        self.goodType = goodType
    }
}

/// A legend row: a coalition and one of its parties.
public final class CoalitionMemberObjects: Sendable {
    public let coalition: CoalitionValues
    public let party: PartyValues?

    public init(coalition: CoalitionValues, party: PartyValues?) {
        self.coalition = coalition
        self.party = party
    }
}

/// An `Election`: `id` is CD_ELEICAO, or `year/round/DESCRIPTION` for header-less originals.
public struct ElectionValues: Equatable, Sendable {
    /// CD_ELEICAO, or `year/round/DESCRIPTION` (description upper-cased) for header-less originals.
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
    /// DT_ELEICAO as ISO text, as the store keeps dates.
    public var date: String?
}

/// A `Party`, keyed by its number.
public struct PartyValues: Equatable, Sendable {
    /// NR_PARTIDO (also the Party's id).
    public var number: Int64
    /// SG_PARTIDO ("" when unknown).
    public var acronym: String
    /// NM_PARTIDO ("" when unknown).
    public var name: String
}

/// A `Coalition`, keyed by SQ_COLIGACAO; `composition` is the published text.
public struct CoalitionValues: Equatable, Sendable {
    /// SQ_COLIGACAO (CODIGO_LEGENDA / SEQUENCIAL_COLIGACAO in originals).
    public var id: Int64
    /// NM_COLIGACAO ("" when unknown).
    public var name: String
    /// DS_COMPOSICAO_COLIGACAO as published (see `CoalitionComposition`).
    public var composition: String?
    /// TP_AGREMIACAO (COLIGAÇÃO, PARTIDO ISOLADO, FEDERAÇÃO).
    public var kind: String?
}

/// A `Candidate` (one candidacy); `id` is `<election id>/<SQ_CANDIDATO>`. The vice link is decided
/// later, once every candidacy is in. Properties are named as `ElectionsV3.candidate`'s; the TSE
/// column each comes from is in `ElectionMapper`.
public struct CandidateValues: Equatable, Sendable {
    public var id: String
    public var sequence: Int64
    public var electionID: String
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
    public var partyNumber: Int64?
    public var coalitionID: Int64?
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
}

/// A `Good`; `id` is `<candidate id>/<NR_ORDEM_CANDIDATO>`, value in cents.
public struct GoodValues: Equatable, Sendable {
    /// `<candidate id>/<order>`.
    public var id: String
    /// The candidacy's id, `<election id>/<SQ_CANDIDATO>`.
    public var candidateID: String
    /// NR_ORDEM_CANDIDATO, or 1, 2, 3... per candidacy in files without it.
    public var order: Int64
    /// DS_BEM_CANDIDATO ("" when a null marker).
    public var goodDescription: String
    /// CD_TIPO_BEM_CANDIDATO.
    public var typeID: Int64?
    /// VR_BEM_CANDIDATO in cents (0 when a null marker).
    public var valueCents: Int64
    /// DT_ULTIMA_ATUALIZACAO + HH_ULTIMA_ATUALIZACAO as ISO text.
    public var updatedAt: String?
}

/// A `GoodType`, keyed by CD_TIPO_BEM_CANDIDATO.
public struct GoodTypeValues: Equatable, Sendable {
    /// CD_TIPO_BEM_CANDIDATO.
    public var id: Int64
    /// DS_TIPO_BEM_CANDIDATO (the seed's spelling of the property).
    public var typedescription: String
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
