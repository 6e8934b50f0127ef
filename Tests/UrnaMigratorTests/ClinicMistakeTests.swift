import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// The clinic developer's mistakes (issue 14's third trial): each is refused naming the property and the fix,
/// or keeps every value; the file's data stays as it was when a run is refused or fails.
@Suite struct ClinicMistakeTests {
    /// The family up to `version`, whose last step (and, when given, schema) is replaced.
    static func family(_ version: Int, _ step: MigrationStep, schema: Schema? = nil) -> SchemaFamily {
        var versions = Array(ClinicFamily.family.versions.prefix(version))
        versions.append(SchemaVersion(schema ?? ClinicFamily.family.versions[version].schema, step: step))
        return SchemaFamily(name: "clinic", versions: versions)
    }

    static func schema(_ version: Int, replacing types: [ObjectSchema], removing removed: [String] = []) throws
        -> Schema
    {
        let base = ClinicFamily.family.versions[version].schema
        let names = Set(types.map(\.name)).union(removed)
        return try Schema(
            family: "clinic", version: version, types: base.types.filter { !names.contains($0.name) } + types)
    }

    /// A file at `version` (filled at v0, migrated with the real family).
    static func file(_ dir: TemporaryDirectory, at version: Int) throws -> String {
        let path = dir.file("clinic.sqlite")
        try ClinicFamily.fillV0(at: path)
        if version > 0 {
            let m = Migrator(family: ClinicFamily.family)
            _ = try m.run(try m.plan(path: path, to: version), backup: .none)
        }
        return path
    }

    /// What running `family` on the file gave: the error's text, or "applied".
    static func outcome(_ family: SchemaFamily, _ path: String, options: MigrationOptions = MigrationOptions())
        -> String
    {
        do {
            let m = Migrator(family: family, options: options)
            let report = try m.run(try m.plan(path: path), backup: .none)
            return "\(report.outcome)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aTypeRenameThatForgetsTheIncomingLinkIsRefused() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let step = MigrationStep("Doctor renamed Clinician") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create("Clinician", value: ["code": .string("D\(old["id"].intValue ?? 0)"), "name": old["name"]])
            }
            try m.enumerateObjects(ofType: "Patient") { old, new in
                if case .list(let d) = old["doctors"] {
                    new["clinicians"] = .list(d.map(ClinicFamily.clinicianLinkForTests))
                }
            }
        }
        let text = Self.outcome(Self.family(1, step), path)
        #expect(text.contains("Visit.doctor") && text.contains("--allow-loss Visit.doctor"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }

