import Foundation
import UrnaMigrator
import UrnaStore

extension ElectionsV3 {
    /// v2 → v3 (the latest, `ElectionsV3`). Birth state and city split out of `naturalness`
    /// ("MG-BOA ESPERANÇA"), which is dropped; money as exact cents (`decimal(2)`) instead of Double;
    /// e-mail, CPF, voter id, social name, registration status and result added (nil: the old data
    /// has none); coalitions get their composition and kind from their parties; elections their
    /// kind and date; `birthdate` becomes optional; `Party.acronym` is indexed.
    public static let step = MigrationStep(
        "birth state and city split out of naturalness, money as exact cents, e-mail and TSE details"
    ) { migration in
        try migration.enumerateObjects(ofType: "Candidate") { old, new in
            let (state, city) = ElectionsText.naturalness(old["naturalness"].stringValue ?? "")
            new["birthState"] = state.map(Value.string) ?? .null
            new["birthCity"] = city.map(Value.string) ?? .null
            new["spendingLimitFirstRound"] = try ElectionsText.cents(
                old["spendingLimitFirstRound"], of: old, "spendingLimitFirstRound")
            new["spendingLimitSecondRound"] = try ElectionsText.cents(
                old["spendingLimitSecondRound"], of: old, "spendingLimitSecondRound")
        }
        try migration.enumerateObjects(ofType: "Good") { old, new in
            new["value"] = try ElectionsText.cents(old["value"], of: old, "value")
        }
        try migration.enumerateObjects(ofType: "Coalition") { old, new in
            guard case .list(let parties) = old["parties"] else { return }
            var acronyms: [String] = []
            for p in parties {
                if let party = try migration.oldObject(ofType: "Party", forPrimaryKey: p.key),
                    let a = party["acronym"].stringValue
                {
                    acronyms.append(a)
                }
            }
            new["composition"] = acronyms.isEmpty ? .null : .string(acronyms.joined(separator: " / "))
            new["kind"] = parties.isEmpty ? .null : .string(parties.count == 1 ? "PARTIDO ISOLADO" : "COLIGAÇÃO")
        }
        try migration.enumerateObjects(ofType: "Election") { old, new in
            guard let code = old["code"].intValue else { return }
            new["kind"] = "ELEIÇÃO ORDINÁRIA"
            if let day = ElectionsText.electionDates[code], let date = ISODate.parse(day) { new["date"] = .date(date) }
        }
    }
}
