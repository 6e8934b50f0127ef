import Foundation
import UrnaMigrator
import UrnaStore

extension ElectionsV4 {
    /// v3 → v4 (the latest, `ElectionsV4`). Identities that hold in every year and generation: elections
    /// re-keyed `year/round/DESCRIPTION` (two v3 elections that are one, an original's and a re-release's,
    /// become one); candidacies `<election>/<SG_UE>/<SQ_CANDIDATO>` with their round; parties split per
    /// election year (`<year>/<number>`, each keeping the label v3 had unless a single-party coalition of that
    /// year published another acronym); coalitions `<year>/<SG_UE>/<SQ>`;
    /// goods re-keyed by their candidacy, which they now also link. Generations and the new TSE columns
    /// start empty (v3 did not keep them).
    public static let step = MigrationStep(
        "identities for every year and generation: election = year/round/description, candidacy = election + "
            + "SG_UE + SQ_CANDIDATO, party = year + number, coalition = year + SG_UE + SQ_COLIGACAO"
    ) { migration in
        // Elections first: candidacies name theirs by the new key.
        try migration.enumerateObjects(ofType: "Election") { old, new in
            let key = electionKey(
                year: old["year"].intValue ?? 0, round: old["round"].intValue ?? 1,
                description: old["electionDescription"].stringValue ?? "")
            if let twin = try migration.newObject(ofType: "Election", forPrimaryKey: .string(key)) {
                if twin["code"].isNull { twin["code"] = old["code"] }
                if twin["kind"].isNull { twin["kind"] = old["kind"] }
                if twin["date"].isNull { twin["date"] = old["date"] }
                try migration.delete(new)
            } else {
                new["id"] = .string(key)
            }
        }
        // Parties and coalitions get their per-year forms from the candidacies; the v3 ones are placeholders.
        var placeholders: [MigrationObject] = []
        try migration.enumerateObjects(ofType: "Party") { old, new in
            new["id"] = .string("v3/\(old["id"].intValue ?? 0)")
            placeholders.append(new)
        }
        try migration.enumerateObjects(ofType: "Coalition") { old, new in
            new["id"] = .string("v3/\(old["id"].intValue ?? 0)")
            placeholders.append(new)
        }
        // Old key of a candidacy v3 held twice -> the id of the one kept.
        var twins: [Value: String] = [:]
        // v3 kept one label per party number (the last one seen), so a file of several years labels every
        // year's party as the newest. A coalition of a single party says that party's acronym in its year.
        var singlePartyCoalitions: [MigrationObject] = []
        try migration.enumerateObjects(ofType: "Candidate") { old, new in
            guard case .link(let e) = old["election"],
                let oldElection = try migration.oldObject(ofType: "Election", forPrimaryKey: e.key)
            else { return }
            let year = oldElection["year"].intValue ?? 0
            let round = oldElection["round"].intValue ?? 1
            let electionID = electionKey(
                year: year, round: round, description: oldElection["electionDescription"].stringValue ?? "")
            let unit = old["unit"].stringValue ?? ""
            let key = "\(electionID)/\(unit)/\(old["sequence"].intValue ?? 0)"
            if let twin = try migration.newObject(ofType: "Candidate", forPrimaryKey: .string(key)) {
                // v3 counted one candidacy twice (original and re-released files): keep one, fill what it lacks.
                for p in migration.newSchema[type: "Candidate"]?.properties ?? [] where p.type.isColumn {
                    guard twin[p.name].isNull, p.name != "id" else { continue }
                    if !new[p.name].isNull {
                        twin[p.name] = new[p.name]
                    }
                }
                if case .list(let kept) = twin["goods"], case .list(let more) = new["goods"], !more.isEmpty {
                    twin["goods"] = .list(kept + more.filter { !kept.contains($0) })
                }
                twins[old.primaryKeyValue] = key
                try migration.delete(new)
                return
            }
            new["id"] = .string(key)
            new["round"] = .int(round)
            new["election"] = .link(LinkTarget(type: "Election", key: .string(electionID)))
            if case .link(let p) = old["party"],
                let oldParty = try migration.oldObject(ofType: "Party", forPrimaryKey: p.key)
            {
                new["party"] = try party(oldParty, year: year, migration: migration).link
            }
            if case .link(let c) = old["coalition"],
                let oldCoalition = try migration.oldObject(ofType: "Coalition", forPrimaryKey: c.key)
            {
                let id = "\(year)/\(unit)/\(oldCoalition["id"].intValue ?? 0)"
                if let existing = try migration.newObject(ofType: "Coalition", forPrimaryKey: .string(id)) {
                    new["coalition"] = existing.link
                } else {
                    var members: [LinkTarget] = []
                    if case .list(let parties) = oldCoalition["parties"] {
                        for p in parties {
                            guard let oldParty = try migration.oldObject(ofType: "Party", forPrimaryKey: p.key) else {
                                continue
                            }
                            members.append(
                                LinkTarget(
                                    type: "Party",
                                    key: try party(oldParty, year: year, migration: migration).primaryKeyValue))
                        }
                    }
                    let created = try migration.create(
                        "Coalition",
                        value: [
                            "id": .string(id), "year": .int(year), "unit": .string(unit),
                            "sequence": oldCoalition["id"], "name": oldCoalition["name"],
                            "composition": oldCoalition["composition"], "kind": oldCoalition["kind"],
                            "parties": .list(members),
                        ])
                    new["coalition"] = created.link
                    if members.count == 1 { singlePartyCoalitions.append(created) }
                }
            }
        }
        try migration.enumerateObjects(ofType: "Good") { old, new in
            guard case .list(let owners) = old["candidate"], let owner = owners.first,
                let ownerOld = try migration.oldObject(ofType: "Candidate", forPrimaryKey: owner.key)
            else { return }  // a good nobody declared keeps its key
            let ownerID: String
            if let ownerNew = try migration.newObject(for: ownerOld), let id = ownerNew["id"].stringValue {
                ownerID = id
            } else if let id = twins[ownerOld.primaryKeyValue] {
                ownerID = id
            } else {
                return
            }
            var id = "\(ownerID)/\(old["order"].intValue ?? 0)"
            if let same = try migration.newObject(ofType: "Good", forPrimaryKey: .string(id)) {
                // Both twins (v3 read one candidacy twice) declared a good of this order: the same good once;
                // a different one is kept too, under its old key.
                if same["goodDescription"] == new["goodDescription"] && same["value"] == new["value"] {
                    try migration.delete(new)
                    return
                }
                id = "\(ownerID)/\(old["id"].stringValue ?? "")"
            }
            new["id"] = .string(id)
            new["candidacy"] = .link(LinkTarget(type: "Candidate", key: .string(ownerID)))
        }
        for p in placeholders { try migration.delete(p) }
        try relabelParties(from: singlePartyCoalitions, migration: migration)
    }

