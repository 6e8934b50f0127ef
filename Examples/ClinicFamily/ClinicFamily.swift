import Foundation
import UrnaMigrator
import UrnaStore

/// A third app's own schema family, as a clinic's developer writes one (issue 14's third trial): optional links,
/// an embedded address, inverse links, dates, data, decimals, bools, enum-like strings, indexes, and steps that
/// rename and change a type at once, merge a type into another, turn a list into a join type and a link into a
/// list, change a key with incoming links and move a property into an embedded object.
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Patient(id, name indexed, birth?, phone?, smoker, photo?, status "active", address?, doctors [Doctor], visits ← Visit.patient), Doctor(id, name, specialty "general"), Visit(id, patient →, doctor →, at?, fee decimal(2), diagnosis?, closed), Prescription(id, visit →, drug, doses) | — |
/// | 1 | Doctor renamed Clinician and keyed by code "D<id>", specialty as an int8 code; Visit.doctor → Visit.clinician; Patient.doctors → Patient.clinicians | yes |
/// | 2 | Prescription merged into Visit (drug, doses); Patient.phone required with a default; Visit.diagnosis required (nils become "") | yes |
/// | 3 | Patient.clinicians list → CareTeam join type (patient, clinician, role); Patient.primary link (the first) | yes |
/// | 4 | Patient keyed by "P<id>" (Visit.patient, CareTeam.patient, primary follow); Visit.clinician link → Visit.clinicians list; Patient.phone moves into address.phone | yes |
public enum ClinicFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do {
            return try Schema(family: "clinic", version: version, types: types)
        } catch {
            preconditionFailure("clinic v\(version) is invalid: \(error)")
        }
    }

    static let address = ObjectSchema(
        "Address", embedded: true, [Property("street", .string, default: ""), Property("city", .string, default: "")])
    static let addressWithPhone = ObjectSchema(
        "Address", embedded: true,
        [
            Property("street", .string, default: ""), Property("city", .string, default: ""),
            Property("phone", .string, optional: true),
        ])

    static func patient(key: PropertyType = .int64, phone: Property?, links: [Property]) -> ObjectSchema {
        ObjectSchema(
            "Patient",
            [
                Property("id", key, primaryKey: true), Property("name", .string, default: "", indexed: true),
                Property("birth", .date, optional: true),
            ] + (phone.map { [$0] } ?? [])
                + [
                    Property("smoker", .bool, default: false), Property("photo", .data, optional: true),
                    Property("status", .string, default: "active", indexed: true),
                    Property("address", .embedded("Address"), optional: true),
                ] + links + [Property("visits", .linkingObjects(type: "Visit", property: "patient"))])
    }

    static func visit(_ extra: [Property], diagnosisOptional: Bool = true) -> ObjectSchema {
        ObjectSchema(
            "Visit",
            [
                Property("id", .int64, primaryKey: true), Property("patient", .link("Patient")),
                Property("at", .date, optional: true), Property("fee", .decimal(scale: 2), default: 0),
                diagnosisOptional
                    ? Property("diagnosis", .string, optional: true) : Property("diagnosis", .string),
                Property("closed", .bool, default: false),
            ] + extra)
    }

    static let clinician = ObjectSchema(
        "Clinician",
        [
            Property("code", .string, primaryKey: true), Property("name", .string, default: ""),
            Property("specialty", .int8, default: 0),
        ])

    static let optionalPhone = Property("phone", .string, optional: true)
    static let requiredPhone = Property("phone", .string, default: "")

    public static let v0 = schema(
        0,
        [
            address,
            patient(phone: optionalPhone, links: [Property("doctors", .list("Doctor"))]),
            ObjectSchema(
                "Doctor",
                [
                    Property("id", .int64, primaryKey: true), Property("name", .string, default: ""),
                    Property("specialty", .string, default: "general"),
                ]),
            visit([Property("doctor", .link("Doctor"))]),
            ObjectSchema(
                "Prescription",
                [
                    Property("id", .int64, primaryKey: true), Property("visit", .link("Visit")),
                    Property("drug", .string, default: ""), Property("doses", .int32, default: 1),
                ]),
        ])

    public static let v1 = schema(
        1,
        [
            address, patient(phone: optionalPhone, links: [Property("clinicians", .list("Clinician"))]),
            clinician, visit([Property("clinician", .link("Clinician"))]), v0[type: "Prescription"]!,
        ])

    static let mergedVisit = visit(
        [
            Property("clinician", .link("Clinician")), Property("drug", .string, optional: true),
            Property("doses", .int64, default: 0),
        ], diagnosisOptional: false)

    public static let v2 = schema(
        2,
        [
            address, patient(phone: requiredPhone, links: [Property("clinicians", .list("Clinician"))]), clinician,
            mergedVisit,
        ])

    static let careTeam = ObjectSchema(
        "CareTeam",
        [
            Property("id", .string, primaryKey: true), Property("patient", .link("Patient")),
            Property("clinician", .link("Clinician")), Property("role", .string, default: "member", indexed: true),
        ])

    public static let v3 = schema(
        3,
        [
            address, patient(phone: requiredPhone, links: [Property("primary", .link("Clinician"))]), clinician,
            mergedVisit, careTeam,
        ])

    public static let v4 = schema(
        4,
        [
            addressWithPhone, patient(key: .string, phone: nil, links: [Property("primary", .link("Clinician"))]),
            clinician,
            visit(
                [
                    Property("clinicians", .list("Clinician")), Property("drug", .string, optional: true),
                    Property("doses", .int64, default: 0),
                ], diagnosisOptional: false),
            careTeam,
        ])

    /// The code v1 gives a v0 specialty ("general" 0, "cardiology" 1, "pediatrics" 2, anything else 9).
    public static func specialtyCode(_ s: String?) -> Int64 {
        switch s {
        case "general": 0
        case "cardiology": 1
        case "pediatrics": 2
        default: 9
        }
    }
}
