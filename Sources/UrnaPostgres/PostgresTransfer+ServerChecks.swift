import Foundation
import UrnaStore

extension PostgresTransfer {
    /// The command tags of the DDL urna itself runs on the server when it writes (tables, keys, indexes, views
    /// and their comments): an event trigger limited to other tags never fires during urna's work.
    static let urnaCommandTags: Set<String> = [
        "CREATE TABLE", "DROP TABLE", "ALTER TABLE", "CREATE INDEX", "DROP INDEX", "CREATE VIEW", "DROP VIEW",
        "COMMENT",
    ]

    /// The environment variable naming, comma-separated, the event triggers a writer may run.
    public static let allowEventTriggersVariable = "URNA_PG_ALLOW_EVENT_TRIGGERS"

    /// The names in a comma-separated `URNA_PG_ALLOW_EVENT_TRIGGERS` value, spaces around each trimmed.
    public static func allowedEventTriggers(from value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Refuses a writer, before any work, when an event trigger of the database would fire on urna's DDL
    /// (`ddl_command_start`, `ddl_command_end`, `sql_drop`, `table_rewrite`) in this session, as its
    /// `session_replication_role` decides (a trigger set ENABLE REPLICA does not fire in an ordinary session, one
    /// set ENABLE ALWAYS does in every session): its function would run inside urna's transaction, as urna's role, and could change the tables urna is filling. Readers run no
    /// DDL and are never refused. Triggers named in `allowing` (by default `URNA_PG_ALLOW_EVENT_TRIGGERS`,
    /// comma-separated) run, as a person asked.
    public static func refuseEventTriggers(
        in pg: PostgresConnection,
        allowing: [String] = allowedEventTriggers(from: ProcessInfo.processInfo.environment[allowEventTriggersVariable])
    ) throws {
        // Whether a trigger fires depends on the session's session_replication_role: ENABLE (O) fires in origin
        // and local sessions, ENABLE REPLICA (R) in replica sessions only, ENABLE ALWAYS (A) in all of them.
        let rows = try pg.query(
            "SELECT evtname::text, evtevent::text, pg_catalog.array_to_string(evttags, '|') FROM "
                + "pg_catalog.pg_event_trigger WHERE evtenabled = 'A' OR evtenabled = CASE "
                + "pg_catalog.current_setting('session_replication_role') WHEN 'replica' THEN 'R' ELSE 'O' END ORDER BY 1"
        ).rows
        let allowed = Set(allowing)
        let firing = rows.compactMap { row -> (name: String, event: String)? in
            guard let name = row[0], let event = row[1], !allowed.contains(name) else { return nil }
            if let tags = row[2], !tags.isEmpty,
                Set(tags.split(separator: "|").map { $0.uppercased() }).isDisjoint(with: urnaCommandTags)
            {
                return nil
            }
            return (name, event)
        }
        guard !firing.isEmpty else { return }
        let names = firing.map { "\(PostgresConnection.pathValue($0.name)) (on \($0.event))" }
        let list = firing.map(\.name).joined(separator: ",")
        // Ready to paste into a shell: quoted when a name holds anything but letters, digits and _.
        let shellSafe = list.unicodeScalars.allSatisfy {
            $0.isASCII && ($0 == "_" || $0 == "," || $0.properties.isAlphabetic || ("0"..."9").contains($0))
        }
        let plain = shellSafe ? list : "'" + list.replacingOccurrences(of: "'", with: "'\\''") + "'"
        throw PostgresTransferError.occupied(
            "\(pg.displayName) has \(firing.count == 1 ? "an event trigger" : "event triggers") "
                + "\(names.joined(separator: ", ")) that would run during "
                + "this program's own CREATE, ALTER and DROP of its tables, inside its transaction, where they could change what it writes; nothing "
                + "was changed: if \(firing.count == 1 ? "it is" : "they are") safe to run (an audit log, a "
                + "platform's own), name \(firing.count == 1 ? "it" : "them") in "
                + "\(allowEventTriggersVariable)=\(plain), or disable \(firing.count == 1 ? "it" : "them") (ALTER "
                + "EVENT TRIGGER \(PostgresConnection.quoted(firing[0].name)) DISABLE, as a superuser)")
    }

    /// The first text value of `t` in the file that holds a NUL character (U+0000), which PostgreSQL text cannot
    /// store (the server's own "invalid byte sequence ... 0x00" names no table or column), as the error to show.
    static func nulCharacter(in t: PostgresTable, of sqlite: Connection) throws -> PostgresTransferError? {
        for column in t.columns {
            let name = Identifier.quoted(column.name)
            let rows = try sqlite.rows(
                "SELECT CAST(\(name) AS BLOB) FROM \(Identifier.quoted(t.name)) WHERE typeof(\(name)) = 'text' "
                    + "AND instr(CAST(\(name) AS BLOB), x'00') > 0 LIMIT 1")
            guard case .blob(let bytes)? = rows.first?.first else { continue }
            let shown = String(decoding: bytes.prefix(60), as: UTF8.self).replacingOccurrences(of: "\0", with: "\\0")
            return .badValue(
                column: "\(t.name).\(column.name)", value: shown,
                expected: "text PostgreSQL can store: it cannot hold the NUL character (U+0000, shown as \\0), and "
                    + "this program never cuts a value short; remove it in the file, or in the app that stored it")
        }
        return nil
    }
}
