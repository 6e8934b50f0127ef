import UrnaMigrator
import UrnaStore

/// The `people` family: seed 000's migration example ("Migração"), exactly.
///
/// - v0: `Person(firstName, lastName, age)`. (The seed's listing declares `firstName` twice; the
///   text and the migration block make clear the second one is `lastName`.)
/// - v1: `Person(fullName, age)`: `fullName = "<firstName> <lastName>"`; first and last name dropped.
/// - v2: `Person(fullName, email, age)`: `email` added, empty.
///
/// Written in Realm's single-block form, as the seed writes it: one block, told the file's version,
/// upgrades a v0 or v1 file straight to the target in one step.
public enum People {
    public static let v0 = schema(
        0,
        [
            Property("firstName", .string, default: ""),
            Property("lastName", .string, default: ""),
            Property("age", .int64, default: 0),
        ])

    public static let v1 = schema(
        1,
        [
            Property("fullName", .string, default: ""),  // new property
            Property("age", .int64, default: 0),
        ])

    public static let v2 = schema(
        2,
        [
            Property("fullName", .string, default: ""),
            Property("email", .string, default: ""),  // new property
            Property("age", .int64, default: 0),
        ])

    /// Seed 000's `migrationBlock`, line for line (Realm's `oldObject!["firstName"] as! String`
    /// becomes `oldObject["firstName"].stringValue`).
    public static let migrationBlock: MigrationBlock = { migration, oldSchemaVersion in
        // The enumerateObjects:block: method iterates
        // over every 'Person' object stored in the file
        try migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
            // Add the `fullName` property only to files with a schema version of 0
            if oldSchemaVersion < 1 {
                let firstName = oldObject["firstName"].stringValue ?? ""
                let lastName = oldObject["lastName"].stringValue ?? ""
                newObject["fullName"] = .string("\(firstName) \(lastName)")
            }

            // Add the `email` property to files with a schema version of 0 or 1
            // (unless the upgrade stops at version 1, which Realm could not do)
            if oldSchemaVersion < 2 && migration.newSchemaVersion >= 2 {
                newObject["email"] = ""
            }
        }
    }

    public static let family = SchemaFamily(
        name: "people",
        versions: [
            SchemaVersion(v0),
            SchemaVersion(
                v1, step: MigrationStep("fullName = firstName + \" \" + lastName; first and last name dropped")),
            SchemaVersion(v2, step: MigrationStep("email added, empty")),
        ],
        migrationBlock: migrationBlock)

    static func schema(_ version: Int, _ properties: [Property]) -> Schema {
        do {
            return try Schema(family: "people", version: version, types: [ObjectSchema("Person", properties)])
        } catch {
            preconditionFailure("people v\(version) is invalid: \(error)")
        }
    }
}
