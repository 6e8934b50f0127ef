import Foundation
import UrnaMigrator
import UrnaStore

extension LibraryFamily {
    /// A v5 as an app developer might get it wrong: each one loses data unless allowed.
    public enum Mistake: String, Sendable, CaseIterable {
        /// `Author.name` retyped `nam`, no rename declared.
        case typo
        /// `Author.name` becomes `Name`, no rename declared.
        case caseChange = "case"
        /// `Book.isbn` added as a required string without a default.
        case requiredWithoutDefault = "required"
        /// `Shelf` removed (with its list of books).
        case removedType = "removed-type"
    }

    /// The family with a v5 that makes `mistake` (and, when given, the step's own renames and allowances).
    public static func with(
        _ mistake: Mistake, renames: [PropertyRename] = [], allowances: [MigrationAllowance] = []
    ) -> SchemaFamily {
        var types = v4.types.filter { $0.name != "Author" && $0.name != "Book" && $0.name != "Shelf" }
        var authorName = "name"
        var bookExtra: [Property] = []
        switch mistake {
        case .typo: authorName = "nam"
        case .caseChange: authorName = "Name"
        case .requiredWithoutDefault: bookExtra = [Property("isbn", .string)]
        case .removedType: break
        }
        types.append(
            ObjectSchema(
                "Author", [Property("id", .string, primaryKey: true), Property(authorName, .string, default: "")]))
        types.append(
            ObjectSchema(
                "Book",
                [
                    Property("id", .int64, primaryKey: true), Property("title", .string, default: ""),
                    Property("author", .link("Author")), Property("tags", .list("Tag")),
                    Property("price", .decimal(scale: 2), default: 0),
                ] + bookExtra))
        if mistake != .removedType { types.append(shelf) }
        let v5 = schema(5, types)
        return SchemaFamily(
            name: "library",
            versions: family.versions + [
                SchemaVersion(
                    v5, step: MigrationStep("v5 (\(mistake.rawValue))", renames: renames, allowances: allowances))
            ])
    }

    /// The advice a squashed library family gives files older than its baseline.
    public static let olderFilesAdvice = "open it once with library-app 1.x, which upgrades it to version 3, then run this one"

    /// The family as an app ships it after squashing v0-v2 into a v3 baseline: files at v0-v2 are refused with
    /// `olderFilesAdvice` (versions before the baseline are no longer declared).
    public static var squashed: SchemaFamily {
        SchemaFamily(
            name: "library", versions: family.versions.filter { $0.version >= 3 }, minimumVersion: 3,
            olderFilesAdvice: olderFilesAdvice)
    }

    /// Writes a v0 file the way an app would fill it: `authors` authors (every third without a birth year),
    /// two books per author with a tag each, one shelf holding the first books.
    public static func fillV0(at path: String, authors: Int = 3) throws {
        let store = try Store(path: path, schema: v0)
        try store.write {
            let fiction = try store.create("Tag", value: ["name": "fiction"])
            let poetry = try store.create("Tag", value: ["name": "poetry"])
            var shelved: [DynamicObject] = []
            for i in 1...authors {
                var author: [String: Any] = ["id": i, "fullName": authorName(i)]
                if i % 3 != 0 { author["born"] = 1900 + i }
                let a = try store.create("Author", value: author)
                for j in 0..<2 {
                    let b = try store.create(
                        "Book",
                        value: [
                            "id": i * 10 + j, "title": "Book \(i)-\(j)", "author": a,
                            "tags": [j == 0 ? fiction : poetry],
                            "price": Double(i) + 0.1 * Double(j + 1) + 0.004,
                        ] as [String: Any])
                    if shelved.count < 4 { shelved.append(b) }
                }
            }
            try store.create("Shelf", value: ["name": "front", "books": shelved] as [String: Any])
        }
    }

    /// The name of author `i` in `fillV0` files.
    public static func authorName(_ i: Int) -> String {
        ["Ana Souza", "José Lima", "Maria da Conceição"][(i - 1) % 3] + (i > 3 ? " \(i)" : "")
    }
}
