import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Slips of the clinic's developer (issue 14's third trial): an edited shipped version, a misspelt type in a
/// closure, a value of the wrong kind, an optional made required with no closure.
@Suite struct ClinicSlipTests {
    @Test func anEditedShippedVersionIsRefusedAsDrift() throws {
        let dir = try Fixture.directory()
        let path = try ClinicMistakeTests.file(dir, at: 2)
        let before = try Fixture.dump(path)
        // v2's Patient.status default edited from "active" to "open" after files were made at v2.
        let patient = ClinicFamily.v2[type: "Patient"]!
        let edited = try ClinicMistakeTests.schema(
            2,
            replacing: [
                ObjectSchema(
                    "Patient",
                    patient.properties.map { p in
                        p.name == "status" ? Property("status", .string, default: "open", indexed: true) : p
                    })
            ])
        var versions = ClinicFamily.family.versions
        versions[2] = SchemaVersion(edited, step: versions[2].step)
        let text = ClinicMistakeTests.outcome(SchemaFamily(name: "clinic", versions: versions), path)
        #expect(text.contains("Patient") && text.contains("status"), "\(text)")
        #expect(text != "applied")
        #expect(try Fixture.dump(path) == before)
    }

    @Test func aMisspeltTypeOrAValueOfTheWrongKindInAClosureIsNamed() throws {
        let dir = try Fixture.directory()
        let path = try ClinicMistakeTests.file(dir, at: 0)
        let before = try Fixture.dump(path)
        let misspelt = MigrationStep("Doctors") { m in try m.enumerateObjects(ofType: "Doctors") { _, _ in } }
        let text = ClinicMistakeTests.outcome(ClinicMistakeTests.family(1, misspelt), path)
        #expect(text.contains("'Doctors'"), "\(text)")
        let real = ClinicFamily.steps[0].migration!
        let wrongKind = MigrationStep("specialty as text") { m in
            try real(m)
            try m.enumerateObjects(ofType: "Patient") { _, new in new["smoker"] = .string("no") }
        }
        let text2 = ClinicMistakeTests.outcome(ClinicMistakeTests.family(1, wrongKind), path)
        #expect(text2.contains("smoker") && text2 != "applied", "\(text2)")
        #expect(try Fixture.dump(path) == before)
    }

    @Test func anOptionalMadeRequiredWithoutAClosureOrDefaultIsRefusedAtPlan() throws {
        let dir = try Fixture.directory()
        let path = try ClinicMistakeTests.file(dir, at: 1)
        let visit = ClinicFamily.v1[type: "Visit"]!
        let v2 = try Schema(
            family: "clinic", version: 2,
            types: ClinicFamily.v1.types.map { t in
                t.name != "Visit"
                    ? t
                    : ObjectSchema(
                        "Visit",
                        visit.properties.map { p in p.name == "diagnosis" ? Property("diagnosis", .string) : p })
            })
        let m = Migrator(family: ClinicMistakeTests.family(2, MigrationStep("diagnosis required"), schema: v2))
        #expect {
            _ = try m.plan(path: path)
        } throws: { error in
            "\(error)".contains("Visit.diagnosis") && "\(error)".contains("--allow-loss Visit.diagnosis")
        }
        // Allowed, the nils become "" and every diagnosis that was there stays.
        let allowed = Migrator(
            family: ClinicMistakeTests.family(2, MigrationStep("diagnosis required"), schema: v2),
            options: MigrationOptions(allowances: MigrationAllowance.loss(of: "Visit.diagnosis")))
        _ = try allowed.run(try allowed.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(try c.integer("SELECT count(*) FROM Visit WHERE diagnosis = ''") == 6)
        #expect(try c.integer("SELECT count(*) FROM Visit WHERE diagnosis LIKE 'J0%'") == 6)
    }
}

extension ClinicSlipTests {
    /// A clinic file an older app wrote by hand at v3's shape, its own way (no NOT NULL, no _urna tables).
    static func handMadeV3(_ path: String) throws {
        let c = try Connection(path: path)
        try c.execute(
            """
            CREATE TABLE Clinician(code TEXT PRIMARY KEY, name TEXT, specialty INTEGER);
            CREATE TABLE Patient(id INTEGER PRIMARY KEY, name TEXT, birth TEXT, phone TEXT, smoker INTEGER, photo BLOB,
              status TEXT, address TEXT, "primary" TEXT REFERENCES Clinician(code));
            CREATE TABLE Visit(id INTEGER PRIMARY KEY, patient INTEGER REFERENCES Patient(id), at TEXT, fee INTEGER,
              diagnosis TEXT, closed INTEGER, clinician TEXT REFERENCES Clinician(code), drug TEXT, doses INTEGER);
            CREATE TABLE CareTeam(id TEXT PRIMARY KEY, patient INTEGER, clinician TEXT, role TEXT);
            INSERT INTO Clinician VALUES ('D1', 'Dr. Ana', 0);
            INSERT INTO Patient VALUES (1, 'Ana Souza', NULL, '+55 11 1', 0, NULL, 'active', NULL, 'D1');
            INSERT INTO Visit VALUES (10, 1, NULL, 15000, 'J01', 1, 'D1', 'aspirin', 2);
            INSERT INTO CareTeam VALUES ('1/D1', 1, 'D1', 'primary');
            """)
    }

    @Test func anAdoptionIsInTheLedgerWithTheAppsVersion() throws {
        let dir = try Fixture.directory()
        let path = dir.file("legacy.sqlite")
        try Self.handMadeV3(path)
        var options = MigrationOptions()
        options.appVersion = "clinic-app 1.0 (urna test)"
        let m = Migrator(family: ClinicFamily.family, options: options)
        _ = try m.adopt(path: path, version: 3)
        _ = try m.run(try m.plan(path: path), backup: .none)
        let c = try Connection(path: path, readOnly: true, create: false)
        #expect(
            try c.rows("SELECT from_version, to_version, outcome, app_version FROM _urna_history ORDER BY id").map {
                $0.map { "\($0)" }.joined(separator: " ")
            } == ["3 3 adopted clinic-app 1.0 (urna test)", "3 4 applied clinic-app 1.0 (urna test)"])
        #expect(
            try c.rows("SELECT id, address FROM Patient").map { "\($0[0]) \($0[1])" } == [#"P1 {"city":"","phone":"+55 11 1","street":""}"#])
    }
}

extension ClinicSlipTests {
    /// An embedded object a closure writes with a property its type lacks (a typo: `phnoe`) would keep the value
    /// in the JSON where nothing reads it: the run fails naming it, and the file keeps its phones.
    @Test func anEmbeddedPropertyTheTypeLacksIsRefused() throws {
        let dir = try Fixture.directory()
        let path = try ClinicMistakeTests.file(dir, at: 3)
        let before = try Fixture.dump(path)
        let step = MigrationStep("phone into the address, misspelt") { m in
            try m.enumerateObjects(ofType: "Patient") { old, new in
                new["id"] = .string("P\(old["id"].intValue ?? 0)")
                if let phone = old["phone"].stringValue, !phone.isEmpty {
                    new["address"] = .embedded(["phnoe": .string(phone)])
                }
            }
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let c) = old["clinician"] { new["clinicians"] = .list([c]) }
            }
        }
        let text = ClinicMistakeTests.outcome(ClinicMistakeTests.family(4, step), path)
        #expect(text.contains("phnoe") && text.contains("Address"), "\(text)")
        #expect(try Fixture.dump(path) == before)
    }
}
