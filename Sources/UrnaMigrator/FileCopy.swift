import CSQLite
import Foundation
import UrnaStore

/// Copies of database files: the backup (SQLite's online backup API, a consistent snapshot) and the
/// private copy a dry run works on (plain bytes, so the original is never opened).
enum FileCopy {
    /// The files that make up a database on disk besides the main file.
    static let sidecars = ["-wal", "-journal"]

    /// Copies the database at `sourcePath` into a new file at `path`, page by page, through a read-only
    /// connection of its own (SQLite refuses to back up from a connection that is writing). The runner
    /// calls it while holding the write lock, so the copy is exactly the file before the migration.
    static func backup(sourcePath: String, to path: String) throws {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw MigrationError.backupFailed(path: path, reason: "a file is already there")
        }
        let source: Connection
        let destination: Connection
        do {
            source = try Connection(path: sourcePath, readOnly: true, create: false)
            destination = try Connection(path: path)
        } catch {
            throw MigrationError.backupFailed(path: path, reason: "\(error)")
        }
        guard let b = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            let message = String(cString: sqlite3_errmsg(destination.handle))
            try? FileManager.default.removeItem(atPath: path)
            throw MigrationError.backupFailed(path: path, reason: message)
        }
        let rc = sqlite3_backup_step(b, -1)
        sqlite3_backup_finish(b)
        guard rc == SQLITE_DONE else {
            let message = String(cString: sqlite3_errstr(rc))
            try? FileManager.default.removeItem(atPath: path)
            throw MigrationError.backupFailed(path: path, reason: message)
        }
    }

    /// A fresh backup path next to `path`: `<path>.v<version>.bak`, then `.1.bak`, `.2.bak`, ...
    static func defaultBackupPath(for path: String, version: Int) -> String {
        var candidate = "\(path).v\(version).bak"
        var n = 1
        while FileManager.default.fileExists(atPath: candidate) {
            candidate = "\(path).v\(version).\(n).bak"
            n += 1
        }
        return candidate
    }

    /// Copies the main file and its sidecars, byte for byte, into `directory`; returns the copy's path.
    static func copyForPreview(_ path: String, into directory: String) throws -> String {
        let name = (path as NSString).lastPathComponent
        let target = (directory as NSString).appendingPathComponent(name)
        try FileManager.default.copyItem(atPath: path, toPath: target)
        for s in sidecars where FileManager.default.fileExists(atPath: path + s) {
            try FileManager.default.copyItem(atPath: path + s, toPath: target + s)
        }
        return target
    }

    /// A new private directory under the system's temporary directory.
    static func makeTemporaryDirectory() throws -> String {
        let base = NSTemporaryDirectory()
        let dir = (base as NSString).appendingPathComponent("urna-dry-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}
