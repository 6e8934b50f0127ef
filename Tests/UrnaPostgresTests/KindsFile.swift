import Foundation
import Testing
import UrnaStore

@testable import UrnaPostgres

/// The setup the PostgreSQL library tests share: a private folder holding the every-type file
/// (`PostgresTransferTests.schema`, "kinds"), removed when the value goes, and a push of it committed in one
/// transaction.
final class KindsFile {
    /// The folder (removed on deinit).
    let folder: URL
    /// The every-type file in it.
    let path: String

    /// Makes the folder and the file; `logs` extra Log rows make a copy take more than a millisecond.
    init(logs: Int = 0) throws {
        folder = try PostgresTransferTests.temporaryFolder()
        path = folder.appendingPathComponent("kinds.sqlite").path
        try PostgresTransferTests.makeFile(path)
        if logs > 0 {
            try Connection(path: path).execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(logs)) "
                    + "INSERT INTO Log(line) SELECT 'more ' || i FROM n")
        }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// A path in the folder.
    func file(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Pushes the file into `url` in one transaction and commits; returns the rows copied per table.
    @discardableResult
    func push(
        to url: String, replacing old: Schema?, recreate: Bool = false, allowTriggers: Bool = false,
        triggers: ((_ ran: [ServerTrigger], _ remade: [ServerTrigger]) -> Void)? = nil
    ) throws -> PostgresTransfer.Counts {
        try Self.push(
            path, to: url, replacing: old, recreate: recreate, allowTriggers: allowTriggers, triggers: triggers)
    }

    /// Pushes `file` into `url` in one transaction and commits (rolled back when the push throws).
    @discardableResult
    static func push(
        _ file: String, to url: String, replacing old: Schema?, recreate: Bool = false, allowTriggers: Bool = false,
        triggers: ((_ ran: [ServerTrigger], _ remade: [ServerTrigger]) -> Void)? = nil
    ) throws -> PostgresTransfer.Counts {
        let conn = try PostgresConnection(url)
        try conn.execute("BEGIN")
        do {
            let counts = try PostgresTransfer.push(
                from: try Connection(path: file), to: conn, replacing: old, recreate: recreate,
                allowTriggers: allowTriggers, triggers: triggers)
            try conn.execute("COMMIT")
            return counts
        } catch {
            try? conn.execute("ROLLBACK")
            throw error
        }
    }
}
