import Foundation
import UrnaMigrator
import UrnaStore

/// Issue 14's eighth app trial: a school's own schema family, as its developer writes it, v0 to v4.
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Address(street, city, postcode?) embedded; Teacher(id int, name, email?, hired date, salary double, active bool, signature data, advisees ← Student.advisor); Student(id int, fullname indexed, born date?, photo data?, gpa double, enrolled bool, address?, guardianName?, guardianPhone?, advisor → Teacher, courses ← Course.students); Course(code, title, credits int16, capacity int32, fee decimal(2), teacher →, room?, students [Student], prerequisites [Course]); Grade(no key: seq, student →, course →, score float, letter?, recorded date); Exam and Assignment(id int, course →, title, weight double) | — |
/// | 1 | Teacher renamed Instructor (Course.teacher → Course.instructor, Student.advisor follows); Student.fullname → fullName (a rename by case); Grade gains a UUID key made from seq, which goes | yes |
/// | 2 | Course.students (list) becomes Enrollment objects; Student split: the guardian moves to Guardian | yes |
/// | 3 | Exam and Assignment merged into Assessment (text keys, kind); Student re-keyed int → text ("S7"), every link follows | yes |
/// | 4 | Grade.score float → int8 (lossy, allowed, no closure); rooms nobody set become "TBA" (SQL) | SQL |
///
/// The app keeps its own objects beside the family: a plain `attendance` table, a `roster` view, an FTS5 index
/// over course titles kept by triggers, and a trigger logging grades into `grade_log`; all must survive.
public enum SchoolFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do { return try Schema(family: "school", version: version, types: types) } catch {
            preconditionFailure("school v\(version): \(error)")
        }
    }

    static let address = ObjectSchema(
        "Address", embedded: true,
        [
            Property("street", .string, default: ""), Property("city", .string, default: ""),
            Property("postcode", .string, optional: true),
        ])

    static func teacher(version v: Int) -> ObjectSchema {
        ObjectSchema(
            v == 0 ? "Teacher" : "Instructor",
            [
                Property("id", .int64, primaryKey: true), Property("name", .string, default: ""),
                Property("email", .string, optional: true),
                Property("hired", .date, default: "2000-01-01T00:00:00Z"),
                Property("salary", .double, default: 0), Property("active", .bool, default: true),
                Property("signature", .data),
                Property("advisees", .linkingObjects(type: "Student", property: "advisor")),
            ])
    }

    static func student(version v: Int) -> ObjectSchema {
        ObjectSchema(
            "Student",
            [
                Property("id", v >= 3 ? .string : .int64, primaryKey: true),
                Property(v == 0 ? "fullname" : "fullName", .string, default: "", indexed: true),
                Property("born", .date, optional: true), Property("photo", .data, optional: true),
                Property("gpa", .double, default: 0), Property("enrolled", .bool, default: true),
                Property("address", .embedded("Address"), optional: true),
            ]
                + (v < 2
                    ? [
                        Property("guardianName", .string, optional: true),
                        Property("guardianPhone", .string, optional: true),
                    ]
                    : [])
                + [Property("advisor", .link(v == 0 ? "Teacher" : "Instructor"))]
                + (v < 2
                    ? [Property("courses", .linkingObjects(type: "Course", property: "students"))]
                    : [
                        Property("enrollments", .linkingObjects(type: "Enrollment", property: "student")),
                        Property("guardians", .linkingObjects(type: "Guardian", property: "student")),
                    ]))
    }

    static func course(version v: Int) -> ObjectSchema {
        ObjectSchema(
            "Course",
            [
                Property("code", .string, primaryKey: true), Property("title", .string, default: ""),
                Property("credits", .int16, default: 3), Property("capacity", .int32, default: 30),
                Property("fee", .decimal(scale: 2), default: 0),
                v == 0 ? Property("teacher", .link("Teacher")) : Property("instructor", .link("Instructor")),
                Property("room", .string, optional: true),
            ] + (v < 2 ? [Property("students", .list("Student"))] : [])
                + [Property("prerequisites", .list("Course"))])
    }

    static func grade(version v: Int) -> ObjectSchema {
        ObjectSchema(
            "Grade",
            (v == 0 ? [Property("seq", .int64, default: 0)] : [Property("id", .uuid, primaryKey: true)])
                + [
                    Property("student", .link("Student")), Property("course", .link("Course")),
                    Property("score", v >= 4 ? .int8 : .float, default: 0), Property("letter", .string, optional: true),
                    Property("recorded", .date, default: "2000-01-01T00:00:00Z"),
                ])
    }

    static func work(_ name: String) -> ObjectSchema {
        ObjectSchema(
            name,
            [
                Property("id", .int64, primaryKey: true), Property("course", .link("Course")),
                Property("title", .string, default: ""), Property("weight", .double, default: 1),
            ])
    }

    static let enrollment = ObjectSchema(
        "Enrollment",
        [
            Property("id", .string, primaryKey: true), Property("student", .link("Student")),
            Property("course", .link("Course")), Property("since", .date, default: "2000-01-01T00:00:00Z"),
            Property("active", .bool, default: true),
        ])

    static let guardian = ObjectSchema(
        "Guardian",
        [
            Property("id", .string, primaryKey: true), Property("name", .string, default: ""),
            Property("phone", .string, optional: true), Property("student", .link("Student")),
        ])

    static let assessment = ObjectSchema(
        "Assessment",
        [
            Property("id", .string, primaryKey: true), Property("course", .link("Course")),
            Property("title", .string, default: ""), Property("weight", .double, default: 1),
            Property("kind", .string, default: "exam"),
        ])

    static func types(version v: Int) -> [ObjectSchema] {
        [address, teacher(version: v), student(version: v), course(version: v), grade(version: v)]
            + (v < 3 ? [work("Exam"), work("Assignment")] : [assessment])
            + (v >= 2 ? [enrollment, guardian] : [])
    }

    public static let versions = (0...4).map { schema($0, types(version: $0)) }
}
