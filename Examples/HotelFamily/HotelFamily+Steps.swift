import Foundation
import UrnaMigrator
import UrnaStore

extension HotelFamily {
    /// The app's own objects beside the family: a plain table, a view, an audit trigger and its table.
    public static let ownSQL = [
        "CREATE TABLE IF NOT EXISTS housekeeping(room TEXT NOT NULL, day TEXT NOT NULL, done INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS audit(what TEXT NOT NULL)",
        "CREATE VIEW IF NOT EXISTS guest_names AS SELECT id, name FROM Guest",
        "CREATE TRIGGER IF NOT EXISTS guest_audit AFTER INSERT ON Guest BEGIN "
            + "INSERT INTO audit(what) VALUES ('guest ' || new.id); END",
    ]

    /// The app's search over feedback (from v2 on), filled from the table and kept by triggers over `column`.
    public static func searchSQL(column: String, fill: Bool) -> [String] {
        ["CREATE VIRTUAL TABLE IF NOT EXISTS feedback_fts USING fts5(body, id UNINDEXED)"]
            + (fill ? ["INSERT INTO feedback_fts(body, id) SELECT \(column), id FROM Feedback"] : [])
            + [
                "CREATE TRIGGER feedback_fts_ai AFTER INSERT ON Feedback BEGIN "
                    + "INSERT INTO feedback_fts(body, id) VALUES (new.\(column), new.id); END",
                "CREATE TRIGGER feedback_fts_ad AFTER DELETE ON Feedback BEGIN "
                    + "DELETE FROM feedback_fts WHERE id = old.id; END",
            ]
    }

    static let dropSearchTriggers = [
        "DROP TRIGGER IF EXISTS feedback_fts_ai", "DROP TRIGGER IF EXISTS feedback_fts_ad",
    ]

    /// The tier enum as text (v3 on); an unknown number keeps its value in the text.
    public static func tierName(_ n: Int64) -> String {
        switch n {
        case 0: "regular"
        case 1: "silver"
        case 2: "gold"
        default: "tier\(n)"
        }
    }

    /// The e-mail v1 gives a guest who had none.
    public static func unknownEmail(_ id: Int64) -> String { "guest\(id)@unknown.invalid" }

    /// The five steps, as the app's developer writes them.
    public static let steps: [MigrationStep] = [
        MigrationStep("Booking renamed Stay (checkIn is arrival, nights is length); email required") { m in
            try m.enumerateObjects(ofType: "Booking") { old, _ in
                try m.create(
                    "Stay",
                    value: [
                        "id": old["id"], "guest": old["guest"], "room": old["room"], "arrival": old["checkIn"],
                        "length": old["nights"], "status": old["status"], "notes": old["notes"],
                    ])
            }
            try m.enumerateObjects(ofType: "Guest") { old, new in
                if old["email"].isNull { new["email"] = .string(unknownEmail(old["id"].intValue ?? 0)) }
            }
        },
        MigrationStep(
            "a stay has rooms and its own rate; complaints and compliments are feedback",
            // A room nobody stayed in has no stay to carry its rate: the price list is the app's, not the file's.
            allowances: [.discard(type: "Room", property: "rate")], sqlAfter: searchSQL(column: "text", fill: true)
        ) { m in
            try m.enumerateObjects(ofType: "Stay") { old, new in
                guard case .link(let room) = old["room"] else { return }
                new["rooms"] = .list([room])
                new["rate"] = try old.linked("room")?["rate"] ?? .null
            }
            for (type, prefix, kind) in [("Complaint", "c", "complaint"), ("Compliment", "p", "compliment")] {
                try m.enumerateObjects(ofType: type) { old, _ in
                    try m.create(
                        "Feedback",
                        value: [
                            "id": .string("\(prefix)\(old["id"].intValue ?? 0)"), "guest": old["guest"],
                            "text": old["text"], "kind": .string(kind),
                        ])
                }
            }
        },
        MigrationStep("guests keyed by text (G7); tier as text") { m in
            try m.enumerateObjects(ofType: "Guest") { old, new in
                new["id"] = .string("G\(old["id"].intValue ?? 0)")
                new["tier"] = .string(tierName(old["tier"].intValue ?? 0))
            }
        },
        MigrationStep("photo and birth date move to Profile; a stay has one room again") { m in
            try m.enumerateObjects(ofType: "Guest") { old, _ in
                try m.create(
                    "Profile",
                    value: ["id": old["id"], "guest": old.link, "photo": old["photo"], "born": old["born"]])
            }
            try m.enumerateObjects(ofType: "Stay") { old, new in
                guard case .list(let rooms) = old["rooms"], let first = rooms.first else { return }
                new["room"] = .link(first)
                if rooms.count > 1 {
                    let others = rooms.dropFirst().map { $0.key.stringValue ?? "" }.joined(separator: ", ")
                    let notes = old["notes"].stringValue.map { $0 + "; " } ?? ""
                    new["notes"] = .string(notes + "also rooms " + others)
                }
            }
        },
        MigrationStep(
            "feedback text is body (the search triggers follow)",
            renames: [PropertyRename(type: "Feedback", from: "text", to: "body")],
            sqlBefore: dropSearchTriggers, sqlAfter: Array(searchSQL(column: "body", fill: false).dropFirst())),
    ]

    /// The family, v0 to v5.
    public static let family = SchemaFamily(
        name: "hotel",
        versions: [SchemaVersion(v0)] + zip(versions.dropFirst(), steps).map { SchemaVersion($0.0, step: $0.1) })

    /// The family as shipped after squashing v0-v2 into a v3 baseline.
    public static var squashed: SchemaFamily {
        SchemaFamily(
            name: "hotel", versions: family.versions.filter { $0.version >= 3 }, minimumVersion: 3,
            olderFilesAdvice: "open it once with hotel-app 1.x, which upgrades it to version 3")
    }
}
