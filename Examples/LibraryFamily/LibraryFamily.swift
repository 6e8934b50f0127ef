import Foundation
import UrnaMigrator
import UrnaStore

/// An app's own schema family, as an app developer writes one: a small library catalogue. It exercises what
/// an own family needs from the migrator and the command line (tests, `library-app`, urna-bench).
///
/// | version | change | closure |
/// |---|---|---|
/// | 0 | Author(id Int64, fullName, born?), Tag(name), Book(id, title, author → Author, tags [Tag], price Double), Shelf(name, books [Book]) | — |
/// | 1 | Author.fullName renamed name | — (declared rename) |
/// | 2 | Author keyed by a string "A<id>" instead of an Int64; Book.author follows | yes |
/// | 3 | Book.price as exact cents (`decimal(2)`) instead of a Double: lossy, so rounded by a closure | yes |
/// | 4 | Author split: born moves to a new type Biography(id = the author's key, born) | yes |
public enum LibraryFamily {
    static func schema(_ version: Int, _ types: [ObjectSchema]) -> Schema {
        do {
            return try Schema(family: "library", version: version, types: types)
        } catch {
            preconditionFailure("library v\(version) is invalid: \(error)")
        }
    }

    static let tag = ObjectSchema("Tag", [Property("name", .string, primaryKey: true)])
    static let shelf = ObjectSchema(
        "Shelf", [Property("name", .string, primaryKey: true), Property("books", .list("Book"))])

    static func book(price: PropertyType) -> ObjectSchema {
        ObjectSchema(
            "Book",
            [
                Property("id", .int64, primaryKey: true), Property("title", .string, default: ""),
                Property("author", .link("Author")), Property("tags", .list("Tag")),
                Property("price", price, default: 0),
            ])
    }

    public static let v0 = schema(
        0,
        [
            ObjectSchema(
                "Author",
                [
                    Property("id", .int64, primaryKey: true), Property("fullName", .string, default: ""),
                    Property("born", .int64, optional: true),
                ]),
            tag, book(price: .double), shelf,
        ])

    public static let v1 = schema(
        1,
        [
            ObjectSchema(
                "Author",
                [
                    Property("id", .int64, primaryKey: true), Property("name", .string, default: ""),
                    Property("born", .int64, optional: true),
                ]),
            tag, book(price: .double), shelf,
        ])

    public static let v2 = schema(
        2,
        [
            ObjectSchema(
                "Author",
                [
                    Property("id", .string, primaryKey: true), Property("name", .string, default: ""),
                    Property("born", .int64, optional: true),
                ]),
            tag, book(price: .double), shelf,
        ])

    public static let v3 = schema(
        3,
        [
            ObjectSchema(
                "Author",
                [
                    Property("id", .string, primaryKey: true), Property("name", .string, default: ""),
                    Property("born", .int64, optional: true),
                ]),
            tag, book(price: .decimal(scale: 2)), shelf,
        ])

    public static let v4 = schema(
        4,
        [
            ObjectSchema(
                "Author", [Property("id", .string, primaryKey: true), Property("name", .string, default: "")]),
            ObjectSchema(
                "Biography", [Property("id", .string, primaryKey: true), Property("born", .int64, optional: true)]),
            tag, book(price: .decimal(scale: 2)), shelf,
        ])

    /// The four steps, each as the app would write it.
    public static let steps: [MigrationStep] = [
        MigrationStep(
            "Author.fullName renamed name", renames: [PropertyRename(type: "Author", from: "fullName", to: "name")]),
        MigrationStep("authors keyed by \"A<id>\"") { m in
            try m.enumerateObjects(ofType: "Author") { old, new in
                new["id"] = .string("A\(old["id"].intValue ?? 0)")
            }
        },
        MigrationStep("prices as exact cents") { m in
            // Rounded to whole cents half away from zero; `.decimal(units:scale:)` builds the exact value
            // without formatting text (String(format:) + Decimal(string:) cost some 1.7 µs a book on Linux).
            try m.enumerateObjects(ofType: "Book") { old, new in
                // A price too big for 64-bit cents (1e17, infinity) stops the run with its book named: a plain
                // Int64(...) would trap, taking the process down.
                let d = old["price"].doubleValue ?? 0
                guard let cents = Int64(exactly: (d * 100).rounded()) else {
                    throw PriceOutOfRange(book: old["id"].intValue, price: d)
                }
                new["price"] = .decimal(units: cents, scale: 2)
            }
        },
        MigrationStep("born moves to Biography") { m in
            try m.enumerateObjects(ofType: "Author") { old, _ in
                guard case .int(let born) = old["born"] else { return }
                _ = try m.create("Biography", value: ["id": old["id"], "born": .int(born)])
            }
        },
    ]

    /// A v0 price that whole cents in 64 bits cannot hold.
    public struct PriceOutOfRange: Error, CustomStringConvertible {
        public let book: Int64?
        public let price: Double
        public var description: String {
            "Book \(book.map(String.init) ?? "?") has price \(price), too big for exact cents: correct it, then migrate again"
        }
    }

    /// The family, v0 to v4.
    public static let family = SchemaFamily(
        name: "library",
        versions: [
            SchemaVersion(v0), SchemaVersion(v1, step: steps[0]), SchemaVersion(v2, step: steps[1]),
            SchemaVersion(v3, step: steps[2]), SchemaVersion(v4, step: steps[3]),
        ])
}
