import UrnaMigrator
import UrnaStore

extension ElectionsV6 {
    /// v5 → v6: good types per election year. Each v5 type (keyed by the code) becomes one type per year whose
    /// goods named it (`<year>/<code>`, the year of the good's candidacy's election), with the description v5
    /// kept: v5 held one text per code, the newest file's, so the other years' texts were never stored and cannot
    /// come back here. Which year that text belongs to shows in the generations: a year's type keeps v5's
    /// `generatedAt` when one of its goods has that generation (the text came from that year's files); elsewhere
    /// it gets none, which counts as the oldest, so importing that year's goods files again puts their own text
    /// back. A type no good names keeps its description and generation under year 0 (`0/<code>`: no year
    /// known), as does the type of a good without a candidacy. Nothing else changes; the migrator recreates the
    /// `goods` view from code.
    public static let step = MigrationStep(
        "good types per election year: GoodType keyed <year>/<CD_TIPO_BEM_CANDIDATO>, each good linked to its "
            + "year's type"
    ) { migration in
        // v5's types become placeholders; the per-year types are made from them as the goods name them.
        var placeholders: [(oldKey: Value, object: MigrationObject)] = []
        var placeholderOf: [Value: MigrationObject] = [:]
        try migration.enumerateObjects(ofType: "GoodType") { old, new in
            let code = old["id"].intValue ?? 0
            new["id"] = .string("v5/\(code)")
            new["code"] = .int(code)
            new["year"] = .int(0)
            placeholders.append((old.primaryKeyValue, new))
            placeholderOf[old.primaryKeyValue] = new
        }
        var created: [String: MigrationObject] = [:]
        /// The year's type made from `placeholder`, without a generation until a good shows the text is that year's.
        func yearType(_ placeholder: MigrationObject, year: Int64, keepsGeneration: Bool) throws -> Value {
            let code = placeholder["code"].intValue ?? 0
            let key = goodTypeKey(year: year, code: code)
            let type: MigrationObject
            if let made = created[key] {
                type = made
            } else {
                type = try migration.create(
                    "GoodType",
                    value: [
                        "id": .string(key), "year": .int(year), "code": .int(code),
                        "typedescription": placeholder["typedescription"],
                    ])
                created[key] = type
            }
            if keepsGeneration && type["generatedAt"].isNull { type["generatedAt"] = placeholder["generatedAt"] }
            return .link(LinkTarget(type: "GoodType", key: .string(key)))
        }
        var years = CandidacyYears()
        var named: Set<Value> = []
        try migration.enumerateObjects(ofType: "Good") { old, new in
            guard case .link(let type) = old["type"], let placeholder = placeholderOf[type.key] else {
                new["type"] = .null
                return
            }
            let generation = placeholder["generatedAt"]
            new["type"] = try yearType(
                placeholder, year: try years.year(of: old, migration) ?? 0,
                keepsGeneration: !generation.isNull && old["generatedAt"] == generation)
            named.insert(type.key)
        }
        for (oldKey, placeholder) in placeholders {
            if !named.contains(oldKey) { _ = try yearType(placeholder, year: 0, keepsGeneration: true) }
            try migration.delete(placeholder)
        }
    }

    /// The election year of v5 goods' candidacies, remembered per candidacy (goods come grouped by candidacy)
    /// and per election.
    struct CandidacyYears {
        private var lastCandidacy: (key: Value, year: Int64?)?
        private var electionYears: [Value: Int64?] = [:]

        /// The year of the election of `good`'s candidacy (an old object), or nil without one.
        mutating func year(of good: MigrationObject, _ migration: Migration) throws -> Int64? {
            guard case .link(let candidacy) = good["candidacy"] else { return nil }
            if let last = lastCandidacy, last.key == candidacy.key { return last.year }
            var year: Int64?
            if let c = try migration.oldObject(ofType: "Candidate", forPrimaryKey: candidacy.key),
                case .link(let election) = c["election"]
            {
                if let known = electionYears[election.key] {
                    year = known
                } else {
                    year = try migration.oldObject(ofType: "Election", forPrimaryKey: election.key)?["year"].intValue
                    electionYears[election.key] = year
                }
            }
            lastCandidacy = (candidacy.key, year)
            return year
        }
    }
}
