import Foundation
import UrnaPostgres
import UrnaStore

/// The working copy's push to PostgreSQL alone, timed: `urna-bench child-pg-push FILE URL binary|text` copies
/// the Urna file FILE into the database at URL (which must hold no Urna data) in one transaction, by binary
/// COPY where it can or by text COPY only, and prints when each table's rows were in, the keys and indexes,
/// and the commit (for finding where a PostgreSQL import's time goes: the file is what the importer wrote).
enum PostgresPushPhases {
    static func run(file: String, url: String, binary: Bool) throws {
        let clock = ContinuousClock()
        let start = clock.now
        func seconds() -> String {
            let d = clock.now - start
            return String(format: "%.2f", Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        let sqlite = try Connection(path: file, readOnly: true, create: false)
        let pg = try PostgresConnection(url)
        // The server process's own CPU (user + system), when it runs on this machine (a loopback test server):
        // unlike the wall clock, it does not grow with the machine's load. Parallel index-build workers are
        // other processes and are not counted.
        let backend = try pg.scalar("SELECT pg_backend_pid()") ?? ""
        func serverCPU() -> String {
            guard let stat = try? String(contentsOfFile: "/proc/\(backend)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return "server CPU unknown" }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
                return "server CPU unknown"
            }
            return String(format: "server CPU %.2f s", (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
        }
        try pg.execute("BEGIN")
        let counts = try PostgresTransfer.push(
            from: sqlite, to: pg, replacing: nil,
            progress: { table, rows in print("\(seconds()) s  \(table): \(rows) rows in, \(serverCPU())") },
            binaryCopy: binary)
        print("\(seconds()) s  keys, indexes, sequences, metadata and views done, \(serverCPU())")
        try pg.execute("COMMIT")
        print(
            "\(seconds()) s  committed (\(counts.reduce(0) { $0 + $1.rows }) rows, \(binary ? "binary" : "text") COPY)")
    }
}
