import Foundation
import UrnaMigrator
import UrnaStore

extension FieldworkFamily {
    /// The six steps, each as the app's developer writes it.
    public static let steps: [MigrationStep] = [
        MigrationStep(
            "Sample renamed Specimen; elevation as a double",
            allowances: [.lossyConversion(type: "Site", property: "elevation")]
        ) { m in
            try m.enumerateObjects(ofType: "Sample") { old, _ in
                try m.create(
                    "Specimen",
                    value: [
                        "id": old["id"], "visit": old["visit"], "kind": old["kind"], "depth": old["depth"],
                        "mass": old["mass"],
                    ])
            }
        },
        MigrationStep(
            "elevation as text; email and weather required; depth as a double",
            allowances: [
                .nullsBecomeDefault(type: "Visit", property: "weather"),
                .lossyConversion(type: "Site", property: "elevation"),
                .lossyConversion(type: "Specimen", property: "depth"),
            ]),
        MigrationStep("habitat is recorded per visit") { m in
            var visited: Set<Value> = []
            try m.enumerateObjects(ofType: "Visit") { old, new in
                new["habitat"] = try old.linked("site")?["habitat"] ?? .null
                if case .link(let site) = old["site"] { visited.insert(site.key) }
            }
            // Sites nobody visited keep their habitat in their name, so nothing is lost.
            try m.enumerateObjects(ofType: "Site") { old, new in
                guard let habitat = old["habitat"].stringValue, !visited.contains(old.primaryKeyValue) else { return }
                new["name"] = .string("\(old["name"].stringValue ?? "") (\(habitat))")
            }
        },
        MigrationStep(
            "a visit has one leader (its first observer); tags are gone",
            allowances: [.discardType(type: "Tag")]
        ) { m in
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .list(let observers) = old["observers"], let first = observers.first {
                    new["leader"] = .link(first)
                }
            }
        },
        MigrationStep("a visit has a team again; depth as text") { m in
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let leader) = old["leader"] { new["team"] = .list([leader]) }
            }
            try m.enumerateObjects(ofType: "Specimen") { old, new in
                new["depth"] = .string("\(old["depth"].doubleValue ?? 0)")
            }
        },
        MigrationStep("observers keyed by their lower-cased login") { m in
            try m.enumerateObjects(ofType: "Observer") { old, new in
                new["id"] = .string((old["id"].stringValue ?? "").lowercased())
            }
        },
    ]

    /// The family, v0 to v6.
    public static let family = SchemaFamily(
        name: "fieldwork",
        versions: [SchemaVersion(v0)]
            + zip([v1, v2, v3, v4, v5, v6], steps).map { SchemaVersion($0.0, step: $0.1) })

    /// The family as shipped after squashing v0-v2 into a v3 baseline.
    public static var squashed: SchemaFamily {
        SchemaFamily(
            name: "fieldwork", versions: family.versions.filter { $0.version >= 3 }, minimumVersion: 3,
            olderFilesAdvice: "open it once with fieldwork-app 1.x, which upgrades it to version 3")
    }
}
