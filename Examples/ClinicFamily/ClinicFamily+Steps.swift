import Foundation
import UrnaMigrator
import UrnaStore

extension ClinicFamily {
    static func clinicianLink(doctor: LinkTarget) -> LinkTarget {
        LinkTarget(type: "Clinician", key: .string("D\(doctor.key.intValue ?? 0)"))
    }

    /// The v1 clinician a v0 doctor link becomes (for tests that write their own v1 step).
    public static func clinicianLinkForTests(_ doctor: LinkTarget) -> LinkTarget { clinicianLink(doctor: doctor) }

    /// The four steps, each as the app would write it.
    public static let steps: [MigrationStep] = [
        MigrationStep("Doctor renamed Clinician, keyed by code, specialty as a code") { m in
            try m.enumerateObjects(ofType: "Doctor") { old, _ in
                try m.create(
                    "Clinician",
                    value: [
                        "code": .string("D\(old["id"].intValue ?? 0)"), "name": old["name"],
                        "specialty": .int(specialtyCode(old["specialty"].stringValue)),
                    ])
            }
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let doctor) = old["doctor"] { new["clinician"] = .link(clinicianLink(doctor: doctor)) }
            }
            try m.enumerateObjects(ofType: "Patient") { old, new in
                if case .list(let doctors) = old["doctors"] { new["clinicians"] = .list(doctors.map(clinicianLink)) }
            }
        },
        MigrationStep(
            "Prescription merged into Visit; phone and diagnosis required",
            // A prescription's own id and the prescription without a visit are dropped on purpose.
            allowances: [
                .nullsBecomeDefault(type: "Visit", property: "diagnosis"), .discardType(type: "Prescription"),
            ]
        ) { m in
            try m.enumerateObjects(ofType: "Visit") { _, _ in }
            try m.enumerateObjects(ofType: "Prescription") { old, _ in
                guard case .link(let v) = old["visit"],
                    let visit = try m.newObject(ofType: "Visit", oldPrimaryKey: v.key)
                else { return }
                let drug = old["drug"].stringValue ?? ""
                visit["drug"] = .string(visit["drug"].stringValue.map { "\($0); \(drug)" } ?? drug)
                visit["doses"] = .int((visit["doses"].intValue ?? 0) + (old["doses"].intValue ?? 0))
            }
        },
        MigrationStep("Patient.clinicians becomes CareTeam; the first is primary") { m in
            try m.enumerateObjects(ofType: "Patient") { old, new in
                guard case .list(let clinicians) = old["clinicians"] else { return }
                var seen: Set<LinkTarget> = []
                for c in clinicians where seen.insert(c).inserted {
                    try m.create(
                        "CareTeam",
                        value: [
                            "id": .string("\(old["id"].intValue ?? 0)/\(c.key.stringValue ?? "")"),
                            "patient": new.link, "clinician": .link(c),
                            "role": .string(seen.count == 1 ? "primary" : "member"),
                        ])
                }
                if let first = clinicians.first { new["primary"] = .link(first) }
            }
        },
        MigrationStep("Patient keyed by P<id>; a visit's clinician becomes a list; phone into the address") { m in
            try m.enumerateObjects(ofType: "Patient") { old, new in
                new["id"] = .string("P\(old["id"].intValue ?? 0)")
                var address: [String: Value] = [:]
                if case .embedded(let a) = old["address"] { address = a }
                if let phone = old["phone"].stringValue, !phone.isEmpty { address["phone"] = .string(phone) }
                new["address"] = address.isEmpty ? .null : .embedded(address)
            }
            try m.enumerateObjects(ofType: "Visit") { old, new in
                if case .link(let c) = old["clinician"] { new["clinicians"] = .list([c]) }
            }
        },
    ]

    /// The family, v0 to v4.
    public static let family = SchemaFamily(
        name: "clinic",
        versions: [
            SchemaVersion(v0), SchemaVersion(v1, step: steps[0]), SchemaVersion(v2, step: steps[1]),
            SchemaVersion(v3, step: steps[2]), SchemaVersion(v4, step: steps[3]),
        ])

    /// The family as shipped after squashing v0-v1 into a v2 baseline.
    public static var squashed: SchemaFamily {
        SchemaFamily(
            name: "clinic", versions: family.versions.filter { $0.version >= 2 }, minimumVersion: 2,
            olderFilesAdvice: "open it once with clinic-app 1.x, which upgrades it to version 2")
    }

    /// Writes a v0 file as the app fills it: `patients` patients (unicode names, some nils), three doctors, two
    /// visits per patient (the second without a doctor), one or two prescriptions per first visit, one orphan
    /// prescription (no visit).
    public static func fillV0(at path: String, patients: Int = 6) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            let specialties = ["general", "cardiology", "Pediatrics"]
            let doctors = try (1...3).map { i in
                try store.create(
                    "Doctor",
                    value: ["id": i, "name": "Dr. \(["Ana", "João", "Zoë"][i - 1])", "specialty": specialties[i - 1]])
            }
            for i in 1...patients {
                var p: [String: Any] = [
                    "id": i, "name": patientName(i), "smoker": i % 2 == 0,
                    "status": i % 4 == 0 ? "archived" : "active",
                    "doctors": i % 3 == 0 ? [] : [doctors[i % 3], doctors[(i + 1) % 3]],
                ]
                if i % 3 != 0 { p["birth"] = Date(timeIntervalSince1970: Double(i) * 86_400 * 3_000) }
                if i % 2 == 1 { p["phone"] = "+55 11 9\(1000 + i)" }
                if i % 5 != 0 { p["photo"] = Data([0, 1, 2, UInt8(i % 256)]) }
                if i % 2 == 0 { p["address"] = ["street": "Rua \(i)", "city": "São Paulo"] }
                let patient = try store.create("Patient", value: p)
                for j in 0..<2 {
                    var v: [String: Any] = [
                        "id": i * 10 + j, "patient": patient, "fee": Decimal(string: "\(100 + i).\(j)5")!,
                        "closed": j == 0, "at": Date(timeIntervalSince1970: 1_700_000_000 + Double(i * 10 + j) * 3600),
                    ]
                    if j == 0 { v["doctor"] = doctors[i % 3] }
                    if i % 2 == 0 { v["diagnosis"] = "J0\(i)" }
                    let visit = try store.create("Visit", value: v)
                    if j == 0 {
                        for k in 0..<(1 + i % 2) {
                            try store.create(
                                "Prescription",
                                value: ["id": i * 100 + k, "visit": visit, "drug": "drug \(i)-\(k)", "doses": k + 1]
                                    as [String: Any])
                        }
                    }
                }
            }
            try store.create("Prescription", value: ["id": 9_999, "drug": "orphan", "doses": 3])
        }
    }

    /// The name of patient `i` in `fillV0` files.
    public static func patientName(_ i: Int) -> String {
        ["Ana Souza", "José Lima", "Maria da Conceição", "Zoë O'Brien"][(i - 1) % 4] + (i > 4 ? " \(i)" : "")
    }
}
