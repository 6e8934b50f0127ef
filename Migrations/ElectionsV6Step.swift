import UrnaMigrator
import UrnaStore

extension ElectionsV6 {
    /// v5 → v6: good types per election year. Each v5 type (keyed by the code) becomes one type per year whose
    /// goods named it (`<year>/<code>`, the year of the good's candidacy's election), with the description v5
    /// kept (v5 held one per code: the text of the other years' files was never stored, so none can come back;
    /// importing those files again puts each year's own text back). A type no good names keeps its description
    /// under year 0 (`0/<code>`: no year known), as does the type of a good without a candidacy. Nothing else
    /// changes; the migrator recreates the `goods` view from code.
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
        var created: Set<String> = []
        func yearType(_ placeholder: MigrationObject, year: Int64) throws -> Value {
            let code = placeholder["code"].intValue ?? 0
            let key = goodTypeKey(year: year, code: code)
            if created.insert(key).inserted {
                try migration.create(
                    "GoodType",
                    value: [
                        "id": .string(key), "year": .int(year), "code": .int(code),
                        "typedescription": placeholder["typedescription"], "generatedAt": placeholder["generatedAt"],
                    ])
            }
            return .link(LinkTarget(type: "GoodType", key: .string(key)))
        }
        var years = CandidacyYears()
        var named: Set<Value> = []
        try migration.enumerateObjects(ofType: "Good") { old, new in
            guard case .link(let type) = old["type"], let placeholder = placeholderOf[type.key] else {
                new["type"] = .null
                return
            }
            new["type"] = try yearType(placeholder, year: try years.year(of: old, migration) ?? 0)
            named.insert(type.key)
        }
        for (oldKey, placeholder) in placeholders {
            if !named.contains(oldKey) { _ = try yearType(placeholder, year: 0) }
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
