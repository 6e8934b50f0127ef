import Foundation
import UrnaMigrator
import UrnaStore

/// A fourth app's own schema family, as an ecologist's field app writes one (issue 14's fourth trial): UUID and
/// string keys, an embedded point, optional links and lists, dates, photo blobs, decimals, an index, a type
/// without a key, and seven versions that rename a type, widen then stringify a number, make optionals required
/// with and without a default, move a property between types, turn a list into a link and back, remove a type
/// and re-key a type with incoming list links.
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Observer(id login, name indexed, email?), Site(id uuid, code indexed, name, location GeoPoint?, elevation int?, habitat?, established date?), Visit(id, site →, at date?, observers [Observer], weather?, photo data?, cost decimal(2)), Sample(id "S-n", visit →, kind indexed, depth int, mass decimal(3)?), Tag(no key: label, visit →) | — |
/// | 1 | Sample renamed Specimen; Site.elevation int → double | yes |
/// | 2 | Site.elevation double → string; Observer.email required (default ""); Visit.weather required without a default (nils become ""); Specimen.depth int → double | — |
/// | 3 | Site.habitat moves to Visit.habitat (each visit takes its site's) | yes |
/// | 4 | Visit.observers list → Visit.leader link (the first observer); Tag removed | yes |
/// | 5 | Visit.leader link → Visit.team list; Specimen.depth double → string ("12.5") | yes |
/// | 6 | Observer keyed by its lower-cased login; Visit.team follows | yes |
public enum FieldworkFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do {
            return try Schema(family: "fieldwork", version: version, types: types)
        } catch {
            preconditionFailure("fieldwork v\(version) is invalid: \(error)")
        }
    }

    static let geoPoint = ObjectSchema(
        "GeoPoint", embedded: true, [Property("lat", .double, default: 0), Property("lon", .double, default: 0)])

    static func observer(email: Property) -> ObjectSchema {
        ObjectSchema(
            "Observer",
            [Property("id", .string, primaryKey: true), Property("name", .string, default: "", indexed: true), email])
    }

    static func site(elevation: PropertyType, habitat: Bool) -> ObjectSchema {
        ObjectSchema(
            "Site",
            [
                Property("id", .uuid, primaryKey: true), Property("code", .string, default: "", indexed: true),
                Property("name", .string, default: ""), Property("location", .embedded("GeoPoint"), optional: true),
                Property("elevation", elevation, optional: true),
            ] + (habitat ? [Property("habitat", .string, optional: true)] : [])
                + [Property("established", .date, optional: true)])
    }

    static func visit(weatherRequired: Bool, habitat: Bool, crew: Property) -> ObjectSchema {
        ObjectSchema(
            "Visit",
            [
                Property("id", .int64, primaryKey: true), Property("site", .link("Site")),
                Property("at", .date, optional: true), crew,
                weatherRequired
                    ? Property("weather", .string) : Property("weather", .string, optional: true),
                Property("photo", .data, optional: true), Property("cost", .decimal(scale: 2), default: 0),
            ] + (habitat ? [Property("habitat", .string, optional: true)] : []))
    }

    static func sample(_ name: String, depth: PropertyType) -> ObjectSchema {
        ObjectSchema(
            name,
            [
                Property("id", .string, primaryKey: true), Property("visit", .link("Visit")),
                Property("kind", .string, default: "soil", indexed: true), Property("depth", depth, default: 0),
                Property("mass", .decimal(scale: 3), optional: true),
            ])
    }

    static let tag = ObjectSchema("Tag", [Property("label", .string, default: ""), Property("visit", .link("Visit"))])
    static let optionalEmail = Property("email", .string, optional: true)
    static let requiredEmail = Property("email", .string, default: "")
    static let observers = Property("observers", .list("Observer"))

    public static let v0 = schema(
        0,
        [
            geoPoint, observer(email: optionalEmail), site(elevation: .int64, habitat: true),
            visit(weatherRequired: false, habitat: false, crew: observers), sample("Sample", depth: .int64), tag,
        ])

    public static let v1 = schema(
        1,
        [
            geoPoint, observer(email: optionalEmail), site(elevation: .double, habitat: true),
            visit(weatherRequired: false, habitat: false, crew: observers), sample("Specimen", depth: .int64), tag,
        ])

    public static let v2 = schema(
        2,
        [
            geoPoint, observer(email: requiredEmail), site(elevation: .string, habitat: true),
            visit(weatherRequired: true, habitat: false, crew: observers), sample("Specimen", depth: .double), tag,
        ])

    public static let v3 = schema(
        3,
        [
            geoPoint, observer(email: requiredEmail), site(elevation: .string, habitat: false),
            visit(weatherRequired: true, habitat: true, crew: observers), sample("Specimen", depth: .double), tag,
        ])

    public static let v4 = schema(
        4,
        [
            geoPoint, observer(email: requiredEmail), site(elevation: .string, habitat: false),
            visit(weatherRequired: true, habitat: true, crew: Property("leader", .link("Observer"))),
            sample("Specimen", depth: .double),
        ])

    public static let v5 = schema(
        5,
        [
            geoPoint, observer(email: requiredEmail), site(elevation: .string, habitat: false),
            visit(weatherRequired: true, habitat: true, crew: Property("team", .list("Observer"))),
            sample("Specimen", depth: .string),
        ])

    /// v6 has v5's types (the change is in the Observer keys' values).
    public static let v6 = schema(6, v5.types)
}
