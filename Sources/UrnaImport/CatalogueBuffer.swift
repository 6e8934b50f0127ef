/// The few, much repeated objects of a run (elections, parties, coalitions, good types), kept in
/// memory with the latest values seen and written once at the end, when every party a coalition's
/// composition names is known.
struct CatalogueBuffer {
    /// A coalition's latest values and the party numbers legend files listed as its members.
    struct CoalitionEntry {
        var values: CoalitionValues
        var memberNumbers: [Int64] = []
    }

    private(set) var elections: [String: ElectionValues] = [:]
    private(set) var parties: [Int64: PartyValues] = [:]
    private(set) var coalitions: [Int64: CoalitionEntry] = [:]
    private(set) var goodTypes: [Int64: GoodTypeValues] = [:]
    /// Acronym key -> party number, as last seen in this run.
    private(set) var acronyms: [String: Int64] = [:]
    private var lastElection: ElectionValues?

    /// Elections whose candidacies the run touched (their vices are re-paired).
    var electionIDs: [String] { elections.keys.sorted() }

    mutating func note(election e: ElectionValues) {
        if e == lastElection { return }  // rows of one election come together
        lastElection = e
        elections[e.id] = e
    }

    /// Latest non-empty acronym and name win (an empty value means unknown, not "no name").
    mutating func note(party p: PartyValues) {
        if let old = parties[p.number] {
            if old == p || (p.acronym.isEmpty && p.name.isEmpty) { return }
            var merged = old
            if !p.acronym.isEmpty { merged.acronym = p.acronym }
            if !p.name.isEmpty { merged.name = p.name }
            if merged == old { return }
            parties[p.number] = merged
        } else {
            parties[p.number] = p
        }
        if !p.acronym.isEmpty { acronyms[CoalitionComposition.acronymKey(p.acronym)] = p.number }
    }

    /// Latest non-empty name and non-nil composition and kind win; `member` is a party the row itself
    /// places in the coalition (legend files).
    mutating func note(coalition c: CoalitionValues, member: Int64? = nil) {
        if var entry = coalitions[c.id] {
            var merged = entry.values
            if !c.name.isEmpty { merged.name = c.name }
            if let comp = c.composition { merged.composition = comp }
            if let kind = c.kind { merged.kind = kind }
            let changed = merged != entry.values
            let newMember = member.map { !entry.memberNumbers.contains($0) } ?? false
            guard changed || newMember else { return }
            entry.values = merged
            if newMember, let member { entry.memberNumbers.append(member) }
            coalitions[c.id] = entry
        } else {
            coalitions[c.id] = CoalitionEntry(values: c, memberNumbers: member.map { [$0] } ?? [])
        }
    }

    mutating func note(goodType t: GoodTypeValues) {
        if let old = goodTypes[t.id], old == t || t.typedescription.isEmpty { return }
        goodTypes[t.id] = t
    }

    /// The party numbers of a coalition: its composition's acronyms that name a party seen in this
    /// run, in published order, with the members legend rows listed that the composition did not name
    /// (say, under an acronym the party no longer uses) placed where the legend rows put them: after
    /// the nearest member listed before them, else before the nearest listed after them, else last.
    func partyNumbers(of entry: CoalitionEntry) -> [Int64] {
        var out: [Int64] = []
        if let text = entry.values.composition {
            for acronym in CoalitionComposition(text).partyAcronyms {
                if let n = acronyms[CoalitionComposition.acronymKey(acronym)], !out.contains(n) { out.append(n) }
            }
        }
        let members = entry.memberNumbers
        for (k, n) in members.enumerated() where !out.contains(n) && parties[n] != nil {
            if let before = members[..<k].last(where: out.contains), let i = out.firstIndex(of: before) {
                out.insert(n, at: i + 1)
            } else if let after = members[(k + 1)...].first(where: out.contains), let i = out.firstIndex(of: after) {
                out.insert(n, at: i)
            } else {
                out.append(n)
            }
        }
        return out
    }
}
