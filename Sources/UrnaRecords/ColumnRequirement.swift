/// One column a kind of TSE file must have, possibly satisfied in more than one way.
///
/// ```swift
/// // An election is named by CD_ELEICAO, or in the originals by year + round + description.
/// let election = ColumnRequirement(["CD_ELEICAO"], ["ANO_ELEICAO", "NR_TURNO", "DS_ELEICAO"])
/// election.description  // "CD_ELEICAO or ANO_ELEICAO+NR_TURNO+DS_ELEICAO"
/// ```
public struct ColumnRequirement: Sendable, Equatable, CustomStringConvertible {
    /// Each alternative is a set of canonical column names that together satisfy the requirement.
    public let alternatives: [[String]]

    /// A requirement met by any one of `alternatives`.
    public init(_ alternatives: [String]...) {
        self.alternatives = alternatives
    }

    /// True when some alternative's columns are all present.
    public func isSatisfied(by columns: Set<String>) -> Bool {
        alternatives.contains { $0.allSatisfy(columns.contains) }
    }

    /// The alternatives, `+` inside one and `or` between them.
    public var description: String {
        alternatives.map { $0.joined(separator: "+") }.joined(separator: " or ")
    }
}
