import UrnaStore

/// Parties, coalitions, elections and good types from the catalogue buffer, and the counts of what was written.
extension ElectionStoreWriter {
    // MARK: - Catalogues

    /// Writes the run's elections, parties, good types and coalitions (with their party lists).
    func flush(_ catalogue: CatalogueBuffer) throws {
        /// Notes the ties the last upsert of `statements` found.
        func noteTies(_ statements: UpsertStatements, _ type: String, _ id: String) {
            catalogueTies += statements.ties.map { (type, id, $0.column, $0.kept, $0.other) }
        }
        for id in catalogue.elections.keys.sorted() {
            count(
                "Election",
                try elections.upsert(catalogue.elections[id]!.row, generations: catalogue.generations("Election", id)))
            noteTies(elections, "Election", id)
        }
        var yearsWithNewParties = Set<Int64>()
        for id in catalogue.parties.keys.sorted() {
            let outcome = try parties.upsert(
                catalogue.parties[id]!.row, generations: catalogue.generations("Party", id))
            if case .inserted = outcome { yearsWithNewParties.insert(catalogue.parties[id]!.year) }
            noteTies(parties, "Party", id)
            count("Party", outcome)
        }
        for id in catalogue.goodTypes.keys.sorted() {
            count(
                "GoodType",
                try goodTypes.upsert(
                    catalogue.goodTypes[id]!.row, generations: catalogue.generations("GoodType", id)))
            noteTies(goodTypes, "GoodType", id)
        }
        // A coalition's composition is matched against every party of its year the file holds (the parties
        // were written just above), not only those this run read, so a list does not depend on how the
        // files were split into runs.
        var acronymsByYear: [Int64: [String: String]] = [:]
        func acronyms(_ year: Int64) throws -> [String: String] {
            if let known = acronymsByYear[year] { return known }
            let found = try partyAcronyms(year: year)
            acronymsByYear[year] = found
            return found
        }
        for id in catalogue.coalitions.keys.sorted() {
            let entry = catalogue.coalitions[id]!
            let byAcronym = try acronyms(entry.values.year)
            // The list follows the composition the file keeps after the merge (an earlier run's may beat this
            // run's), and keeps the parties every composition seen named: the stored one's, this run's.
            var members = catalogue.memberIDs(of: entry, byAcronym: byAcronym)
            members.formUnion(CatalogueBuffer.partyIDs(composition: try storedComposition(id), byAcronym: byAcronym))
            var outcome = try coalitions.upsert(entry.values.row, generations: catalogue.generations("Coalition", id))
            noteTies(coalitions, "Coalition", id)
            let named = CatalogueBuffer.partyIDs(composition: try storedComposition(id), byAcronym: byAcronym)
            if try setMembers(coalition: id, named: named, members: members) {
                switch outcome {
                case .unchanged(let r), .superseded(let r): outcome = .updated(r)
                default: break
                }
            }
            count("Coalition", outcome)
        }
        // A party new to the file may be named by the composition of a coalition an earlier run stored.
        for year in yearsWithNewParties.sorted() {
            let byAcronym = try acronyms(year)
            storedCoalitions.bind(year, 1)
            var stored: [(String, String)] = []
            while try storedCoalitions.step() {
                if case .text(let id) = storedCoalitions.value(at: 0),
                    case .text(let c) = storedCoalitions.value(at: 1),
                    catalogue.coalitions[id] == nil
                {
                    stored.append((id, c))
                }
            }
            storedCoalitions.reset()
            for (id, composition) in stored {
                let wanted = CatalogueBuffer.partyIDs(composition: composition, byAcronym: byAcronym)
                if try setMembers(coalition: id, named: wanted, members: Set(wanted)) {
                    catalogueCounts["Coalition", default: ObjectCounts()].updated += 1
                }
            }
        }
    }

    /// Acronym key (`CoalitionComposition.acronymKey`) -> party id, for the stored parties of `year`; two
    /// numbers under one acronym give the smaller id.
    func partyAcronyms(year: Int64) throws -> [String: String] {
        var out: [String: String] = [:]
        partiesOfYear.bind(year, 1)
        while try partiesOfYear.step() {
            guard case .text(let id) = partiesOfYear.value(at: 0), case .text(let acronym) = partiesOfYear.value(at: 1),
                !acronym.isEmpty
            else { continue }
            let key = CoalitionComposition.acronymKey(acronym)
            if let other = out[key], other < id { continue }
            out[key] = id
        }
        partiesOfYear.reset()
        return out
    }

    /// The composition the file holds for coalition `id` (nil when none, or no such coalition yet).
    func storedComposition(_ id: String) throws -> String? {
        coalitionComposition.bind(id, 1)
        defer { coalitionComposition.reset() }
        guard try coalitionComposition.step(), case .text(let text) = coalitionComposition.value(at: 0) else {
            return nil
        }
        return text
    }

    /// Makes a coalition's list `CatalogueBuffer.canonicalList` of its members already listed, `members` and
    /// `named` (the parties its stored composition names, in order): the same list whichever run brought which
    /// member (a legend row of an earlier run under an older acronym stays); true when the list changed.
    func setMembers(coalition id: String, named: [String], members: Set<String>) throws -> Bool {
        coalitionMembers.bind(id, 1)
        var existing: [String] = []
        while try coalitionMembers.step() {
            if case .text(let t) = coalitionMembers.value(at: 0) { existing.append(t) }
        }
        coalitionMembers.reset()
        let merged = CatalogueBuffer.canonicalList(members: members.union(existing), named: named)
        guard merged != existing else { return false }
        try Self.rewriteList(
            owner: id, members: merged.map { .text($0) }, delete: deleteCoalitionMembers, insert: appendCoalitionMember)
        return true
    }

    func count(_ type: String, _ outcome: UpsertStatements.Outcome) {
        switch outcome {
        case .inserted: catalogueCounts[type, default: ObjectCounts()].inserted += 1
        case .updated: catalogueCounts[type, default: ObjectCounts()].updated += 1
        case .unchanged, .superseded: catalogueCounts[type, default: ObjectCounts()].unchanged += 1
        case .conflict: break
        }
    }
}
