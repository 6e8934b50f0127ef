/// A coalition's published composition (`DS_COMPOSICAO_COLIGACAO`), split into parties and federations.
///
/// Members are separated by `/` outside parentheses (TSE writes ` / `); a federation lists its own
/// parties in parentheses, with bare `/` between them, so splitting naively on `/` would break it.
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
        /// A party federation and the acronyms of its parties.
        case federation(name: String, parties: [String])
    }

    /// Members in published order.
    public let members: [Member]

    /// Parses composition text (already cleaned of null markers).
    public init(_ text: String) {
        var members: [Member] = []
        for item in CoalitionComposition.splitTopLevel(text) {
            if let open = item.firstIndex(of: "("), item.hasSuffix(")") {
                let name = item[..<open].trimmingSpaces()
                let inner = item[item.index(after: open)..<item.index(before: item.endIndex)]
                let parties = inner.split(separator: "/").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
                members.append(.federation(name: name, parties: parties))
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

    /// Items between `/` at parenthesis depth 0, trimmed, empty ones dropped.
    static func splitTopLevel(_ text: String) -> [String] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for ch in text {
            switch ch {
            case "(":
                depth += 1
                current.append(ch)
            case ")":
                depth = max(0, depth - 1)
                current.append(ch)
            case "/" where depth == 0:
                items.append(current.trimmingSpaces())
                current = ""
            default:
                current.append(ch)
            }
        }
        items.append(current.trimmingSpaces())
        return items.filter { !$0.isEmpty }
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
