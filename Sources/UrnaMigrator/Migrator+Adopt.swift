import Foundation
import UrnaStore

/// What adopting a plain SQLite file recorded.
public struct AdoptionReport: Sendable, Codable, Equatable {
    public let path: String
    public let family: String
    public let version: Int
    /// Objects per type found in the file (nothing was changed in them).
    public let counts: [String: Int]
    /// Tables of the file outside the family, left as they are.
    public let otherTables: [String]
}

extension Migrator {
    /// Brings a plain SQLite file (one Urna did not create) under version `version` of the family: when its
    /// tables match that version's storage contract column by column (types, NOT NULL, defaults, keys,
    /// foreign keys, indexes), records the family, version and descriptor in `_urna_schema`, an adoption row in
    /// `_urna_history` and `PRAGMA user_version`; nothing else changes. Otherwise throws `adoptionRefused`
    /// listing every difference (the file is untouched). Then `migrate` works on it.
    ///
    /// ```swift
    /// try Migrator(family: SchemaFamilies.people).adopt(path: "legacy.sqlite", version: 0)
    /// ```
    @discardableResult
    public func adopt(path: String, version: Int) throws -> AdoptionReport {
        let problems = family.problems()
        guard problems.isEmpty else { throw MigrationError.invalidFamily(family: family.name, problems: problems) }
        guard let schema = family.schema(version: version) else {
            throw MigrationError.unknownVersion(family: family.name, version: version, known: family.versionNumbers)
        }
        let lock = try MigrationLock(path: path)
        defer { withExtendedLifetime(lock) {} }
        let c = try RecordedFile.open(path, readOnly: false)
        do {
            try c.execute("BEGIN IMMEDIATE")
        } catch let e as SQLiteError {
            if e.isBusy { throw MigrationError.busy(path: path) }
            throw MigrationError.notAnUrnaFile(path: path, reason: e.message)
        }
        do {
            if let recorded = try? Store.recordedSchema(in: c) {
                throw MigrationError.adoptionRefused(
                    path: path, family: family.name, version: version,
                    differences: [
                        "it is already an Urna file (\(recorded.family) version \(recorded.version)): migrate it instead"
                    ])
            }
            if try c.tableExists(StorageLayout.schemaTable) || c.tableExists(StorageLayout.historyTable) {
                throw MigrationError.adoptionRefused(
                    path: path, family: family.name, version: version,
                    differences: [
                        "it has a \(StorageLayout.schemaTable) or \(StorageLayout.historyTable) table of its own"
                    ])
            }
            let actual = try DatabaseShape.read(c)
            var expected = try DatabaseShape.expected(for: schema)
            expected.tables[StorageLayout.schemaTable] = nil
            expected.tables[StorageLayout.historyTable] = nil
            var differences = actual.differences(
                from: expected, allowExtraIndexes: true, allowExtraTables: true, compareTableText: false)
            differences += Self.constraintsOutsideContract(actual, expected: expected)
            guard differences.isEmpty else {
                throw MigrationError.adoptionRefused(
                    path: path, family: family.name, version: version, differences: differences)
            }
            try Store.recordSchema(schema, in: c)
            // The version's own views, from code (a view of that name the file already has is left as it is).
            for v in schema.views where !(try c.tableExists(v.name)) { try c.execute(v.createSQL) }
            try c.run(
                "INSERT INTO \"\(StorageLayout.historyTable)\" (family, from_version, to_version, applied_at, duration_ms, objects_touched, descriptor_checksum) VALUES (?, ?, ?, ?, 0, 0, ?)",
                [
                    .text(family.name), .integer(Int64(version)), .integer(Int64(version)),
                    .text(ISODate.format(Date())), .text(SchemaDescriptor.checksum(schema)),
                ])
            var counts: [String: Int] = [:]
            for t in schema.tableTypes {
                counts[t.name] = Int(try c.integer("SELECT count(*) FROM \(Identifier.quoted(t.name))"))
            }
            try c.execute("COMMIT")
            let others = actual.tables.keys.filter { expected.tables[$0] == nil }.sorted()
            return AdoptionReport(
                path: path, family: family.name, version: version, counts: counts, otherTables: others)
        } catch let e as SQLiteError {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            throw MigrationError.storage(e)
        } catch {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            throw error
        }
    }

    /// Constraints a family table has that the contract does not give it, and that `PRAGMA table_xinfo` does
    /// not show: CHECK, UNIQUE, COLLATE, generated columns, WITHOUT ROWID. They would make the migrator's
    /// copies fail or behave otherwise.
    static func constraintsOutsideContract(_ actual: DatabaseShape, expected: DatabaseShape) -> [String] {
        var out: [String] = []
        for (name, e) in expected.tables.sorted(by: { $0.key < $1.key }) {
            guard let a = actual.tables[name] else { continue }
            let have = Set(sqlWords(a.sql))
            let want = Set(sqlWords(e.sql))
            for word in ["check", "unique", "collate", "generated", "without"]
            where have.contains(word) && !want.contains(word) {
                out.append("\(name): its CREATE TABLE has \(word.uppercased()), which the storage contract does not")
            }
        }
        return out
    }
}
