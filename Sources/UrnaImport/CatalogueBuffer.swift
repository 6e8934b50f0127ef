import UrnaRecords
import UrnaStore

/// The few, much repeated objects of a run (elections, parties, coalitions, good types), kept in memory
/// merged field by field by generation (`GenerationMerge`, the rule rows follow) and written once at the end,
/// when every party a coalition's composition names is known (this run's and the file's). The merge makes the result independent of
/// the order rows and files come in.
struct CatalogueBuffer {
    /// A coalition's merged values and the parties legend files listed as its members.
    struct CoalitionEntry {
        var values: CoalitionValues
        var memberIDs: [String] = []
        /// Every composition this run's rows gave the coalition, the one kept and those it beat (a tie or an older
        /// generation): the parties each names stay listed, as they do when the rows come in separate runs.
        var compositions: Set<String> = []
    }

    /// A value two rows of one generation give one object differently: the merge kept one by its fixed rule, and
    /// the run says so (eighth real-files trial: a coalition's name or composition, or a party's name, given
    /// otherwise by one row of a state file than by the national file of the same generation, was decided without
    /// a word, and the coalition's parties followed the composition kept).
    struct Tie {
        var type: String
        var column: String
        var kept: SQLValue
        var other: SQLValue
    }

    /// The ties found since `takeTies`, each (type, key, column, losing value) once per run.
    private(set) var ties: [Tie] = []
    private var tiesSaid = Set<[String]>()
    /// Where each entry was first read (`type` + key), for what its write to the file says.
    private var firstLocations: [String: SourceLocation] = [:]

    /// Where the entry `id` of `type` was first read in this run.
    func firstLocation(_ type: String, _ id: String) -> SourceLocation? { firstLocations[type + "\u{1}" + id] }

    /// The ties found since the last call.
    mutating func takeTies() -> [Tie] {
        defer { ties.removeAll() }
        return ties
    }

    private(set) var elections: [String: ElectionValues] = [:]
    private(set) var parties: [String: PartyValues] = [:]
    private(set) var coalitions: [String: CoalitionEntry] = [:]
    private(set) var goodTypes: [String: GoodTypeValues] = [:]
    private var lastElection: ElectionValues?
    private var lastParty: PartyValues?
    /// Per type and key, the generations of merged values older than their entry's (see `GenerationMerge`).
    private var fieldGenerations: [String: [String: [Int: SQLValue]]] = [:]

    /// The generations of `type`'s entry `id` values that are older than the entry's own.
    func generations(_ type: String, _ id: String) -> [Int: SQLValue] { fieldGenerations[type]?[id] ?? [:] }

    /// The first round of the election with this CD_ELEICAO read in this run (the smallest id if several).
    func electionID(code: Int64) -> String? {
        elections.values.filter { $0.code == code }.map(\.id).min()
    }

    /// Elections whose candidacies the run touched (their vices are re-paired).
    var electionIDs: [String] { elections.keys.sorted() }

    mutating func note(election e: ElectionValues, at location: SourceLocation) {
        if e == lastElection { return }  // rows of one election come together
        lastElection = e
        if let old = elections[e.id] {
            elections[e.id] = merged(old, e, "Election", e.id, ElectionValues.init(row:))
        } else {
            elections[e.id] = e
            firstLocations["Election\u{1}" + e.id] = location
        }
    }

    mutating func note(party p: PartyValues, at location: SourceLocation) {
        if p == lastParty { return }
        lastParty = p
        if let old = parties[p.id] {
            parties[p.id] = merged(old, p, "Party", p.id, PartyValues.init(row:))
        } else {
            parties[p.id] = p
            firstLocations["Party\u{1}" + p.id] = location
        }
    }

    /// `member` is a party the row itself places in the coalition (legend files).
    mutating func note(coalition c: CoalitionValues, member: String? = nil, at location: SourceLocation) {
        if var entry = coalitions[c.id] {
            let values = merged(entry.values, c, "Coalition", c.id, CoalitionValues.init(row:))
            let newMember = member.map { !entry.memberIDs.contains($0) } ?? false
            let newComposition = c.composition.map { !entry.compositions.contains($0) } ?? false
            guard values != entry.values || newMember || newComposition else { return }
            entry.values = values
            if newMember, let member { entry.memberIDs.append(member) }
            if newComposition, let text = c.composition { entry.compositions.insert(text) }
            coalitions[c.id] = entry
        } else {
            coalitions[c.id] = CoalitionEntry(
                values: c, memberIDs: member.map { [$0] } ?? [], compositions: c.composition.map { [$0] } ?? [])
            firstLocations["Coalition\u{1}" + c.id] = location
        }
    }

    mutating func note(goodType t: GoodTypeValues, at location: SourceLocation) {
        let id = t.id
        if let old = goodTypes[id] {
            goodTypes[id] = merged(old, t, "GoodType", id, GoodTypeValues.init(row:))
        } else {
            goodTypes[id] = t
            firstLocations["GoodType\u{1}" + id] = location
        }
    }

