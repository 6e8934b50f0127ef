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

    /// A registry of these families (names must be unique).
    public init(_ families: [SchemaFamily]) { self.families = families }

    /// The families' names, in registration order.
    public var names: [String] { families.map(\.name) }

    /// The family with this name, or nil.
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

    /// A dry run of the file's upgrade by the family it records (`to` nil: the latest version). The
    /// family is read from the private copy, so the file itself is never opened, not even to read it.
    public func dryRun(
        path: String, to target: Int? = nil, sample: Int = 3, reporter: MigrationReporter? = nil,
        options: MigrationOptions = MigrationOptions()
    ) throws
        -> MigrationReport
    {
        let copy = try PreviewCopy(of: path)
        let recorded = try RecordedFile.schema(in: RecordedFile.open(copy.path, readOnly: true), path: path)
        guard let f = family(named: recorded.family) else {
            throw MigrationError.unknownFamily(path: path, family: recorded.family, known: names)
        }
        return try Migrator(family: f, reporter: reporter, options: options).dryRun(
            copy: copy, to: target, sample: sample)
    }

    /// The schema a file records about itself (family, version, descriptor).
    public static func recordedSchema(at path: String) throws -> Schema {
        let c = try RecordedFile.open(path, readOnly: true)
        return try RecordedFile.schema(in: c, path: path)
    }
}
