import Foundation
import UrnaMigrator
import UrnaSchemas
import UrnaStore

#if canImport(Glibc)
    import Glibc
#endif

/// Migration benchmark: a people v0 file with `rows` persons is upgraded to v2 through seed 000's
/// closure by the migrator, and the same change is made with hand-written SQL on a copy of the same
/// file. Prints both times (wall and CPU) per round, the medians over `rounds` rounds, their ratio and
/// the peak resident memory. The sides take turns inside each round, so a slow spell of the machine
/// falls on both.
///
/// ```
/// urna-bench --only migrate --rows 1000000 --rounds 5
/// ```
func runMigrationBench(rows: Int, rounds: Int = 3, directory: String? = nil) throws {
    let dir =
        directory
        ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("urna-migration-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { if directory == nil { try? FileManager.default.removeItem(atPath: dir) } }
    let pristine = (dir as NSString).appendingPathComponent("people-v0.sqlite")
    let viaMigrator = (dir as NSString).appendingPathComponent("people-migrator.sqlite")
    let viaSQL = (dir as NSString).appendingPathComponent("people-sql.sqlite")
    let viaQuick = (dir as NSString).appendingPathComponent("people-quick.sqlite")

    var clock = MigrationBench.Clock()
    try MigrationBench.buildPeopleV0(at: pristine, rows: rows)
    let size = ((try? FileManager.default.attributesOfItem(atPath: pristine)[.size] as? Int) ?? 0) / 1_048_576
    print(
        String(
            format:
                "## migrate: people v0 → v2 through seed 000's closure, %d rows (%d MB file, built in %.2f s), %d rounds",
            rows, size, clock.lap().wall, rounds))
    let rssBefore = MigrationBench.peakRSSMegabytes()

    var migratorTimes: [(wall: Double, cpu: Double)] = []
    var quickTimes: [(wall: Double, cpu: Double)] = []
    var sqlTimes: [(wall: Double, cpu: Double)] = []
    var phases = MigrationBench.Phases()
    var quickPhases = MigrationBench.Phases()
    var sqlPhases = MigrationBench.Phases()
    var same = true
    var rssAfter = rssBefore
    print(
        BenchHarness.row(["round", "migrator (s wall / CPU)", "no integrity_check", "hand-written SQL", "ratio (wall)"])
    )
    print(BenchHarness.row(["---", "---", "---", "---", "---"]))
    for round in 1...max(rounds, 1) {
        for path in [viaMigrator, viaSQL, viaQuick] {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: path + suffix)
            }
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
        }
        phases = MigrationBench.Phases()
        let migrator = Migrator(family: SchemaFamilies.people, reporter: phases)
        clock = MigrationBench.Clock()
        _ = try migrator.run(try migrator.plan(path: viaMigrator), backup: .none)
        migratorTimes.append(clock.lap())
        if round == 1 { rssAfter = MigrationBench.peakRSSMegabytes() }

        sqlPhases = MigrationBench.Phases()
        clock = MigrationBench.Clock()
        try MigrationBench.handWrittenV0ToV2(at: viaSQL, phases: sqlPhases)
        sqlTimes.append(clock.lap())

        quickPhases = MigrationBench.Phases()
        var quick = Migrator(family: SchemaFamilies.people, reporter: quickPhases)
        quick.options.integrityCheck = .none
        clock = MigrationBench.Clock()
        _ = try quick.run(try quick.plan(path: viaQuick), backup: .none)
        quickTimes.append(clock.lap())

        // Both ways must give the same rows.
        let a = try Connection(path: viaMigrator, readOnly: true, create: false)
        let b = try Connection(path: viaSQL, readOnly: true, create: false)
        let probe = "SELECT count(*), sum(length(fullName)), sum(age), max(_id) FROM \"Person\""
        same = try same && a.rows(probe) == b.rows(probe)
        let f = { (t: (wall: Double, cpu: Double)) in String(format: "%.2f / %.2f", t.wall, t.cpu) }
        print(
            BenchHarness.row([
                "\(round)", f(migratorTimes.last!), f(quickTimes.last!), f(sqlTimes.last!),
                String(format: "%.2fx", migratorTimes.last!.wall / sqlTimes.last!.wall),
            ]))
    }
    let median = { (xs: [(wall: Double, cpu: Double)]) in
        (wall: BenchHarness.median(xs.map(\.wall)), cpu: BenchHarness.median(xs.map(\.cpu)))
    }
    let (m, q, h) = (median(migratorTimes), median(quickTimes), median(sqlTimes))
    print(
        String(
            format:
                "medians: migrator, closures + checks (integrity_check, foreign keys, shape): %.2f s wall, %.2f s CPU",
            m.wall, m.cpu))
    print(
        String(format: "         migrator, closures, integrity_check skipped: %.2f s wall, %.2f s CPU", q.wall, q.cpu))
    print(
        String(
            format: "         hand-written SQL (new table, INSERT ... SELECT, drop, rename): %.2f s wall, %.2f s CPU",
            h.wall, h.cpu))
    let ratio = m.wall / h.wall
    print(
        String(
            format:
                "ratio migrator / SQL (medians): %.2fx wall (target <= 2x: %@), %.2fx CPU (without integrity_check %.2fx wall, %.2fx CPU)",
            ratio, ratio <= 2 ? "met" : "NOT met", m.cpu / h.cpu, q.wall / h.wall, q.cpu / h.cpu))
    print("(CPU is the calling thread's: the migrator's second thread, which reads old rows ahead, is not in it)")
    print("phases of the last round (wall s / CPU s):")
    print("  migrator:            " + phases.summary)
    print("  migrator, no check:  " + quickPhases.summary)
    print("  hand-written SQL:    " + sqlPhases.summary)
    print(
        "peak RSS: \(rssBefore) MB before migrating, \(rssAfter) MB after the first round (\(rssAfter - rssBefore) MB for \(rows) rows); same rows: \(same)"
    )
}

