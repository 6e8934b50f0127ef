import UrnaMigrator
import UrnaStore

/// Every schema family this program knows: the history of each file format, as data and closures.
///
/// ```swift
/// guard let family = SchemaFamilies.named("elections") else { ... }
/// let migrator = Migrator(family: family)
/// ```
public enum SchemaFamilies {
    /// Seed 000's migration example (see `People`).
    public static let people = People.family
    /// Seed 000's iElections model grown to real TSE data (see `Elections`).
    public static let elections = Elections.family

    public static let all: [SchemaFamily] = [people, elections]

    /// The family with this name, or nil.
    public static func named(_ name: String) -> SchemaFamily? { all.first { $0.name == name } }

    /// The registry of every family (finds a file's migrator by what the file records).
    public static let registry = FamilyRegistry(all)
}
