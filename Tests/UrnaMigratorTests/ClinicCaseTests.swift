import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

// Renames by case only in the clinic (issue 14's third trial): SQLite's names ignore case, Swift's do not.
extension ClinicMistakeTests {
    /// v1 with `Patient.name` spelt `Name` (no rename declared), beside the real step's closure.
    static func caseChangedV1() throws -> Schema {
        let patient = ClinicFamily.v1[type: "Patient"]!
        return try Self.schema(
            1,
            replacing: [
                ObjectSchema(
                    "Patient",
                    patient.properties.map { p in
                        p.name == "name" ? Property("Name", .string, default: "", indexed: true) : p
                    })
            ])
    }

    @Test func aCaseOnlyPropertyRenameBesideAClosureIsRefusedWithTheRename() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let text = Self.outcome(Self.family(1, ClinicFamily.steps[0], schema: try Self.caseChangedV1()), path)
        #expect(text.contains("Patient.name") && text.contains("PropertyRename"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }

    @Test func aCaseOnlyPropertyRenameTheClosureCopiesKeepsEveryName() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let real = ClinicFamily.steps[0].migration!
        let step = MigrationStep("Name") { m in
            try real(m)
            try m.enumerateObjects(ofType: "Patient") { old, new in new["Name"] = old["name"] }
        }
        let text = Self.outcome(Self.family(1, step, schema: try Self.caseChangedV1()), path)
        #expect(text == "applied", "\(text)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT Name FROM Patient ORDER BY id").map { "\($0[0])" }
                == (1...6).map(ClinicFamily.patientName))
    }
}

extension ClinicMistakeTests {
    /// v1 with the type Doctor spelt `doctor` (every link and list following).
    static func lowercaseDoctorV1() throws -> Schema {
        let v0 = ClinicFamily.v0
        let types = v0.types.map { t -> ObjectSchema in
            if t.name == "Doctor" { return ObjectSchema("doctor", t.properties) }
            return ObjectSchema(
                t.name, embedded: t.embedded,
                t.properties.map { p in
                    var p = p
                    if case .link("Doctor") = p.type { p.type = .link("doctor") }
                    if case .list("Doctor") = p.type { p.type = .list("doctor") }
                    return p
                })
        }
        return try Schema(family: "clinic", version: 1, types: types)
    }

    @Test func aCaseOnlyTypeRenameDoneByAClosureKeepsEverything() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let step = MigrationStep("Doctor spelt doctor") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create("doctor", value: ["id": old["id"], "name": old["name"], "specialty": old["specialty"]])
            }
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let d) = old["doctor"] { new["doctor"] = .link(LinkTarget(type: "doctor", key: d.key)) }
            }
            try m.enumerateObjects(ofType: "Patient") { old, new in
                if case .list(let d) = old["doctors"] {
                    new["doctors"] = .list(d.map { LinkTarget(type: "doctor", key: $0.key) })
                }
            }
        }
        let text = Self.outcome(
            SchemaFamily(
                name: "clinic",
                versions: [SchemaVersion(ClinicFamily.v0), SchemaVersion(try Self.lowercaseDoctorV1(), step: step)]),
            path)
        #expect(text == "applied", "\(text)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'doctor'").map { "\($0[0])" }
                == ["doctor"])
        #expect(try c.integer("SELECT count(*) FROM doctor") == 3)
        #expect(try c.integer("SELECT count(*) FROM Visit WHERE doctor IS NOT NULL") == 6)
        #expect(try c.integer("SELECT count(*) FROM Patient_doctors") == 8)
    }
}
