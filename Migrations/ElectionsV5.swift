import UrnaMigrator
import UrnaStore

/// The `elections` family at version 5: v4's types unchanged, plus the views an analyst
/// queries (`candidacies`, `goods`, `coalition_members`, see `ElectionsV5.views`), with TSE column names.
///
/// The views belong to the version: `urna init` and the importer create them, the migrator recreates them
/// from this code (the file records only their names, descriptions and a checksum of their SQL).
public enum ElectionsV5 {
    public static let version = 5

    /// The validated schema: `ElectionsV4`'s types and `views`.
    public static let schema: Schema = {
        do {
            return try Schema(family: "elections", version: version, types: ElectionsV4.schema.types, views: views)
        } catch {
            preconditionFailure("ElectionsV5 is invalid: \(error)")
        }
    }()

    /// v4 → v5: no table changes; the migrator creates the views from code at the end of the step.
    public static let step = MigrationStep("views for analysis: candidacies, goods, coalition_members")
}
