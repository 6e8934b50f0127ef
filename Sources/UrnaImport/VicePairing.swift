/// Who is whose vice. No TSE column ties a vice to the head of the ticket, so they are paired by the
/// rules of ../tse: same election, same SG_UE, same NR_CANDIDATO, and offices 1 -> 2 (president),
/// 3 -> 4 (governor), 11 -> 12 (mayor). Senators' alternates (9, 10) are not vices and stay unlinked.
///
/// Substitutions can leave two heads or two vices on one ticket number. Each head then gets, among
/// the vices not yet taken, one of the same standing (a valid head a valid vice: APTO / DEFERIDO;
/// a withdrawn head the vice withdrawn with them), the nearer SQ_CANDIDATO breaking ties, since a
/// ticket is registered together. A head left over shares the ticket's best vice, so every head on
/// a number that has a vice is linked (this is how the counts in ../tse are made).
///
/// ```swift
/// let heads = [VicePairing.Member(index: 0, sequence: 10, valid: true)]
/// let vices = [VicePairing.Member(index: 7, sequence: 11, valid: true)]
/// VicePairing.pair(heads: heads, vices: vices)  // [0: 7]
/// ```
public enum VicePairing {
    /// A candidacy on one ticket number, as the pairing sees it.
    public struct Member: Sendable, Equatable {
        /// The caller's handle for the candidacy.
        public var index: Int
        public var sequence: Int64
        /// Registration valid (APTO / DEFERIDO...).
        public var valid: Bool

        public init(index: Int, sequence: Int64, valid: Bool) {
            self.index = index
            self.sequence = sequence
            self.valid = valid
        }
    }

    /// The vice office paired with a head-of-ticket office, or nil.
    public static func viceOffice(ofHead postCode: Int64) -> Int64? {
        switch postCode {
        case 1: 2
        case 3: 4
        case 11: 12
        default: nil
        }
    }

    /// The head-of-ticket office of a vice office, or nil.
    public static func headOffice(ofVice postCode: Int64) -> Int64? {
        switch postCode {
        case 2: 1
        case 4: 3
        case 12: 11
        default: nil
        }
    }

    /// Whether a registration status (DS_SITUACAO_CANDIDATURA) counts as valid.
    public static func isValidStatus(_ status: String?) -> Bool {
        guard let s = status?.uppercased() else { return false }
        return s.hasPrefix("APTO") || s.hasPrefix("DEFERIDO")
    }

    /// Head index -> vice index for the members of one ticket number (same election, unit, number).
    public static func pair(heads: [Member], vices: [Member]) -> [Int: Int] {
        guard !heads.isEmpty, !vices.isEmpty else { return [:] }
        var result: [Int: Int] = [:]
        var available = vices
        let ordered = heads.sorted { ($0.valid ? 0 : 1, $0.sequence) < ($1.valid ? 0 : 1, $1.sequence) }
        func distance(_ a: Member, _ b: Member) -> Int64 {
            a.sequence >= b.sequence ? a.sequence &- b.sequence : b.sequence &- a.sequence
        }
        for head in ordered {
            if let best = available.indices.min(by: {
                let a = available[$0]
                let b = available[$1]
                return (a.valid == head.valid ? 0 : 1, a.valid ? 0 : 1, distance(a, head))
                    < (b.valid == head.valid ? 0 : 1, b.valid ? 0 : 1, distance(b, head))
            }) {
                result[head.index] = available[best].index
                available.remove(at: best)
            } else if let shared = vices.min(by: {
                ($0.valid ? 0 : 1, distance($0, head)) < ($1.valid ? 0 : 1, distance($1, head))
            }) {
                result[head.index] = shared.index
            }
        }
        return result
    }
}
