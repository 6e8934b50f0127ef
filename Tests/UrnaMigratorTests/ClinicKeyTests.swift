import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Key changes in the clinic (issue 14's third trial): keys swapped or shifted onto each other's old values, and
/// a list in a type the closure never touches pointing at re-keyed objects; every link and list follows.
@Suite struct ClinicKeyTests {
    /// v0 plus Doctor.patients (a list of patients the doctor follows), and a v1 equal to it but for `key`.
    static func family(patientKey: PropertyType, step: MigrationStep) throws -> SchemaFamily {
        func schema(_ v: Int, _ key: PropertyType) throws -> Schema {
            try Schema(
                family: "clinic", version: v,
                types: ClinicFamily.v0.types.map { t in
                    switch t.name {
                    case "Doctor": ObjectSchema("Doctor", t.properties + [Property("patients", .list("Patient"))])
                    case "Patient":
                        ObjectSchema(
                            "Patient",
                            t.properties.map { p in p.name == "id" ? Property("id", key, primaryKey: true) : p })
                    default: t
                    }
                })
        }
        return SchemaFamily(
            name: "clinic",
            versions: [SchemaVersion(try schema(0, .int64)), SchemaVersion(try schema(1, patientKey), step: step)])
    }

    static func expectFollowed(_ path: String, newKey: (Int64) -> String) throws {
        let c = try Connection(path: path, readOnly: true, create: false)
        // Visit 10*i + j belonged to patient i; its link now holds i's new key.
        let visits = try c.rows("SELECT id, patient FROM Visit ORDER BY id").map { "\($0[0])>\($0[1])" }
        #expect(visits == (1...6).flatMap { i in [0, 1].map { j in "\(i * 10 + j)>\(newKey(Int64(i)))" } })
        let lists = try c.rows("SELECT owner, target FROM Doctor_patients ORDER BY owner, position").map {
            "\($0[0])>\($0[1])"
        }
        #expect(lists == ["1>\(newKey(1))", "1>\(newKey(2))", "1>\(newKey(6))", "2>\(newKey(3))"])
        let names = try c.rows("SELECT id, name FROM Patient").map { "\($0[1])=\($0[0])" }.sorted()
        #expect(names == (1...6).map { "\(ClinicFamily.patientName($0))=\(newKey(Int64($0)))" }.sorted())
        #expect(try c.rows("PRAGMA foreign_key_check").isEmpty)
    }

    static func fill(_ path: String, _ family: SchemaFamily) throws {
        let store = try Store(path: path, schema: family.versions[0].schema)
        try store.write {
            var patients: [DynamicObject] = []
            for i in 1...6 {
                let p = try store.create("Patient", value: ["id": i, "name": ClinicFamily.patientName(i)])
                patients.append(p)
                for j in 0..<2 { try store.create("Visit", value: ["id": i * 10 + j, "patient": p] as [String: Any]) }
            }
            let followed: [DynamicObject] = [patients[0], patients[1], patients[5]]
            try store.create("Doctor", value: ["id": 1, "patients": followed] as [String: Any])
            try store.create("Doctor", value: ["id": 2, "patients": [patients[2]]] as [String: Any])
        }
    }

    @Test(arguments: ["swap", "shift"])
    func integerKeysMovedOntoEachOthersOldValues(_ how: String) throws {
        @Sendable func swapped(_ k: Int64) -> Int64 { 7 - k }
        @Sendable func shifted(_ k: Int64) -> Int64 { k + 1 }
        let newKey: @Sendable (Int64) -> Int64 = how == "swap" ? swapped : shifted
        let family = try Self.family(
            patientKey: .int64,
            step: MigrationStep("renumbered") { m in
                try m.enumerateObjects(ofType: "Patient") { old, new in
                    new["id"] = .int(newKey(old["id"].intValue ?? 0))
                }
            })
        let dir = try Fixture.directory()
        let path = dir.file("clinic.sqlite")
        try Self.fill(path, family)
        let m = Migrator(family: family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        try Self.expectFollowed(path) { "\(newKey($0))" }
    }

    @Test func textKeysSwappedFollow() throws {
        let family = try Self.family(
            patientKey: .string,
            step: MigrationStep("text keys, reversed") { m in
                try m.enumerateObjects(ofType: "Patient") { old, new in
                    new["id"] = .string("\(7 - (old["id"].intValue ?? 0))")
                }
            })
        let dir = try Fixture.directory()
        let path = dir.file("clinic.sqlite")
        try Self.fill(path, family)
        let m = Migrator(family: family)
        _ = try m.run(try m.plan(path: path), backup: .none)
        try Self.expectFollowed(path) { "\(7 - $0)" }
    }
}

extension ClinicKeyTests {
    /// A closure that deletes an object and creates another under its key (a "replace"), and creates then deletes
    /// a scratch object: the replacement is there once and the scratch object is not; the deletion is counted.
    @Test func aClosureThatReplacesAnObjectUnderItsKey() throws {
        let family = try Self.family(
            patientKey: .int64,
            step: MigrationStep("patient 2 replaced") { m in
                try m.enumerateObjects(ofType: "Patient") { old, new in
                    guard old["id"].intValue == 2 else { return }
                    try m.delete(new)
                    try m.create("Patient", value: ["id": .int(2), "name": .string("José Lima (replaced)")])
                    let scratch = try m.create("Patient", value: ["id": .int(99), "name": .string("scratch")])
                    try m.delete(scratch)
                }
            })
        let dir = try Fixture.directory()
        let path = dir.file("clinic.sqlite")
        try Self.fill(path, family)
        let m = Migrator(family: family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT id, name FROM Patient WHERE id IN (2, 99)").map { "\($0[0]) \($0[1])" } == [
                "2 José Lima (replaced)"
            ])
        #expect(try c.integer("SELECT count(*) FROM Patient") == 6)
        // Its visits' links are not checked here: they point at the replacement (the key is the same), where Realm
        // would have set them to nil at the delete; reported as an open question, not pinned by a test.
        #expect(report.steps.first?.activity.first { $0.type == "Patient" }?.deleted ?? 0 >= 1)
    }
}
