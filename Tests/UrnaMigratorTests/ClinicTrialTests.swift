import ClinicFamily
import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Issue 14's third app trial: the clinic family (a type renamed and changed at once, a type merged into
/// another, a list turned into a join type, a link turned into a list, a key change with incoming links and a
/// list, a property moved into an embedded object), checked with plain SQL.
@Suite struct ClinicTrialTests {
    static func v0File(_ dir: TemporaryDirectory, patients: Int = 6) throws -> String {
        let path = dir.file("clinic.sqlite")
        try ClinicFamily.fillV0(at: path, patients: patients)
        return path
    }

    static func strings(_ path: String, _ sql: String) throws -> [String] {
        try Connection(path: path, readOnly: true, create: false).rows(sql).map { row in
            row.map { v in
                switch v {
                case .null: "nil"
                case .integer(let i): "\(i)"
                case .real(let d): "\(d)"
                case .text(let t): t
                case .blob(let b): "\(b.count) bytes"
                }
            }.joined(separator: "|")
        }
    }

    @Test func theWholeHistoryKeepsEveryValue() throws {
        let dir = try Fixture.directory()
        let path = try Self.v0File(dir)
        let m = Migrator(family: ClinicFamily.family)
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.outcome == .applied)
        #expect(
            try Self.strings(path, "SELECT code, name, specialty FROM Clinician ORDER BY code") == [
                "D1|Dr. Ana|0", "D2|Dr. João|1", "D3|Dr. Zoë|9",
            ])
        #expect(
            try Self.strings(path, "SELECT id, name, status, hex(photo) FROM Patient ORDER BY id") == [
                "P1|Ana Souza|active|00010201", "P2|José Lima|active|00010202",
                "P3|Maria da Conceição|active|00010203", "P4|Zoë O'Brien|archived|00010204",
                "P5|Ana Souza 5|active|", "P6|José Lima 6|active|00010206",
            ])
        #expect(try Self.strings(path, "SELECT count(*) FROM Patient WHERE birth IS NOT NULL") == ["4"])
        // Odd patients had a phone: it moved into the address; even ones had an address and no phone.
        #expect(
            try Self.strings(
                path,
                "SELECT id, json_extract(address, '$.phone'), json_extract(address, '$.city') FROM Patient ORDER BY id")
                == [
                    "P1|+55 11 91001|", "P2|nil|São Paulo", "P3|+55 11 91003|", "P4|nil|São Paulo",
                    "P5|+55 11 91005|", "P6|nil|São Paulo",
                ])
        // Every visit follows its patient's new key; the first visit's doctor is its clinicians list.
        #expect(try Self.strings(path, "SELECT count(*) FROM Visit WHERE patient = 'P' || (id / 10)") == ["12"])
        #expect(
            try Self.strings(path, "SELECT owner, target FROM Visit_clinicians ORDER BY owner") == [
                "10|D2", "20|D3", "30|D1", "40|D2", "50|D3", "60|D1",
            ])
        // Prescriptions merged: odd patients' first visits had two.
        #expect(
            try Self.strings(path, "SELECT id, drug, doses FROM Visit WHERE drug IS NOT NULL ORDER BY id") == [
                "10|drug 1-0; drug 1-1|3", "20|drug 2-0|1", "30|drug 3-0; drug 3-1|3", "40|drug 4-0|1",
                "50|drug 5-0; drug 5-1|3", "60|drug 6-0|1",
            ])
        #expect(try Self.strings(path, "SELECT count(*) FROM Visit WHERE diagnosis = ''") == ["6"])
        #expect(try Self.strings(path, "SELECT sum(fee) FROM Visit") == ["124320"])
        // The doctors lists became CareTeam rows that follow the patients' new keys.
        #expect(
            try Self.strings(path, "SELECT id, patient, clinician, role FROM CareTeam ORDER BY id") == [
                "1/D2|P1|D2|primary", "1/D3|P1|D3|member", "2/D1|P2|D1|member", "2/D3|P2|D3|primary",
                "4/D2|P4|D2|primary", "4/D3|P4|D3|member", "5/D1|P5|D1|member", "5/D3|P5|D3|primary",
            ])
        #expect(
            try Self.strings(path, "SELECT id, \"primary\" FROM Patient ORDER BY id") == [
                "P1|D2", "P2|D3", "P3|nil", "P4|D2", "P5|D3", "P6|nil",
            ])
        let store = try Store(path: path, schema: ClinicFamily.v4)
        let p1 = try #require(try store.objects("Patient").filter("id == 'P1'").firstObject())
        #expect(try p1.linkingObjects("visits").count == 2)
    }

    @Test func theHarnessFindsEveryPathEqual() throws {
        let dir = try Fixture.directory()
        let harness = MigrationTestHarness(
            family: ClinicFamily.family, fixtures: [0: { try ClinicFamily.fillV0(at: $0) }])
        #expect(try harness.check(in: dir.path) == [])
    }

    @Test func aSquashedHistoryRefusesOlderFilesWithItsAdvice() throws {
        let dir = try Fixture.directory()
        let path = try Self.v0File(dir)
        let m = Migrator(family: ClinicFamily.squashed)
        #expect {
            _ = try m.plan(path: path)
        } throws: { error in
            "\(error)".contains("clinic-app 1.x") && "\(error)".contains("version 0")
        }
        let m2 = Migrator(family: ClinicFamily.family)
        _ = try m2.run(try m2.plan(path: path, to: 2), backup: .none)
        let report = try m.run(try m.plan(path: path), backup: .none)
        #expect(report.toVersion == 4)
        #expect(try Self.strings(path, "SELECT count(*) FROM CareTeam") == ["8"])
    }
}

