/// A coalition's published composition (`DS_COMPOSICAO_COLIGACAO`), split into parties and federations.
///
/// Members are separated by ` / ` (slash between spaces). A bare `/` joins the parties of one
/// federation, either alone (`PSDB/CIDADANIA`, as 2022 files write it) or inside a named federation's
/// parentheses (`Federação Brasil da Esperança - FE BRASIL(PT/PC do B/PV)`, as 2024 files do), so
/// splitting naively on `/` would lose which parties ran together. A composition written with bare
/// slashes only (`PSL/PMB`) reads as one group; its parties are the same either way.
///
/// ```swift
/// let c = CoalitionComposition("Federação Brasil da Esperança - FE BRASIL(PT/PC do B/PV) / PSB")
/// c.members       // [.federation(name: "Federação Brasil da Esperança - FE BRASIL", parties: ["PT", "PC do B", "PV"]), .party("PSB")]
/// c.partyAcronyms // ["PT", "PC do B", "PV", "PSB"]
/// ```
public struct CoalitionComposition: Equatable, Sendable {
    /// One member of a coalition.
    public enum Member: Equatable, Sendable {
        /// A party, by acronym as written.
        case party(String)
        /// A party federation (named, or named by its parties as `PSDB/CIDADANIA`) and its parties' acronyms.
        case federation(name: String, parties: [String])
    }

    /// Members in published order.
    public let members: [Member]

    /// Parses composition text (already cleaned of null markers).
    public init(_ text: String) {
        var members: [Member] = []
        for item in CoalitionComposition.splitMembers(text) {
            if let open = item.firstIndex(of: "("), item.hasSuffix(")") {
                let name = item[..<open].trimmingSpaces()
                let inner = item[item.index(after: open)..<item.index(before: item.endIndex)]
                members.append(.federation(name: name, parties: CoalitionComposition.splitParties(inner)))
            } else if item.contains("/") {
                members.append(.federation(name: item, parties: CoalitionComposition.splitParties(item)))
            } else {
                members.append(.party(item))
            }
        }
        self.members = members
    }

    /// Every party acronym, federations expanded, in order, without repeats.
    public var partyAcronyms: [String] {
        var out: [String] = []
        for m in members {
            switch m {
            case .party(let a): if !out.contains(a) { out.append(a) }
            case .federation(_, let parties): for a in parties where !out.contains(a) { out.append(a) }
            }
        }
        return out
    }

    /// The key acronyms are matched by: upper case, inner spaces collapsed (`PC do B` = `PC DO B`).
    public static func acronymKey(_ acronym: String) -> String {
        TSEField.clean(acronym).uppercased()
    }

    /// Items between ` / ` outside parentheses, trimmed, empty ones dropped.
    static func splitMembers(_ text: String) -> [String] {
        var items: [String] = []
        var current: [Character] = []
        var depth = 0
        let chars = Array(text)
        for (i, ch) in chars.enumerated() {
            switch ch {
            case "(":
                depth += 1
            case ")":
                depth = max(0, depth - 1)
            case "/" where depth == 0 && i > 0 && i + 1 < chars.count && chars[i - 1] == " " && chars[i + 1] == " ":
                items.append(String(current).trimmingSpaces())
                current = []
                continue
            default:
                break
            }
            current.append(ch)
        }
        items.append(String(current).trimmingSpaces())
        return items.filter { !$0.isEmpty }
    }

    /// The acronyms of `PT/PC do B/PV`.
    static func splitParties<S: StringProtocol>(_ text: S) -> [String] {
        text.split(separator: "/").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