/// Files, clocks and memory for the migration benchmark.
enum MigrationBench {
    /// A people v0 file with `rows` persons, written with one prepared INSERT in one transaction.
    static func buildPeopleV0(at path: String, rows: Int) throws {
        do { _ = try Store(path: path, schema: People.v0) }
        let c = try Connection(path: path, create: false)
        try c.execute("BEGIN")
        let insert = try c.prepare("INSERT INTO \"Person\" (\"firstName\", \"lastName\", \"age\") VALUES (?, ?, ?)")
        let first = ["Ada", "Alan", "Grace", "José", "Maria", "João", "Ana", "Pedro"]
        let last = ["Lovelace", "Turing", "Hopper", "Conceição", "Silva", "Souza", "Oliveira", "Santos"]
        for i in 0..<rows {
            insert.bindText(first[i % first.count], at: 1)
            insert.bindText(last[(i / 8) % last.count] + String(i), at: 2)
            insert.bindInt(Int64(i % 100), at: 3)
            try insert.runToCompletion()
        }
        try c.execute("COMMIT")
    }

    /// The migrator's side alone (with its integrity_check), for profilers.
    static func migrateOnly(at path: String) throws {
        let migrator = Migrator(family: SchemaFamilies.people)
        _ = try migrator.run(try migrator.plan(path: path), backup: .none)
    }

    /// The v0 → v2 change by hand, the way a person would write it for SQLite (timed in phases as the
    /// migrator reports its own: `copy`, `rebuild`, `commit`, `close`).
    static func handWrittenV0ToV2(at path: String, phases: Phases? = nil) throws {
        var t = (wall: Date(), cpu: Clock.threadCPU())
        func mark(_ name: String) {
            let now = (wall: Date(), cpu: Clock.threadCPU())
            phases?.phaseFinished(name, seconds: now.wall.timeIntervalSince(t.wall), cpuSeconds: now.cpu - t.cpu)
            t = now
        }
        do {
            let c = try Connection(path: path, create: false)
            try c.execute("PRAGMA foreign_keys = OFF")
            try c.execute("BEGIN IMMEDIATE")
            try c.execute(StorageLayout.createTableSQL(People.v2.types[0], in: People.v2, tableName: "Person_new"))
            try c.execute(
                "INSERT INTO \"Person_new\" (\"_id\", \"fullName\", \"email\", \"age\") SELECT \"_id\", \"firstName\" || ' ' || \"lastName\", '', \"age\" FROM \"Person\""
            )
            mark("copy")
            try c.execute("DROP TABLE \"Person\"")
            try c.execute("ALTER TABLE \"Person_new\" RENAME TO \"Person\"")
            try Store.recordSchema(People.v2, in: c)
            mark("rebuild")
            try c.execute("COMMIT")
            mark("commit")
        }
        mark("close")
    }

    /// Collects the phases a migration reports, in order (a phase reported twice is summed).
    final class Phases: MigrationReporter {
        var names: [String] = []
        var times: [String: (wall: Double, cpu: Double)] = [:]

        func phaseFinished(_ phase: String, seconds: Double, cpuSeconds: Double) {
            if times[phase] == nil { names.append(phase) }
            let t = times[phase] ?? (0, 0)
            times[phase] = (t.wall + seconds, t.cpu + cpuSeconds)
        }

        var summary: String {
            names.map { n in n + String(format: " %.2f/%.2f", times[n]!.wall, times[n]!.cpu) }.joined(separator: ", ")
        }
    }

    /// Wall time and this thread's CPU time (user + system) since it was made; CPU time moves less
    /// when other processes share the machine.
    struct Clock {
        var wall = Date()
        var cpu = Clock.threadCPU()

        static func threadCPU() -> Double {
            var t = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }

        mutating func lap() -> (wall: Double, cpu: Double) {
            let result = (Date().timeIntervalSince(wall), Clock.threadCPU() - cpu)
            wall = Date()
            cpu = Clock.threadCPU()
            return result
        }
    }

    /// The process's peak resident set size, in MB (getrusage's ru_maxrss is in KB on Linux).
    static func peakRSSMegabytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) / 1024
    }
}