extension ClinicTrialTests {
    /// What `ClinicFamily.fillV0(patients: 6)` becomes at v4, written fresh at v4 (the harness's latest fixture).
    static func fillV4(at path: String) throws {
        let store = try Store(path: path, schema: ClinicFamily.v4)
        try store.write {
            let clinicians = try (1...3).map { i in
                try store.create(
                    "Clinician",
                    value: [
                        "code": "D\(i)", "name": "Dr. \(["Ana", "João", "Zoë"][i - 1])", "specialty": [0, 1, 9][i - 1],
                    ])
            }
            for i in 1...6 {
                let doctors = i % 3 == 0 ? [] : [i % 3, (i + 1) % 3]
                var p: [String: Any] = [
                    "id": "P\(i)", "name": ClinicFamily.patientName(i), "smoker": i % 2 == 0,
                    "status": i % 4 == 0 ? "archived" : "active",
                    "address": i % 2 == 1
                        ? ["phone": "+55 11 9\(1000 + i)"] : ["street": "Rua \(i)", "city": "São Paulo"],
                ]
                if let first = doctors.first { p["primary"] = clinicians[first] }
                if i % 3 != 0 { p["birth"] = Date(timeIntervalSince1970: Double(i) * 86_400 * 3_000) }
                if i % 5 != 0 { p["photo"] = Data([0, 1, 2, UInt8(i % 256)]) }
                let patient = try store.create("Patient", value: p)
                for (k, d) in doctors.enumerated() {
                    try store.create(
                        "CareTeam",
                        value: [
                            "id": "\(i)/D\(d + 1)", "patient": patient, "clinician": clinicians[d],
                            "role": k == 0 ? "primary" : "member",
                        ]
                            as [String: Any])
                }
                for j in 0..<2 {
                    var v: [String: Any] = [
                        "id": i * 10 + j, "patient": patient, "fee": Decimal(string: "\(100 + i).\(j)5")!,
                        "closed": j == 0,
                        "at": Date(timeIntervalSince1970: 1_700_000_000 + Double(i * 10 + j) * 3600),
                        "diagnosis": i % 2 == 0 ? "J0\(i)" : "", "clinicians": j == 0 ? [clinicians[i % 3]] : [],
                    ]
                    if j == 0 {
                        v["drug"] = (0..<(1 + i % 2)).map { "drug \(i)-\($0)" }.joined(separator: "; ")
                        v["doses"] = (0..<(1 + i % 2)).reduce(0) { $0 + $1 + 1 }
                    }
                    try store.create("Visit", value: v)
                }
            }
        }
    }

    @Test func migratedEqualsFreshRowByRow() throws {
        let dir = try Fixture.directory()
        let harness = MigrationTestHarness(
            family: ClinicFamily.family,
            fixtures: [0: { try ClinicFamily.fillV0(at: $0) }, 4: { try Self.fillV4(at: $0) }])
        let problems = try harness.check(in: dir.path)
        #expect(problems == [], "\(problems)")
    }
}