    private mutating func merged<V: UpsertRow & Equatable>(
        _ old: V, _ new: V, _ type: String, _ id: String, _ decode: ([SQLValue]) -> V?
    ) -> V {
        if old == new { return old }
        let storedGenerations = self.generations(type, id)
        let placeholders = GenerationMerge.placeholders(table: type)
        let (oldRow, newRow) = (old.row, new.row)
        let (row, generations) = GenerationMerge.merge(
            stored: oldRow, storedGenerations: storedGenerations, incoming: newRow, incomingGenerations: [:],
            placeholders: placeholders)
        guard let value = decode(row) else { return old }
        let found = GenerationMerge.ties(
            stored: oldRow, storedGenerations: storedGenerations, incoming: newRow, incomingGenerations: [:],
            merged: row, placeholders: placeholders, skipping: [])
        for t in found {
            let column = ElectionColumns.named(type)[t.index]
            guard tiesSaid.insert([type, id, column, "\(t.other)"]).inserted else { continue }
            ties.append(Tie(type: type, column: column, kept: t.kept, other: t.other))
        }
        if generations.isEmpty {
            fieldGenerations[type]?[id] = nil
        } else {
            fieldGenerations[type, default: [:]][id] = generations
        }
        return value
    }

    /// The parties of a coalition: its composition's acronyms that name a party of its year (`byAcronym`:
    /// acronym key -> party id, every party of the year the file holds once this run's are written), in
    /// published order, with the members legend rows listed that the composition did not name (say, under
    /// an acronym the party no longer uses) placed where the legend rows put them: after the nearest member
    /// listed before them, else before the nearest listed after them, else last.
    func partyIDs(of entry: CoalitionEntry, byAcronym: [String: String]) -> [String] {
        let named = Self.partyIDs(composition: entry.values.composition, byAcronym: byAcronym)
        return Self.canonicalList(members: memberIDs(of: entry, byAcronym: byAcronym), named: named)
    }

    /// Every party this run places in the coalition: those its legend rows list and those any of the compositions
    /// its rows gave names (not only the composition kept).
    func memberIDs(of entry: CoalitionEntry, byAcronym: [String: String]) -> Set<String> {
        var out = Set(entry.memberIDs.filter { parties[$0] != nil })
        for text in entry.compositions { out.formUnion(Self.partyIDs(composition: text, byAcronym: byAcronym)) }
        return out
    }

    /// A coalition's list as a function of its members and the parties its kept composition names, whatever the
    /// order they were found in (ninth real-files trial: the list depended on which run saw which composition):
    /// the named parties in published order, the other members placed beside their neighbours in id order
    /// (`placing`). Members only grow (a party once placed in the coalition is never dropped), so merging runs in
    /// any order and split gives one list.
    static func canonicalList(members: Set<String>, named: [String]) -> [String] {
        placing(members.union(named).sorted(), into: named)
    }

    /// The ids of the parties `composition` names, in its order, that `byAcronym` knows.
    static func partyIDs(composition: String?, byAcronym: [String: String]) -> [String] {
        var out: [String] = []
        if let text = composition {
            for acronym in CoalitionComposition(text).partyAcronyms {
                if let id = byAcronym[CoalitionComposition.acronymKey(acronym)], !out.contains(id) { out.append(id) }
            }
        }
        return out
    }

    /// `list` with the members of `others` it lacks, each placed after the nearest member listed before it
    /// in `others`, else before the nearest listed after it, else last.
    static func placing(_ others: [String], into list: [String]) -> [String] {
        var out = list
        for (k, n) in others.enumerated() where !out.contains(n) {
            if let before = others[..<k].last(where: out.contains), let i = out.firstIndex(of: before) {
                out.insert(n, at: i + 1)
            } else if let after = others[(k + 1)...].first(where: out.contains), let i = out.firstIndex(of: after) {
                out.insert(n, at: i)
            } else {
                out.append(n)
            }
        }
        return out
    }
}

// The inverse of each `row`, for values merged in memory.

extension ElectionValues {
    init?(row r: [SQLValue]) {
        guard case .text(let id) = r[0], case .integer(let year) = r[3], case .integer(let round) = r[4],
            case .text(let description) = r[5]
        else { return nil }
        self.init(
            id: id, code: r[2].int, year: year, round: round, electionDescription: description, kind: r[6].string,
            kindCode: r[7].int, scope: r[8].string, date: r[9].string, generatedAt: r[1].string)
    }
}

extension PartyValues {
    init?(row r: [SQLValue]) {
        guard case .text(let id) = r[0], case .integer(let year) = r[2], case .integer(let number) = r[3] else {
            return nil
        }
        self.init(
            id: id, year: year, number: number, acronym: r[4].string ?? "", name: r[5].string ?? "",
            generatedAt: r[1].string)
    }
}

extension CoalitionValues {
    init?(row r: [SQLValue]) {
        guard case .text(let id) = r[0], case .integer(let year) = r[2], case .integer(let sequence) = r[4] else {
            return nil
        }
        self.init(
            id: id, year: year, unit: r[3].string ?? "", sequence: sequence, name: r[5].string ?? "",
            composition: r[6].string, kind: r[7].string, generatedAt: r[1].string)
    }
}

extension GoodTypeValues {
    init?(row r: [SQLValue]) {
        guard case .integer(let year) = r[2], case .integer(let code) = r[3] else { return nil }
        self.init(year: year, code: code, typedescription: r[4].string ?? "", generatedAt: r[1].string)
    }
}

extension SQLValue {
    var int: Int64? { if case .integer(let i) = self { i } else { nil } }
    var string: String? { if case .text(let s) = self { s } else { nil } }
}
