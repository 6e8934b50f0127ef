import Foundation
import UrnaMigrator
import UrnaStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Checks an import makes of the file it writes, the way `urna migrate` checks a step: triggers that
/// would run inside the import are refused before anything is written, and the file must match its
/// descriptor's shape (and, when allowed triggers ran, pass `PRAGMA foreign_key_check`) before the
/// transaction commits.
///
/// The import writes with foreign keys off (enforcing them row by row costs a quarter of the insert
/// time), so without the last check a trigger in the file (`AFTER INSERT ON Candidate BEGIN DELETE FROM
/// Good; END`) or a damaged table would be committed silently.
package enum ImportIntegrity {
    /// The triggers on Urna's tables (the schema's, their list tables and the metadata tables), which
    /// would fire on the import's own writes: (name, table).
    static func triggers(on connection: Connection, schema: Schema) throws -> [(name: String, table: String)] {
        let ours = Set(ourTables(schema).map { $0.lowercased() })
        var out: [(name: String, table: String)] = []
        for row in try connection.rows("SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        {
            guard case .text(let name) = row[0], case .text(let table) = row[1] else { continue }
            if ours.contains(table.lowercased()) { out.append((name, table)) }
        }
        return out
    }

    /// Refuses to import into a file whose triggers would run on the import's writes, unless `allowed`;
    /// returns the triggers that will run (none unless allowed).
    @discardableResult
    static func refuseTriggers(
        on connection: Connection, schema: Schema, path: String, allowed: Bool
    ) throws -> [(name: String, table: String)] {
        let found = try triggers(on: connection, schema: schema)
        guard !allowed, !found.isEmpty else { return found }
        let list = found.map { "\($0.name) (on \($0.table))" }.joined(separator: ", ")
        throw ImportError.database(
            path: path,
            reason: "the file holds \(found.count == 1 ? "a trigger" : "\(found.count) triggers") on Urna's tables "
                + "that would run inside the import: \(list); nothing was imported: drop "
                + "\(found.count == 1 ? "it" : "them") (sqlite3 \(path) 'DROP TRIGGER \"\(found[0].name)\"'), "
                + "or pass --allow-triggers to let \(found.count == 1 ? "it" : "them") run "
                + "(the import is still checked before it commits)",
            exitCode: 65)
    }

    /// Urna's tables: the schema's, their list tables and the metadata tables.
    static func ourTables(_ schema: Schema) -> [String] {
        var ours = schema.tableTypes.map(\.name)
        for t in schema.tableTypes {
            for p in t.properties where !p.ignored {
                if case .list = p.type { ours.append(StorageLayout.listTable(type: t.name, property: p.name)) }
            }
        }
        // Every metadata table, the optional ones too: an import writes `_urna_pending_goods` and
        // `_urna_field_generations`, and a trigger there deleted every Good while 8,583 were "attached" (exit 0).
        return ours + StorageLayout.metadataTables
    }

    /// Refuses, before a row is written, a file whose own SQL would run for every row the import writes,
    /// the way a trigger would: Urna's tables must already match the descriptor (a `CHECK` planted in
    /// `Candidate`'s CREATE TABLE text ran an expression of 0.1 s and 260 MB for each row, and the shape check
    /// after the rows caught it only once all had been written), and indexes someone added on them may not
    /// compute an expression or have a WHERE clause unless `allowed` (`--allow-triggers`). Returns the
    /// indexes of that kind that will run (none unless allowed).
    @discardableResult
    static func refuseFileSQL(
        on connection: Connection, schema: Schema, path: String, allowed: Bool
    ) throws -> [(name: String, table: String)] {
        // A view under one of Urna's names is read and written in the table's place (an INSTEAD OF trigger on it
        // ran inside the import), whatever --allow-triggers says: it is never Urna's table.
        let ours = Set(ourTables(schema).map { $0.lowercased() })
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name") {
            guard case .text(let name) = row[0], ours.contains(name.lowercased()) else { continue }
            throw ImportError.database(
                path: path,
                reason: "\(name) is a view, not Urna's table: whatever it selects or its triggers do would run inside "
                    + "the import in the table's place; nothing was imported: restore the file from a backup, or drop "
                    + "it (sqlite3 \(path) 'DROP VIEW \"\(name)\"') if you made it",
                exitCode: 65)
        }
        let expected = try DatabaseShape.expected(for: schema)
        // A missing index of Urna's runs nothing (the import rebuilds those of empty tables; the check at the end
        // still needs the others): only what is there and differs is refused here.
        let ownIndexes = Set(expected.tables.values.flatMap { $0.indexes.map(\.name) })
        let actual = try DatabaseShape.read(connection)
        let differences = actual.differences(
            from: expected, allowExtraIndexes: true, missingIndexesAllowed: ownIndexes)
        // Only tables of the user's own (`urna sql --write "CREATE TABLE notes ..."`, which sql allows): the
        // message said the tables "were changed outside urna" and to restore a backup, losing that table.
        let ownTables = actual.tables.keys.filter {
            expected.tables[$0] == nil && !$0.hasPrefix("_urna") && !StorageLayout.optionalMetadataTables.contains($0)
        }.sorted()
        if !differences.isEmpty, !ownTables.isEmpty,
            differences.count == ownTables.count,
            differences.allSatisfy({ d in ownTables.contains { d == "table \($0) is not in the descriptor" } })
        {
            let list = ownTables.prefix(5).joined(separator: ", ")
            throw ImportError.database(
                path: path,
                reason: "the file holds tables that are not urna's (\(list)), and an import refuses such a file; "
                    + "nothing was imported: move them to another file (sqlite3's .dump), drop them if you do not "
                    + "need them (sqlite3 \(path) 'DROP TABLE \"\(ownTables[0])\"'), or import into a new --db",
                exitCode: 65)
        }
        if !differences.isEmpty {
            throw ImportError.database(
                path: path,
                reason: "the file does not match its schema (\(differences.prefix(5).joined(separator: "; "))): its "
                    + "tables were changed outside urna, and SQLite would run what was added there (a CHECK, a "
                    + "generated column, a default) for every row the import writes; nothing was imported: restore "
                    + "the file from a backup, or import into a new --db",
                exitCode: 65)
        }
        var found: [(name: String, table: String)] = []
        for table in ourTables(schema) where expected.tables[table] != nil {
            // Urna's own indexes are never partial nor computed: one under an Urna name is planted too (the shape
            // check compares names, columns and uniqueness only).
            for row in try connection.rows("PRAGMA index_list(\(Identifier.quoted(table)))") {
                guard case .text(let name) = row[1], case .text(let origin) = row[3], origin == "c" else { continue }
                let partial = row[4] == .integer(1)
                let computed = try connection.rows("PRAGMA index_xinfo(\(Identifier.quoted(name)))").contains {
                    $0[1] == .integer(-2)
                }
                if partial || computed { found.append((name, table)) }
            }
        }
        guard !allowed, !found.isEmpty else { return found }
        let list = found.map { "\($0.name) (on \($0.table))" }.joined(separator: ", ")
        let one = found.count == 1
        throw ImportError.database(
            path: path,
            reason: "the file holds \(one ? "an index" : "\(found.count) indexes") on Urna's tables that "
                + "\(one ? "computes" : "compute") an expression or \(one ? "has" : "have") a WHERE clause, which "
                + "SQLite would run for every row the import writes: \(list); nothing was imported: drop "
                + "\(one ? "it" : "them") (sqlite3 \(path) 'DROP INDEX \"\(found[0].name)\"'), or pass "
                + "--allow-triggers to let the file's own SQL run (the import is still checked before it commits)",
            exitCode: 65)
    }

    /// Most broken links (child table → parent table) named in a message.
    static let reportedViolations = 5

    /// Throws (so the caller rolls back) when the file, as the import leaves it, breaks a foreign key
    /// (checked when `checkLinks`: triggers ran) or no longer has the tables and columns of `schema`.
    static func verifyBeforeCommit(_ connection: Connection, schema: Schema, path: String, checkLinks: Bool) throws {
        if checkLinks { try verifyLinks(connection, path: path) }
        // A file upgraded by `urna migrate` has the run ledger's columns in _urna_history: not a difference.
        let expected = try DatabaseShape.expected(for: schema)
        let differences = try DatabaseShape.read(connection).differences(
            from: expected, allowExtraIndexes: true)
        if !differences.isEmpty {
            throw ImportError.database(
                path: path,
                reason:
                    "after the import the file does not match its schema (\(differences.prefix(5).joined(separator: "; "))): "
                    + "the import was rolled back and the database is as it was",
                exitCode: 65)
        }
    }

    /// Throws when `PRAGMA foreign_key_check` finds rows pointing at rows that do not exist.
    static func verifyLinks(_ connection: Connection, path: String) throws {
        var byLink: [String: Int] = [:]
        var total = 0
        let statement = try connection.prepare("PRAGMA foreign_key_check")
        while try statement.step() {
            total += 1
            byLink["\(statement.value(at: 0)) → \(statement.value(at: 2))", default: 0] += 1
        }
        if total > 0 {
            let violations = byLink.sorted { $0.key < $1.key }.prefix(reportedViolations).map {
                "\($0.key): \($0.value)"
            }
            throw ImportError.database(
                path: path,
                reason: "after the import, \(total) row\(total == 1 ? "" : "s") would point at rows that do not exist "
                    + "(\(violations.joined(separator: "; "))\(byLink.count > violations.count ? "; ..." : "")): the import was "
                    + "rolled back and the database is as it was. A trigger or an edit of the file deleted them: "
                    + "see sqlite3 \(path) 'PRAGMA foreign_key_check'",
                exitCode: 65)
        }
    }

    /// Creates the empty database file an import fills, before SQLite opens it: `O_EXCL | O_NOFOLLOW` (a
    /// symlink planted at the name is not followed), and mode 0600 whatever the umask when it will hold
    /// personal data. SQLite gives the -wal, -shm and -journal files it creates the database file's mode.
    static func createDatabaseFile(_ path: String, private isPrivate: Bool) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, isPrivate ? 0o600 : 0o644)
        guard fd >= 0 else {
            throw ImportError.database(
                path: path,
                reason: "cannot create the database (\(String(cString: strerror(errno)))): choose another --db PATH; "
                    + "nothing was imported",
                exitCode: 73)
        }
        if isPrivate { _ = fchmod(fd, 0o600) }
        close(fd)
        for suffix in ["", "-journal", "-wal", "-shm"] { CreatedFiles.register(path + suffix) }
    }

    /// Gives the complete new database at `temporary` (its store closed, nothing beside it) its name `path`:
    /// `link(2)`, which never replaces a file, so a database another process created at `path` meanwhile is kept
    /// and this import fails saying so; the temporary name goes either way.
    static func publish(_ temporary: String, as path: String) throws {
        defer {
            for suffix in ["", "-journal", "-wal", "-shm"] {
                unlink(temporary + suffix)
                CreatedFiles.unregister(temporary + suffix)
            }
        }
        // Everything must be in the main file before it takes its name: a -wal left beside the private name would
        // not follow it.
        if let size = (try? FileManager.default.attributesOfItem(atPath: temporary + "-wal"))?[.size] as? NSNumber,
            size.int64Value > 0
        {
            let c = try Connection(path: temporary, create: false)
            try c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw DatabaseAppeared() }
            throw ImportError.database(
                path: path, reason: "cannot create \(path) (\(String(cString: strerror(errno)))); nothing was imported",
                exitCode: 1)
        }
        let folder = PathText.folder(of: path)
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Another process created the database while this import filled its private new file.
    struct DatabaseAppeared: Error, CustomStringConvertible {
        var description: String {
            "another process created the database while this import ran (it was run again and it happened again); "
                + "nothing of this import was stored: run it again"
        }
    }

    /// Removes the private files of imports into a new database that were killed (their process is gone).
    package static func removeStaleImportTemporaries(near path: String) {
        let folder = PathText.folder(of: path)
        let dir = folder.isEmpty ? "." : folder
        let prefix = (path as NSString).lastPathComponent + ".tmp-import-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = LeftoverNotes.pid(inNameEnd: name.dropFirst(prefix.count)), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            LeftoverNotes.remove((dir as NSString).appendingPathComponent(name), leftBy: pid)
        }
    }
}
