import Foundation
import UrnaMigrator
import UrnaStore

extension SchoolFamily {
    /// The app's own objects beside the family: a plain table, a view, a grade log trigger and its table, and a
    /// search over course titles kept by triggers.
    public static let ownSQL = [
        "CREATE TABLE IF NOT EXISTS attendance(student TEXT NOT NULL, day TEXT NOT NULL, present INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS grade_log(what TEXT NOT NULL)",
        "CREATE VIEW IF NOT EXISTS roster AS SELECT id, fullname, gpa FROM Student WHERE enrolled",
        "CREATE TRIGGER IF NOT EXISTS grade_logged AFTER INSERT ON Grade BEGIN "
            + "INSERT INTO grade_log(what) VALUES ('grade for ' || new.student); END",
        "CREATE VIRTUAL TABLE IF NOT EXISTS course_fts USING fts5(title, code UNINDEXED)",
        "INSERT INTO course_fts(title, code) SELECT title, code FROM Course",
        "CREATE TRIGGER IF NOT EXISTS course_fts_ai AFTER INSERT ON Course BEGIN "
            + "INSERT INTO course_fts(title, code) VALUES (new.title, new.code); END",
    ]

    /// Grade `seq`'s key from v1 on.
    public static func gradeID(_ seq: Int64) -> UUID {
        UUID(uuidString: String(format: "6EAD0000-0000-4000-8000-%012lld", seq))!
    }

    /// Student `id`'s key from v3 on.
    public static func studentKey(_ id: Int64) -> String { "S\(id)" }

    static func instructorLink(_ teacher: Value) -> Value {
        guard case .link(let t) = teacher else { return .null }
        return .link(LinkTarget(type: "Instructor", key: t.key))
    }

    /// The four steps, as the app's developer writes them.
    public static let steps: [MigrationStep] = [
        MigrationStep(
            "Teacher is Instructor; fullname is fullName; grades get a UUID key",
            renames: [PropertyRename(type: "Student", from: "fullname", to: "fullName")]
        ) { m in
            try m.enumerateObjects(ofType: "Teacher") { old, _ in
                try m.create(
                    "Instructor",
                    value: [
                        "id": old["id"], "name": old["name"], "email": old["email"], "hired": old["hired"],
                        "salary": old["salary"], "active": old["active"], "signature": old["signature"],
                    ])
            }
            try m.enumerateObjects(ofType: "Student") { old, new in new["advisor"] = instructorLink(old["advisor"]) }
            try m.enumerateObjects(ofType: "Course") { old, new in new["instructor"] = instructorLink(old["teacher"]) }
            try m.enumerateObjects(ofType: "Grade") { old, new in
                new["id"] = .uuid(gradeID(old["seq"].intValue ?? 0))
            }
        },
        MigrationStep("a course's students are enrollments; the guardian is an object of its own") { m in
            try m.enumerateObjects(ofType: "Course") { old, new in
                guard case .list(let students) = old["students"] else { return }
                for s in students {
                    try m.create(
                        "Enrollment",
                        value: [
                            "id": .string("\(old["code"].stringValue ?? "")#\(s.key.intValue ?? 0)"),
                            "student": .link(s), "course": new.link,
                        ])
                }
            }
            try m.enumerateObjects(ofType: "Student") { old, new in
                guard !old["guardianName"].isNull || !old["guardianPhone"].isNull else { return }
                try m.create(
                    "Guardian",
                    value: [
                        "id": .string("G\(old["id"].intValue ?? 0)"),
                        "name": old["guardianName"].isNull ? .string("") : old["guardianName"],
                        "phone": old["guardianPhone"], "student": new.link,
                    ])
            }
        },
        MigrationStep("exams and assignments are assessments; students keyed by text (S7)") { m in
            for (type, prefix, kind) in [("Exam", "e", "exam"), ("Assignment", "a", "assignment")] {
                try m.enumerateObjects(ofType: type) { old, _ in
                    try m.create(
                        "Assessment",
                        value: [
                            "id": .string("\(prefix)\(old["id"].intValue ?? 0)"), "course": old["course"],
                            "title": old["title"], "weight": old["weight"], "kind": .string(kind),
                        ])
                }
            }
            try m.enumerateObjects(ofType: "Student") { old, new in
                new["id"] = .string(studentKey(old["id"].intValue ?? 0))
            }
        },
        MigrationStep(
            "scores are whole numbers; rooms nobody set are TBA",
            allowances: [.lossyConversion(type: "Grade", property: "score")],
            sqlAfter: ["UPDATE Course SET room = 'TBA' WHERE room IS NULL"]),
    ]

    /// The family, v0 to v4.
    public static let family = SchemaFamily(
        name: "school",
        versions: [SchemaVersion(versions[0])]
            + zip(versions.dropFirst(), steps).map { SchemaVersion($0.0, step: $0.1) })

    /// The family as shipped after squashing v0-v1 into a v2 baseline.
    public static var squashed: SchemaFamily {
        SchemaFamily(
            name: "school", versions: family.versions.filter { $0.version >= 2 }, minimumVersion: 2,
            olderFilesAdvice: "open it once with school-app 1.x, which upgrades it to version 2")
    }

    /// A v5 as the app's developer might get it wrong: each one loses data unless allowed.
    public enum Mistake: String, Sendable, CaseIterable {
        /// `Instructor.name` retyped `nmae`, no rename declared.
        case typo
        /// `Instructor.name` becomes `Name`, no rename declared.
        case caseChange = "case"
        /// `Student.email` added as a required string without a default.
        case requiredWithoutDefault = "required"
    }

    /// The family with a v5 that makes `mistake`.
    public static func with(_ mistake: Mistake) -> SchemaFamily {
        var types = versions[4].types
        if let i = types.firstIndex(where: { $0.name == "Instructor" }) {
            var properties = types[i].properties
            if let p = properties.firstIndex(where: { $0.name == "name" }) {
                switch mistake {
                case .typo: properties[p].name = "nmae"
                case .caseChange: properties[p].name = "Name"
                case .requiredWithoutDefault: break
                }
            }
            types[i] = ObjectSchema("Instructor", properties)
        }
        if mistake == .requiredWithoutDefault, let i = types.firstIndex(where: { $0.name == "Student" }) {
            types[i] = ObjectSchema("Student", types[i].properties + [Property("email", .string)])
        }
        return SchemaFamily(
            name: "school",
            versions: family.versions + [SchemaVersion(schema(5, types), step: MigrationStep(mistake.rawValue))])
    }
}