    /// Gives each year's party the acronym its single-party coalitions published that year
    /// (DS_COMPOSICAO_COLIGACAO "PMDB" in 2016 where v3 kept 2018's "MDB" for number 15). The name v3 kept
    /// belongs to the other label, so it is cleared rather than left beside the wrong acronym.
    static func relabelParties(from coalitions: [MigrationObject], migration: Migration) throws {
        var relabelled: Set<Value> = []
        for coalition in coalitions {
            guard case .list(let members) = coalition["parties"], members.count == 1,
                let composition = coalition["composition"].stringValue?.trimmingCharacters(in: .whitespaces),
                !composition.isEmpty, !composition.contains("/"), !composition.contains(","),
                let party = try migration.newObject(ofType: "Party", forPrimaryKey: members[0].key),
                party["acronym"].stringValue != composition, !relabelled.contains(members[0].key)
            else { continue }
            party["acronym"] = .string(composition)
            party["name"] = .string("")
            relabelled.insert(members[0].key)
        }
    }

    /// The v4 party of `old` (a v3 party) in `year`, created with v3's label the first time it is needed.
    static func party(_ old: MigrationObject, year: Int64, migration: Migration) throws -> MigrationObject {
        let number = old["number"].intValue ?? old["id"].intValue ?? 0
        let id = Value.string("\(year)/\(number)")
        if let existing = try migration.newObject(ofType: "Party", forPrimaryKey: id) { return existing }
        return try migration.create(
            "Party",
            value: [
                "id": id, "year": .int(year), "number": .int(number), "acronym": old["acronym"], "name": old["name"],
                "president": old["president"],
            ])
    }
}
