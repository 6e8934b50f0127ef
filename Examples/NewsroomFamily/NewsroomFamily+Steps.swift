import Foundation
import UrnaMigrator
import UrnaStore

extension NewsroomFamily {
    /// The app's own search over story titles and its unique slugs: not part of the family, made once per file.
    public static func searchSQL(title: String = "title") -> [String] {
        [
            "CREATE VIRTUAL TABLE IF NOT EXISTS story_fts USING fts5(title, slug UNINDEXED)",
            "CREATE UNIQUE INDEX IF NOT EXISTS story_slug ON Story(slug)",
        ] + searchTriggers(title: title)
    }

    /// The triggers that keep `story_fts` in step with Story, over the column holding the title.
    public static func searchTriggers(title: String) -> [String] {
        [
            "CREATE TRIGGER story_fts_ai AFTER INSERT ON Story BEGIN "
                + "INSERT INTO story_fts(title, slug) VALUES (new.\(title), new.slug); END",
            "CREATE TRIGGER story_fts_au AFTER UPDATE OF \(title) ON Story BEGIN "
                + "UPDATE story_fts SET title = new.\(title) WHERE slug = old.slug; END",
            "CREATE TRIGGER story_fts_ad AFTER DELETE ON Story BEGIN DELETE FROM story_fts WHERE slug = old.slug; END",
        ]
    }

    static let dropSearchTriggers = [
        "DROP TRIGGER IF EXISTS story_fts_ai", "DROP TRIGGER IF EXISTS story_fts_au",
        "DROP TRIGGER IF EXISTS story_fts_ad",
    ]

    /// The six steps, as the app's developer writes them.
    public static let steps: [MigrationStep] = [
        MigrationStep("Writer renamed Reporter") { m in
            try m.enumerateObjects(ofType: "Writer") { old, _ in
                try m.create(
                    "Reporter",
                    value: ["id": old["id"], "name": old["name"], "email": old["email"], "beat": old["beat"]])
            }
            try m.enumerateObjects(ofType: "Story") { old, new in
                if case .link(let w) = old["writer"] {
                    new["reporter"] = .link(LinkTarget(type: "Reporter", key: w.key))
                }
            }
        },
        MigrationStep(
            "name is fullName; reporters keyed by a handle; fees as decimals",
            renames: [PropertyRename(type: "Reporter", from: "name", to: "fullName")]
        ) { m in
            try m.enumerateObjects(ofType: "Reporter") { old, new in
                new["id"] = .string("r\(old["id"].intValue ?? 0)")
            }
            try m.enumerateObjects(ofType: "Story") { old, new in
                guard let fee = old["fee"].doubleValue else { return }
                new["fee"] = .decimal(units: Int64((fee * 100).rounded()), scale: 2)
            }
        },
        MigrationStep("email required (default \"\"); rating optional"),
        MigrationStep("Tag renamed Label; bylines have a role") { m in
            try m.enumerateObjects(ofType: "Tag") { old, _ in try m.create("Label", value: ["name": old["name"]]) }
            try m.enumerateObjects(ofType: "Story") { old, new in
                guard case .list(let tags) = old["tags"] else { return }
                new["tags"] = .list(tags.map { LinkTarget(type: "Label", key: $0.key) })
            }
        },
        MigrationStep(
            "beat and credit move to Story; memos are gone", allowances: [.discardType(type: "Memo")]
        ) { m in
            try m.enumerateObjects(ofType: "Story") { old, new in
                new["beat"] = try old.linked("reporter")?["beat"] ?? .null
                guard case .embedded(var byline) = old["byline"] else { return }
                new["credit"] = byline["credit"] ?? .null
                byline["credit"] = nil
                new["byline"] = .embedded(byline)
            }
        },
        MigrationStep(
            "title is headline (the search triggers follow)",
            renames: [PropertyRename(type: "Story", from: "title", to: "headline")],
            sqlBefore: dropSearchTriggers, sqlAfter: searchTriggers(title: "headline")),
    ]

    /// The family, v0 to v6.
    public static let family = SchemaFamily(
        name: "newsroom",
        versions: [SchemaVersion(v0)] + zip(versions.dropFirst(), steps).map { SchemaVersion($0.0, step: $0.1) })

    /// The family as shipped after squashing v0-v2 into a v3 baseline.
    public static var squashed: SchemaFamily {
        SchemaFamily(
            name: "newsroom", versions: family.versions.filter { $0.version >= 3 }, minimumVersion: 3,
            olderFilesAdvice: "open it once with newsroom-app 1.x, which upgrades it to version 3")
    }
}
