import Foundation
import Testing
import UrnaMigrator
import UrnaStore

/// Inventory trial: mistakes in a step's declared renames are refused as the family's own problems, naming the
/// rename and the fix, before any file is read.
@Suite struct InventoryRenameDeclarationTests {
    typealias P = InventoryProbeTests

    static let a = [
        P.product([
            Property("sku", .string, primaryKey: true), Property("name", .string, default: ""),
            Property("title", .string, default: ""),
        ])
    ]
    static let b = [
        P.product([Property("sku", .string, primaryKey: true), Property("label", .string, default: "")])
    ]

    static func problems(_ renames: [PropertyRename], to b: [ObjectSchema] = b) -> [String] {
        P.family(a, b, MigrationStep(renames: renames)).problems()
    }

    @Test func twoRenamesOntoOneNameAreAProblem() {
        let found = Self.problems([
            PropertyRename(type: "Product", from: "name", to: "label"),
            PropertyRename(type: "Product", from: "title", to: "label"),
        ])
        #expect(
            found.contains {
                $0.contains("Product.name and Product.title are both renamed to label")
            }, "\(found)")
    }

    @Test func oneNameRenamedTwiceIsAProblem() {
        let b = [
            P.product([
                Property("sku", .string, primaryKey: true), Property("label", .string, default: ""),
                Property("caption", .string, default: ""),
            ])
        ]
        let found = Self.problems(
            [
                PropertyRename(type: "Product", from: "name", to: "label"),
                PropertyRename(type: "Product", from: "name", to: "caption"),
            ], to: b)
        #expect(found.contains { $0.contains("Product.name is renamed twice (to label and to caption)") }, "\(found)")
    }

    @Test func aRenameToAMisspeltNameSaysWhichNameItMeant() {
        let found = Self.problems([PropertyRename(type: "Product", from: "name", to: "Label")])
        #expect(
            found.contains { $0.contains("rename to Product.Label") && $0.contains("did you mean label?") }, "\(found)")
        let from = Self.problems([PropertyRename(type: "Product", from: "nmae", to: "label")])
        #expect(from.contains { $0.contains("rename of Product.nmae") && $0.contains("did you mean name?") }, "\(from)")
    }

    /// The migrator refuses such a family before reading the file, and the file keeps every value.
    @Test func theMigratorRefusesItAndTheFileIsUntouched() throws {
        let dir = try Fixture.directory()
        let path = try P.file(dir, Self.a, [["sku": "A", "name": "bolt", "title": "Bolt M8"]])
        let bytes = FileManager.default.contents(atPath: path)
        let family = P.family(
            Self.a, Self.b,
            MigrationStep(renames: [
                PropertyRename(type: "Product", from: "name", to: "label"),
                PropertyRename(type: "Product", from: "title", to: "label"),
            ]))
        let message = P.outcome { _ = try Migrator(family: family).plan(path: path) }
        #expect(message.contains("both renamed to label"), "\(message)")
        #expect(FileManager.default.contents(atPath: path) == bytes)
    }
}
