import Foundation
import UrnaStore

/// What adopting a plain SQLite file did (or, for a dry run, would do).
public struct AdoptionReport: Sendable, Codable, Equatable {
    public let path: String
    public let family: String
    public let version: Int
    /// Objects per type in the file once adopted.
    public let counts: [String: Int]
    /// Tables of the file outside the family, left as they are.
    public let otherTables: [String]
    /// Tables rebuilt into the storage contract, with the rows copied into each (empty when the tables already
    /// followed it and no row changed).
    public var rebuilt: [String: Int] = [:]
    /// Contract tables the file lacked, created empty.
    public var created: [String] = []
    /// Per rebuilt table, why (its differences from the contract).
    public var changes: [String] = []
    /// True when this is a preview made on a private copy: the file itself was not touched.
    public var dryRun = false
}

extension Migrator {
    /// Brings a plain SQLite file (one Urna did not create) under version `version` of the family, recording the
    /// family, version and descriptor in `_urna_schema`, an adoption row in `_urna_history` and
    /// `PRAGMA user_version`.
    ///
    /// When its tables match that version's storage contract column by column (types, NOT NULL, defaults, keys,
    /// foreign keys, indexes) no row changes. When they hold the contract's columns in another form (a rowid
    /// table with no `_id`, nullable or untyped columns, another order, a CHECK or UNIQUE the contract lacks),
    /// they are rebuilt into the contract in the same transaction, every row kept (`_id` from the rowid), and
    /// the file's own indexes and triggers put back. A missing or extra column, a NULL in a required column, a
    /// duplicate key, a value the contract's type does not read or a broken link throws `adoptionRefused`
    /// listing every one (rows by rowid or key); the file is then untouched. Tables outside the family are left
    /// alone. `dryRun` does all of it on a private copy and reports what adopting would do.
    ///
    /// ```swift
    /// try Migrator(family: SchemaFamilies.people).adopt(path: "legacy.sqlite", version: 0)
    /// ```
    @discardableResult
    public func adopt(path: String, version: Int, dryRun: Bool = false) throws -> AdoptionReport {
        let problems = family.problems()
        guard problems.isEmpty else { throw MigrationError.invalidFamily(family: family.name, problems: problems) }
        // A version older than a squashed history's baseline gets the advice, whether or not it is still declared
        // (as `plan` does): "fieldwork has no version 0 (it has 3, 4, 5, 6)" told a legacy file's owner nothing.
        if family.isOlderThanSupported(version) {
            throw MigrationError.olderThanSupported(
                path: path, family: family.name, fileVersion: version, minimum: family.minimumVersion,
                advice: family.olderFilesAdvice)
        }
        guard let schema = family.schema(version: version) else {
            throw MigrationError.unknownVersion(family: family.name, version: version, known: family.versionNumbers)
        }
        if dryRun {
            let copy = try PreviewCopy(of: path)
            var report = try adopt(at: copy.path, displayPath: path, schema: schema)
            report.dryRun = true
            return report
        }
        let lock = try MigrationLock(path: path)
        defer { withExtendedLifetime(lock) {} }
        return try adopt(at: path, displayPath: path, schema: schema)
    }

