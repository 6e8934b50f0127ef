import Foundation

/// A view that belongs to a schema version: part of the file format, created with the tables and
/// recreated by the migrator from code.
///
/// The descriptor a file records keeps the view's name, description, column descriptions and a checksum
/// of its SQL, never the SQL itself: the statement that creates it always comes from this code, so a file
/// cannot make the program run SQL it carries.
///
/// ```swift
/// SchemaView("titles", "one row per book", columns: [("TITLE", "the title")],
///            sql: #"SELECT "title" AS TITLE FROM "Book""#)
/// ```
public struct SchemaView: Sendable, Hashable, Codable {
    public var name: String
    public var viewDescription: String
    /// The view's columns in order, each with what it holds (units included).
    public var columns: [Column]
    /// The SELECT the view runs (from code; empty in a schema decoded from a file).
    public var sql: String
    /// FNV-1a 64 of `sql`, hex: what a descriptor records.
    public var checksum: String
    /// The same SELECT for PostgreSQL's storage contract (dates as timestamptz, money as numeric), when the view
    /// has one; from code only: neither recorded nor part of the checksum. Nil: the view exists in SQLite files
    /// (and working copies) only.
    public var postgresSQL: String?

    public struct Column: Sendable, Hashable, Codable {
        public var name: String
        public var columnDescription: String
        /// The unit of a number ("R$", "years"), or nil.
        public var unit: String?

        public init(_ name: String, _ description: String, unit: String? = nil) {
            self.name = name
            self.columnDescription = description
            self.unit = unit
        }

        enum CodingKeys: String, CodingKey {
            case name
            case columnDescription = "description"
            case unit
        }
    }

    public init(_ name: String, _ description: String, columns: [Column], sql: String, postgresSQL: String? = nil) {
        self.name = name
        self.viewDescription = description
        self.columns = columns
        self.sql = sql
        self.checksum = SchemaView.checksum(of: sql)
        self.postgresSQL = postgresSQL
    }

    /// The statement that creates the view.
    public var createSQL: String { "CREATE VIEW \(Identifier.quoted(name)) AS\n\(sql)" }

    static func checksum(of sql: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in sql.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return String(h, radix: 16)
    }

    enum CodingKeys: String, CodingKey {
        case name
        case viewDescription = "description"
        case columns, checksum
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        viewDescription = try c.decode(String.self, forKey: .viewDescription)
        columns = try c.decode([Column].self, forKey: .columns)
        checksum = try c.decode(String.self, forKey: .checksum)
        sql = ""
        postgresSQL = nil
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(viewDescription, forKey: .viewDescription)
        try c.encode(columns, forKey: .columns)
        try c.encode(checksum, forKey: .checksum)
    }

    // Equal when the descriptor says the same: a decoded view has no SQL, only its checksum.
    public static func == (a: SchemaView, b: SchemaView) -> Bool {
        a.name == b.name && a.viewDescription == b.viewDescription && a.columns == b.columns
            && a.checksum == b.checksum
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(checksum)
    }
}
