import CSQLite
import Foundation
import UrnaStore

/// The tables of the main database that a run's statements write, from SQLite's authorizer: SQLite asks it
/// once for each table a statement inserts into, updates, deletes from, creates, drops, alters or indexes,
/// when the statement is prepared (never per row), including statements of triggers and of the step's own
/// SQL. The run's last check compares indexes with their tables only for these; the others were not written.
final class WrittenTables {
    private(set) var names: Set<String> = []
    /// Tables altered (renamed, among others): a staging table counts for its final name only once renamed to it.
    private(set) var altered: Set<String> = []

    fileprivate func note(_ table: UnsafePointer<CChar>?, database: UnsafePointer<CChar>?, altered: Bool = false) {
        guard let table else { return }
        if let database, strcmp(database, "main") != 0 { return }
        let name = String(cString: table)
        names.insert(name)
        if altered { self.altered.insert(name) }
    }

    /// Installs the authorizer; `self` must outlive it (`uninstall` before `self` goes).
    func install(on connection: Connection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = sqlite3_set_authorizer(
            connection.handle,
            { context, action, first, second, database, _ in
                guard let context else { return SQLITE_OK }
                let me = Unmanaged<WrittenTables>.fromOpaque(context).takeUnretainedValue()
                switch action {
                case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE, SQLITE_CREATE_TABLE, SQLITE_DROP_TABLE:
                    me.note(first, database: database)
                case SQLITE_CREATE_INDEX, SQLITE_DROP_INDEX:
                    me.note(second, database: database)
                case SQLITE_ALTER_TABLE:
                    me.note(second, database: first, altered: true)
                default: break
                }
                return SQLITE_OK
            }, context)
    }

    static func uninstall(from connection: Connection) { _ = sqlite3_set_authorizer(connection.handle, nil, nil) }

    /// The ordinary tables the file holds now that were written under their name or renamed from a step's staging
    /// table (a staging table created and dropped unused changed nothing).
    func existingTables(in connection: Connection) throws -> [String] {
        try connection.rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name"
        ).compactMap { row -> String? in
            guard case .text(let name) = row[0] else { return nil }
            return names.contains(name) || altered.contains(StepAnalysis.stagingName(name)) ? name : nil
        }
    }
}
