import Foundation
import UrnaMigrator
import UrnaStore

extension SchoolFamily {
    static let teacherNames = ["Maria Silva", "Ngũgĩ wa Thiong'o", "Ông Văn 🍜"]
    static let teacherEmails: [String?] = ["maria@school.example", nil, ""]
    static let teacherSalaries = [5_000.5, 0, -1.25]
    static let studentIDs: [Int64] = [1, 2, 3, -4, .max]
    static let studentNames = ["Ana Souza", "", "李小龍 🐉", "Robert'); DROP TABLE Student;--", "Zoë O'Brien"]
    static let gpas = [3.75, 0, 4, 2.5e-300, -0.5]
    static let guardianNames: [String?] = ["Carla Souza", nil, "", nil, "Pat O'Brien"]
    static let guardianPhones: [String?] = ["+55 81 9999-0000", "555-0101", nil, nil, nil]
    static let courseCodes = ["MATH1", "HIST2", "ART3", "LAT0"]
    static let courseTitles = ["Álgebra linear", "History of 'Rome'", "Pintura 🎨", "Latin (closed)"]
    static let courseTeachers: [Int?] = [0, 1, nil, 2]
    static let courseRooms: [String?] = ["A-101", nil, "", nil]
    static let courseFees = ["120.50", "0.01", "99999999.99", "0"]
    /// Course c's students (indices into the students), in list order; LAT0 has none.
    static let courseStudents: [[Int]] = [[0, 1, 2, 4], [2, 0], [3], []]
    /// Course c's prerequisites (indices into the courses).
    static let prerequisites: [[Int]] = [[], [0], [0, 1], [1, 1]]
    static let scores: [Float] = [87.5, 92.25, 59.75, 100, 0, 66.5, 99.99]
    static let letters: [String?] = ["B", "A", nil, "A+", "", "C", nil]

    static func photo(_ s: Int, big: Int) -> Data? {
        switch s {
        case 0: Data((0..<big).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 3) })
        case 1: Data()
        case 4: Data([0, 255, 0])
        default: nil
        }
    }

    static func day(_ n: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 86_400.5) }

    /// The score v4 keeps of a float score: the lossy conversion the step allows.
    public static func wholeScore(_ score: Float) -> Int64 { Int64(score) }

    /// Writes a file at `version` as the app at that version fills it: three teachers, five students, four
    /// courses, seven grades, two exams and two assignments, and the app's own table, view, triggers and search.
    public static func fill(at path: String, version v: Int, photoBytes: Int = 150_000) throws {
        let store = try Store(path: path, schema: versions[v])
        try store.write {
            let teachers = try teacherNames.indices.map { t in
                var values: [String: Any] = [
                    "id": Int64(t + 1), "name": teacherNames[t], "salary": teacherSalaries[t], "active": t != 1,
                    "signature": t == 0 ? Data("sig ✍".utf8) : Data(),
                ]
                if let e = teacherEmails[t] { values["email"] = e }
                if t != 2 { values["hired"] = day(-t * 400) }
                return try store.create(v == 0 ? "Teacher" : "Instructor", value: values)
            }
            let students = try studentIDs.indices.map { s in
                var values: [String: Any] = [
                    "id": v >= 3 ? studentKey(studentIDs[s]) as Any : studentIDs[s] as Any,
                    v == 0 ? "fullname" : "fullName": studentNames[s], "gpa": gpas[s], "enrolled": s != 3,
                ]
                if s % 2 == 0 { values["born"] = day(-9_000 - s) }
                if let p = photo(s, big: photoBytes) { values["photo"] = p }
                if s != 2 {
                    var a: [String: Any] = ["street": "Rua \(s)", "city": s == 1 ? "" : "Olinda"]
                    if s == 0 { a["postcode"] = "53000-000" }
                    values["address"] = a
                }
                if v < 2 {
                    if let g = guardianNames[s] { values["guardianName"] = g }
                    if let g = guardianPhones[s] { values["guardianPhone"] = g }
                }
                if s < 3 { values["advisor"] = teachers[s % 2 == 0 ? 0 : 2] }
                return try store.create("Student", value: values)
            }
            var courses: [Any] = []
            for c in courseCodes.indices {
                var values: [String: Any] = [
                    "code": courseCodes[c], "title": courseTitles[c], "credits": Int64(c == 2 ? -1 : 3 + c),
                    "capacity": Int64(c == 0 ? 2_000_000_000 : 25), "fee": Decimal(string: courseFees[c])!,
                ]
                if let t = courseTeachers[c] { values[v == 0 ? "teacher" : "instructor"] = teachers[t] }
                if let r = courseRooms[c] { values["room"] = r } else if v >= 4 { values["room"] = "TBA" }
                if v < 2 { values["students"] = courseStudents[c].map { students[$0] } }
                values["prerequisites"] = prerequisites[c].map { courses[$0] }
                courses.append(try store.create("Course", value: values))
            }
            if v >= 2 {
                for c in courseCodes.indices {
                    for s in courseStudents[c] {
                        try store.create(
                            "Enrollment",
                            value: [
                                "id": "\(courseCodes[c])#\(studentIDs[s])", "student": students[s],
                                "course": courses[c],
                            ])
                    }
                }
                for s in studentIDs.indices where guardianNames[s] != nil || guardianPhones[s] != nil {
                    var g: [String: Any] = ["id": "G\(studentIDs[s])", "student": students[s]]
                    if let n = guardianNames[s] { g["name"] = n }
                    if let p = guardianPhones[s] { g["phone"] = p }
                    try store.create("Guardian", value: g)
                }
            }
            for (i, score) in scores.enumerated() {
                var g: [String: Any] = [
                    v == 0 ? "seq" : "id": v == 0 ? Int64(i + 1) as Any : gradeID(Int64(i + 1)) as Any,
                    "score": v >= 4 ? wholeScore(score) as Any : Double(score) as Any,
                ]
                if i != 4 { g["student"] = students[i % students.count] }
                if i != 5 { g["course"] = courses[i % 3] }
                if let l = letters[i] { g["letter"] = l }
                if i % 2 == 0 { g["recorded"] = day(i) }
                try store.create("Grade", value: g)
            }
            for (type, prefix, kind) in [("Exam", "e", "exam"), ("Assignment", "a", "assignment")] {
                for k in 1...2 {
                    var w: [String: Any] = [
                        "id": v >= 3 ? "\(prefix)\(k)" as Any : Int64(k) as Any,
                        "title": "\(kind) \(k) ✓", "weight": Double(k) * 0.125,
                    ]
                    if k == 1 { w["course"] = courses[prefix == "e" ? 0 : 1] }
                    if v >= 3 { w["kind"] = kind }
                    try store.create(v >= 3 ? "Assessment" : type, value: w)
                }
            }
            // The app's own objects come after its data (the grade log would otherwise see the seeding).
            for sql in ownSQL { try store.connection.execute(sql) }
            try store.connection.execute(
                "INSERT INTO attendance(student, day, present) VALUES ('Ana', '2026-03-02', 1)")
        }
    }
}