    private func adopt(at path: String, displayPath: String, schema: Schema) throws -> AdoptionReport {
        let version = schema.version
        func refused(_ differences: [String]) -> MigrationError {
            .adoptionRefused(path: displayPath, family: family.name, version: version, differences: differences)
        }
        let c = try RecordedFile.open(path, readOnly: false)
        do {
            // A rebuild moves tables aside: other tables' foreign keys, views and triggers keep naming the
            // family's tables (legacy renaming), and keys are checked once, at the end.
            try c.execute("PRAGMA foreign_keys = OFF")
            try c.execute("PRAGMA legacy_alter_table = ON")
            try c.execute("BEGIN IMMEDIATE")
        } catch let e as SQLiteError {
            if e.isBusy { throw MigrationError.busy(path: displayPath) }
            throw MigrationError.notAnUrnaFile(path: displayPath, reason: e.message)
        }
        let started = Date()
        do {
            if let recorded = try? Store.recordedSchema(in: c) {
                // Adopted already (the same family and version): nothing to do, as for a migration.
                if recorded.family == family.name && recorded.version == version {
                    throw MigrationError.alreadyCurrent(
                        path: displayPath, family: recorded.family, version: recorded.version)
                }
                throw MigrationError.alreadyAdopted(
                    path: displayPath, family: recorded.family, version: recorded.version)
            }
            if try c.tableExists(StorageLayout.schemaTable) || c.tableExists(StorageLayout.historyTable) {
                throw refused([
                    "it has a \(StorageLayout.schemaTable) or \(StorageLayout.historyTable) table of its own"
                ])
            }
            let actual = try DatabaseShape.read(c)
            var expected = try DatabaseShape.expected(for: schema)
            expected.tables[StorageLayout.schemaTable] = nil
            expected.tables[StorageLayout.historyTable] = nil
            if let leftover = actual.tables.keys.sorted().first(where: { $0.hasPrefix(AdoptionRebuild.stagingPrefix) })
            {
                throw refused(["it has a table \(leftover), a name adopting uses for its own work: rename it"])
            }
            let differences =
                actual.differences(
                    from: expected, allowExtraIndexes: true, allowExtraTables: true, compareTableText: false)
                + Self.constraintsOutsideContract(actual, expected: expected)
            let rebuild = AdoptionRebuild(schema: schema, actual: actual, expected: expected, differences: differences)
            var rebuilt: [String: Int] = [:]
            if !rebuild.isEmpty {
                // Shape problems and rows that cannot go in (missing required values, duplicate keys) are listed
                // together; values of the wrong type and broken links can only be read off the rebuilt tables.
                let misfits =
                    rebuild.problems.isEmpty
                    ? try rebuild.rowsThatDoNotFit(c) : ((try? rebuild.rowsThatDoNotFit(c)) ?? [])
                guard rebuild.problems.isEmpty, misfits.isEmpty else {
                    throw refused(rebuild.problems + misfits)
                }
                // A file whose sqlite_master was edited to carry `CREATE INDEX ...; COMMIT; ...` had that run.
                let (userObjects, unsafeSQL) = try rebuild.userObjects(c)
                guard unsafeSQL.isEmpty else { throw refused(unsafeSQL) }
                try Self.checkRoom(for: rebuild, in: c, path: path, displayPath: displayPath)
                rebuilt = try rebuild.copy(c)
                let values = try rebuild.valuesThatDoNotFit(c)
                guard values.isEmpty else { throw refused(values) }
                let lost = try rebuild.finish(c, schema: schema, userObjects: userObjects)
                guard lost.isEmpty else { throw refused(lost) }
                let after = try DatabaseShape.read(c)
                let left = after.differences(
                    from: expected, allowExtraIndexes: true, allowExtraTables: true, compareTableText: false)
                guard left.isEmpty else { throw refused(left) }
            }
            try Store.recordSchema(schema, in: c)
            // The version's own views, from code (a view of that name the file already has is left as it is).
            for v in schema.views where !(try c.tableExists(v.name)) { try c.execute(v.createSQL) }
            try c.run(
                "INSERT INTO \"\(StorageLayout.historyTable)\" (family, from_version, to_version, applied_at, duration_ms, objects_touched, descriptor_checksum) VALUES (?, ?, ?, ?, ?, 0, ?)",
                [
                    .text(family.name), .integer(Int64(version)), .integer(Int64(version)),
                    .text(ISODate.format(Date())), .integer(Int64(Date().timeIntervalSince(started) * 1000)),
                    .text(SchemaDescriptor.checksum(schema)),
                ])
            if let app = options.appVersion {
                // The ledger says which program adopted the file, as it does for the runs that follow.
                try RunLedger.ensureColumns(c)
                try c.run(
                    "UPDATE \"\(StorageLayout.historyTable)\" SET outcome = 'adopted', app_version = ? WHERE id = ?",
                    [.text(app), .integer(c.lastInsertRowID)])
            }
            var counts: [String: Int] = [:]
            for t in schema.tableTypes {
                counts[t.name] = Int(try c.integer("SELECT count(*) FROM \(Identifier.quoted(t.name))"))
            }
            try c.execute("COMMIT")
            try? c.execute("PRAGMA foreign_keys = ON")
            let adopted = Set(expected.tables.keys.map { $0.lowercased() })
            let others = actual.tables.keys.filter { !adopted.contains($0.lowercased()) }.sorted()
            var report = AdoptionReport(
                path: displayPath, family: family.name, version: version, counts: counts, otherTables: others)
            report.created = rebuild.tables.filter { $0.existing == nil }.map(\.name)
            for t in rebuild.tables where t.existing != nil {
                report.rebuilt[t.name] = rebuilt[t.name] ?? 0
                report.changes.append("\(t.name): " + t.reasons.joined(separator: "; "))
            }
            return report
        } catch let e as SQLiteError {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            throw MigrationError.storage(e)
        } catch {
            if c.isInTransaction { try? c.execute("ROLLBACK") }
            throw error
        }
    }

    /// Refuses, before the first row is copied, a rebuild the disk cannot hold: the new copies of the tables
    /// (with their indexes) while the old ones still exist, and the journal (a WAL holds every page written until
    /// the checkpoint: twice the tables' bytes; a rollback journal a tenth more), as a migration measures it. A
    /// full disk mid-copy said only "the disk is full (database or disk is full)".
    static func checkRoom(for rebuild: AdoptionRebuild, in c: Connection, path: String, displayPath: String) throws {
        var rewritten: Int64 = 0
        for name in rebuild.tables.compactMap({ $0.existing?.name }) {
            let objects = try c.rows(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') AND tbl_name = ?", [.text(name)])
            for r in objects {
                guard case .text(let object) = r[0] else { continue }
                rewritten +=
                    (try? c.integer(
                        "SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE name = ? AND aggregate = TRUE",
                        [.text(object)]))
                    ?? FileCopy.size(path)
            }
        }
        let wal = (try? c.scalar("PRAGMA journal_mode")) == .text("wal")
        let needed = (wal ? 2 * rewritten : rewritten + rewritten / 10) + 262_144
        guard let free = freeBytes(near: path), free < needed else { return }
        throw MigrationError.noRoom(
            path: displayPath == path ? path : "\(path) (the dry run's copy of \(displayPath))", task: "adopt it",
            needed: needed, available: free,
            detail: "the rebuilt tables take \(SpaceNeed.megabytes(rewritten)) now, and their journal")
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
