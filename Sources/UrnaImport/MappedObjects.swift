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
    public var id: String
    public var code: Int64?
    public var year: Int64
    public var round: Int64
    public var electionDescription: String
    public var kind: String?
    /// ISO text, as the store keeps dates.
    public var date: String?
}

/// A `Party`, keyed by its number.
public struct PartyValues: Equatable, Sendable {
    public var number: Int64
    public var acronym: String
    public var name: String
}

/// A `Coalition`, keyed by SQ_COLIGACAO; `composition` is the published text.
public struct CoalitionValues: Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var composition: String?
    public var kind: String?
}

/// A `Candidate` (one candidacy); `id` is `<election id>/<SQ_CANDIDATO>`. The vice link is decided
/// later, once every candidacy is in.
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
    public var id: String
    public var candidateID: String
    public var order: Int64
    public var goodDescription: String
    public var typeID: Int64?
    public var valueCents: Int64
    public var updatedAt: String?
}

/// A `GoodType`, keyed by CD_TIPO_BEM_CANDIDATO.
public struct GoodTypeValues: Equatable, Sendable {
    public var id: Int64
    public var typedescription: String
}

/// Why a record cannot become objects: where (file:line:column) and what would fix it.
public struct MappingProblem: Error, Sendable, CustomStringConvertible {
    public let location: SourceLocation
    public let reason: String

    public init(location: SourceLocation, reason: String) {
        self.location = location
        self.reason = reason
    }

    public var description: String { "\(location): \(reason)" }
}
