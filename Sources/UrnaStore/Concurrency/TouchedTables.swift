import CSQLite
import Foundation

/// The tables that raw SQL changed on a connection since the last `reset()`, from SQLite's update hook,
/// so observers hear about `store.connection.execute("UPDATE ...")` inside a write too.
///
/// SQLite calls the hook for every row; consecutive rows of one table cost a pointer compare. (Tables
/// declared WITHOUT ROWID, such as list tables, are not reported by SQLite.)
final class TouchedTables: @unchecked Sendable {
    private var lastName: UnsafePointer<CChar>?
    private(set) var names: Set<String> = []

    func reset() {
        lastName = nil
        names.removeAll(keepingCapacity: true)
    }

    fileprivate func touch(_ name: UnsafePointer<CChar>) {
        if name == lastName { return }
        lastName = name
        names.insert(String(cString: name))
    }

    /// Installs the hook on `connection`; `self` must outlive the connection's use of it (the store owns both).
    func install(on connection: Connection) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = sqlite3_update_hook(
            connection.handle,
            { context, _, _, table, _ in
                guard let context, let table else { return }
                Unmanaged<TouchedTables>.fromOpaque(context).takeUnretainedValue().touch(table)
            }, context)
    }

    static func uninstall(from connection: Connection) { _ = sqlite3_update_hook(connection.handle, nil, nil) }
}
