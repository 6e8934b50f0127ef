import Foundation
import UrnaStore

/// The schema families a program knows, looked up by name (or by what a file records).
///
/// ```swift
/// let registry = FamilyRegistry([people, elections])
/// let migrator = try registry.migrator(forFileAt: "elections.sqlite")
/// ```
public struct FamilyRegistry: Sendable {
    public let families: [SchemaFamily]

    public init(_ families: [SchemaFamily]) { self.families = families }

    public var names: [String] { families.map(\.name) }

    public func family(named name: String) -> SchemaFamily? { families.first { $0.name == name } }

    /// The migrator for the family a file records; throws for missing files, files Urna didn't make,
    /// and families this program doesn't know.
    public func migrator(forFileAt path: String, reporter: MigrationReporter? = nil) throws -> Migrator {
        let recorded = try Self.recordedSchema(at: path)
        guard let f = family(named: recorded.family) else {
            throw MigrationError.unknownFamily(path: path, family: recorded.family, known: names)
        }
        return Migrator(family: f, reporter: reporter)
    }

    /// The schema a file records about itself (family, version, descriptor).
    public static func recordedSchema(at path: String) throws -> Schema {
        let c = try RecordedFile.open(path, readOnly: true)
        return try RecordedFile.schema(in: c, path: path)
    }
}