    @Test func aTypeRenameThatForgetsTheIncomingListIsRefused() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let step = MigrationStep("Doctor renamed Clinician") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create("Clinician", value: ["code": .string("D\(old["id"].intValue ?? 0)"), "name": old["name"]])
            }
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let d) = old["doctor"] { new["clinician"] = .link(ClinicFamily.clinicianLinkForTests(d)) }
            }
            try m.enumerateObjects(ofType: "Patient") { _, new in new["smoker"] = .bool(false) }
        }
        let text = Self.outcome(Self.family(1, step), path)
        #expect(text.contains("Patient.doctors") && text.contains("--allow-loss Patient.doctors"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }

    @Test func duplicateKeysACreatingClosureMakesNameTheTypeAndKey() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let step = MigrationStep("every doctor is D") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create("Clinician", value: ["code": .string("D"), "name": old["name"]])
            }
            try m.enumerateObjects(ofType: "Visit") { _, _ in }
            try m.enumerateObjects(ofType: "Patient") { _, _ in }
        }
        let text = Self.outcome(
            Self.family(1, step, ), path,
            options: MigrationOptions(
                allowances: MigrationAllowance.loss(of: "Visit.doctor") + MigrationAllowance.loss(of: "Patient.doctors")
            ))
        #expect(
            text.contains("two Clinician objects were given the primary key D") && !text.contains("deleted"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }

    /// A key changed on a written object to one another object holds is refused by the table; a closure that
    /// catches that reads back the key the table has, not the refused one (it read the refused one).
    @Test func aRefusedKeyChangeLeavesTheObjectAsStored() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        final class Seen: @unchecked Sendable {
            var key: Value = .null
            var refused = false
        }
        let seen = Seen()
        let step = MigrationStep("a key taken twice, caught") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create("Clinician", value: ["code": .string("D\(old["id"].intValue ?? 0)"), "name": old["name"]])
            }
            let a = try m.create("Clinician", value: ["code": .string("X1"), "name": .string("a")])
            _ = a
            let b = try m.create("Clinician", value: ["code": .string("X2"), "name": .string("b")])
            do { try b.setValue(.string("X1"), forKey: "code") } catch { seen.refused = true }
            seen.key = b["code"]
            try m.enumerateObjects(ofType: "Visit") { _, _ in }
            try m.enumerateObjects(ofType: "Patient") { _, _ in }
        }
        _ = Self.outcome(
            Self.family(1, step), path,
            options: MigrationOptions(
                allowances: MigrationAllowance.loss(of: "Visit.doctor") + MigrationAllowance.loss(of: "Patient.doctors")
            ))
        #expect(seen.refused)
        #expect(seen.key == .string("X2"), "\(seen.key)")
    }

    @Test func aClosureThatThrowsOrIsCancelledMidwayChangesNoData() throws {
        struct Boom: Error {}
        for cancel in [false, true] {
            let dir = try Fixture.directory()
            let path = try Self.file(dir, at: 0)
            let before = try Fixture.dump(path)
            let token = MigrationCancellation()
            let real = ClinicFamily.steps[0].migration!
            let step = MigrationStep("throws at the third visit") { m in
                try real(m)
                var n = 0
                try m.enumerateObjects(ofType: "Visit") { _, _ in
                    n += 1
                    if n == 3 {
                        if cancel { token.cancel() } else { throw Boom() }
                    }
                }
            }
            var options = MigrationOptions()
            options.cancellation = token
            let text = Self.outcome(Self.family(1, step), path, options: options)
            #expect(text != "applied", "\(text)")
            #expect(try Fixture.dump(path) == before)
            let c = try Connection(path: path, readOnly: true, create: false)
            #expect(try c.integer("PRAGMA user_version") == 0)
        }
    }

    @Test func aRequiredPropertyTheClosureNeverSetsNeedsItsAllowance() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 1)
        var step = ClinicFamily.steps[1]
        step.allowances = []
        let text = Self.outcome(Self.family(2, step), path)
        #expect(text.contains("Visit.diagnosis") && text.contains("nullsBecomeDefault"), "\(text)")
        #expect(try Connection(path: path, readOnly: true, create: false).integer("PRAGMA user_version") == 1)
    }

    @Test func aCaseOnlyTypeRenameIsRefusedClearly() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let v0 = ClinicFamily.v0
        let doctor = v0[type: "Doctor"]!
        let renamed = ObjectSchema("doctor", doctor.properties)
        let types = v0.types.map { t -> ObjectSchema in
            if t.name == "Doctor" { return renamed }
            return ObjectSchema(
                t.name, embedded: t.embedded,
                t.properties.map { p in
                    var p = p
                    if case .link("Doctor") = p.type { p.type = .link("doctor") }
                    if case .list("Doctor") = p.type { p.type = .list("doctor") }
                    return p
                })
        }
        let v1 = try Schema(family: "clinic", version: 1, types: types)
        let text = Self.outcome(
            SchemaFamily(name: "clinic", versions: [SchemaVersion(v0), SchemaVersion(v1)]), path)
        #expect(text.contains("Doctor") && text.contains("doctor"), "\(text)")
        #expect(!text.contains("already exists"), "\(text)")
        #expect(text.contains("doctor is added and differs from it only in case"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }

    @Test func aListTurnedIntoALinkWithoutAClosureIsRefused() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 2)
        let v2 = ClinicFamily.v2
        let patient = v2[type: "Patient"]!
        let v3 = try Self.schema(
            3,
            replacing: [
                ObjectSchema(
                    "Patient",
                    patient.properties.map { p in
                        p.name == "clinicians" ? Property("clinicians", .link("Clinician")) : p
                    })
            ], removing: ["CareTeam"])
        let text = Self.outcome(Self.family(3, MigrationStep("one clinician"), schema: v3), path)
        #expect(text.contains("Patient.clinicians") && text.contains("--allow-loss Patient.clinicians"), "\(text)")
    }

    @Test func aLinkTurnedIntoAListWithoutAClosure() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 2)
        let v2 = ClinicFamily.v2
        let visit = v2[type: "Visit"]!
        let v3 = try Self.schema(
            3,
            replacing: [
                ObjectSchema(
                    "Visit",
                    visit.properties.map { p in p.name == "clinician" ? Property("clinician", .list("Clinician")) : p })
            ] + [v2[type: "Patient"]!], removing: ["CareTeam"])
        let text = Self.outcome(Self.family(3, MigrationStep("several clinicians"), schema: v3), path)
        // Either refused naming the property, or every link is in the list.
        if text == "applied" {
            let c = try Connection(path: path, readOnly: true, create: false)
            #expect(try c.integer("SELECT count(*) FROM Visit_clinician") == 6)
        } else {
            #expect(text.contains("Visit.clinician"), "\(text)")
        }
    }

    @Test func anIntegerKeyBecomingTextWithoutAClosureKeepsEveryLink() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 3)
        let v3 = ClinicFamily.v3
        let patient = v3[type: "Patient"]!
        let v4 = try Self.schema(
            4,
            replacing: [
                ObjectSchema(
                    "Patient",
                    patient.properties.map { p in p.name == "id" ? Property("id", .string, primaryKey: true) : p })
            ] + v3.types.filter { $0.name != "Patient" }, removing: [])
        let family = Self.family(4, MigrationStep("text keys"), schema: v4)
        let refused = Self.outcome(family, path)
        #expect(refused.contains("Patient.id") && refused.contains("--allow-loss Patient.id"), "\(refused)")
        // Allowed, the keys become their text and every link and list follows them.
        let text = Self.outcome(
            family, path, options: MigrationOptions(allowances: MigrationAllowance.loss(of: "Patient.id")))
        #expect(text == "applied", "\(text)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT count(*) FROM Patient WHERE typeof(id) = 'text'") == 6)
        #expect(try c.integer("SELECT count(*) FROM Visit v JOIN Patient p ON p.id = v.patient") == 12)
        #expect(try c.integer("SELECT count(*) FROM CareTeam t JOIN Patient p ON p.id = t.patient") == 8)
        #expect(try c.integer("SELECT count(*) FROM Visit WHERE typeof(patient) = 'text'") == 12)
        #expect(try c.rows("PRAGMA foreign_key_check").isEmpty)
    }

    @Test func automaticConversionsOfTheClinicsValues() throws {
        // fee decimal(2) -> decimal(1) loses cents: refused; decimal(2) -> double keeps them (101.05 as a REAL).
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 2)
        let visit = ClinicFamily.v2[type: "Visit"]!
        func v3(fee: PropertyType, closed: PropertyType = .bool, at: PropertyType = .date) throws -> Schema {
            try Self.schema(
                3,
                replacing: [
                    ObjectSchema(
                        "Visit",
                        visit.properties.map { p in
                            switch p.name {
                            case "fee": Property("fee", fee, default: 0)
                            case "closed": Property("closed", closed, default: 0)
                            case "at": Property("at", at, optional: true)
                            default: p
                            }
                        })
                ] + [ClinicFamily.v2[type: "Patient"]!], removing: ["CareTeam"])
        }
        let lossy = Self.outcome(
            Self.family(3, MigrationStep("fee in tenths"), schema: try v3(fee: .decimal(scale: 1))), path)
        #expect(lossy.contains("Visit.fee") && lossy.contains("--allow-loss Visit.fee"), "\(lossy)")
        let kinds = Self.outcome(
            Self.family(3, MigrationStep("fee as double, at as text"), schema: try v3(fee: .double, at: .string)), path)
        #expect(kinds.contains("--allow-loss Visit.fee") && kinds.contains("--allow-loss Visit.at"), "\(kinds)")
        // Allowed, the conversions keep every value they can; bool -> int8 widens without asking.
        let text = Self.outcome(
            Self.family(
                3, MigrationStep("fee as double, closed as int8, at as text"),
                schema: try v3(fee: .double, closed: .int8, at: .string)),
            path,
            options: MigrationOptions(
                allowances: MigrationAllowance.loss(of: "Visit.fee") + MigrationAllowance.loss(of: "Visit.at")))
        #expect(text == "applied", "\(text)")
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT fee, closed, at FROM Visit WHERE id = 10").map { $0.map { "\($0)" } } == [
                ["101.05", "1", "2023-11-15T08:13:20.000Z"]
            ])
    }

    @Test func aPropertyMovedIntoAnEmbeddedObjectWithoutAClosureIsRefused() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 3)
        let v3 = ClinicFamily.v3
        let v4 = try Self.schema(
            4,
            replacing: [
                ClinicFamily.v4[type: "Address"]!,
                ObjectSchema("Patient", v3[type: "Patient"]!.properties.filter { $0.name != "phone" }),
            ])
        let text = Self.outcome(Self.family(4, MigrationStep("phone into the address"), schema: v4), path)
        #expect(text.contains("Patient.phone") && text.contains("--allow-loss Patient.phone"), "\(text)")
    }

    @Test func aClosureLinkingToAKeyThatDoesNotExistFailsNamingTheLink() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let step = MigrationStep("Doctor renamed Clinician, with a typo in the links") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create(
                    "Clinician",
                    value: [
                        "code": .string("D\(old["id"].intValue ?? 0)"), "name": old["name"],
                        "specialty": .int(ClinicFamily.specialtyCode(old["specialty"].stringValue)),
                    ])
            }
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let d) = old["doctor"] {
                    new["clinician"] = .link(LinkTarget(type: "Clinician", key: .string("D0\(d.key.intValue ?? 0)")))
                }
            }
            try m.enumerateObjects(ofType: "Patient") { old, new in
                if case .list(let d) = old["doctors"] {
                    new["clinicians"] = .list(d.map(ClinicFamily.clinicianLinkForTests))
                }
            }
        }
        let text = Self.outcome(Self.family(1, step), path)
        #expect(text.contains("Visit") && text.contains("clinician"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }
}

extension ClinicMistakeTests {
    @Test func duplicateKeysFromAKeyChangeNameTheTypeAndKey() throws {
        let dir = try Fixture.directory()
        let path = try Self.file(dir, at: 3)
        let before = try Fixture.dump(path)
        var step = ClinicFamily.steps[3]
        let real = step.migration!
        step.migration = { m in
            try real(m)
            // A second pass keyed by first name: "Ana Souza" and "Ana Souza 5" both become "Ana".
            try m.enumerateObjects(ofType: "Patient") { old, new in
                new["id"] = .string(String((old["name"].stringValue ?? "").split(separator: " ").first ?? ""))
            }
        }
        let text = Self.outcome(Self.family(4, step), path)
        #expect(text.contains("Patient") && text.contains("Ana") && !text.contains("_urna_new_"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }
}
