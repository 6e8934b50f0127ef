import Foundation
import PostgresTestSupport
import UrnaImport

/// urna against PostgreSQL's own tools on a throwaway server (127.0.0.1, started and stopped here), in the same
/// run: the import workload against `psql \copy` of the same files into raw text tables, and the people
/// v0 -> v2 migration against hand-written SQL in psql.
enum PostgresBench {
    static func run(
        candidates: Int, assets: Int, rows: Int, urna: String, rounds: Int, baseline: String? = nil,
        importOnly: Bool = false
    ) throws {
        print("\n## PostgreSQL: import and migration on a throwaway PostgreSQL server, \(rounds) rounds")
        let cluster: PostgresTestCluster
        do {
            cluster = try PostgresTestCluster.shared()
        } catch {
            print("skipped: no PostgreSQL server could be started (\(error)); install Debian's postgresql")
            return
        }
        defer { cluster.stop() }
        let psql = cluster.binDirectory + "/psql"
        let dir = try BenchHarness.temporaryDirectory()
        let candidateSource = try ImportBench.readZipMember("SampleData/consulta_cand_2018_BRASIL.zip")
        let assetSource = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "SampleData/bem_candidato_2018_MG.csv")))
        let files = try ImportWorkload.build(
            in: dir, candidates: candidates, assets: assets, candidateSource: candidateSource, assetSource: assetSource)
        print("import workload: \(files.candidateRows) + \(files.assetRows) rows (the SQLite import benchmark's files)")
        func header(_ path: String) throws -> [String] {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            let bytes = [UInt8](handle.readData(ofLength: 1 << 16))
            let line = Array(bytes.prefix { $0 != 10 && $0 != 13 })
            return ImportWorkload.fields(line)
        }
        func rawTable(_ name: String, _ columns: [String]) -> String {
            "CREATE TABLE \(name) (" + columns.map { "\"\($0)\" text" }.joined(separator: ", ") + ")"
        }
        let candColumns = try header(files.candidates)
        let assetColumns = try header(files.assets)
        var peers: [Measurement] = []
        var ours: [Measurement] = []
        var baselines: [Measurement] = []
        var columns = [
            "round", "psql \\copy (s)", "urna import --db postgresql:// (s)", "ratio", "urna peak memory (MB)",
        ]
        if baseline != nil { columns += ["baseline urna (s)", "baseline ratio"] }
        print(BenchHarness.row(columns))
        print(BenchHarness.row(columns.map { _ in "---" }))
        // Every round starts from the same server: the previous round's databases are dropped, and a checkpoint
        // before each side writes out what the last one left dirty (else each round pays for the one before it,
        // and autovacuum works through the old rounds' tables while this one runs).
        func freshDatabase(_ prefix: String) throws -> String {
            let url = try cluster.createDatabase(prefix: prefix)
            _ = try cluster.psql("CHECKPOINT", url: url)
            return url
        }
        func drop(_ url: String) throws {
            guard let name = url.split(separator: "/").last else { return }
            _ = try cluster.psql("DROP DATABASE \"\(name)\" WITH (FORCE)", url: cluster.url(database: "postgres"))
        }
        func importWithUrna(_ executable: String, round: Int) throws -> Measurement {
            let url = try freshDatabase("urna")
            let m = try BenchHarness.measure(
                executable: executable,
                [
                    "import", "--db", url, "--quiet", "--rejects",
                    dir.appendingPathComponent("pg.rejects.\(round).csv").path, files.candidates, files.assets,
                ])
            let stored = try cluster.psql(
                "SELECT (SELECT count(*) FROM \"Candidate\") || ' ' || (SELECT count(*) FROM \"Good\")", url: url
            )
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").compactMap { Int($0) }
            let storedOK =
                stored.count == 2 && stored[0] == files.candidateRows && stored[1] <= files.assetRows
                && stored[1] > files.assetRows * 9 / 10
            if !storedOK || round == rounds {
                print(
                    "stored in PostgreSQL by \(executable): \(stored.first ?? 0) candidacies, \(stored.last ?? 0) goods"
                        + (storedOK ? "" : " -- WORKLOAD CHECK FAILED"))
            }
            try drop(url)
            return m
        }
        for round in 1...rounds {
            let peerURL = try freshDatabase("peer")
            _ = try cluster.psql(
                rawTable("consulta_cand", candColumns) + "; " + rawTable("bem_candidato", assetColumns), url: peerURL)
            let options = "(FORMAT csv, DELIMITER ';', HEADER true, ENCODING 'LATIN1')"
            peers.append(
                try BenchHarness.measure(
                    executable: psql,
                    [
                        peerURL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                        "\\copy consulta_cand FROM '\(files.candidates)' \(options)",
                        "-c", "\\copy bem_candidato FROM '\(files.assets)' \(options)",
                    ]))
            try drop(peerURL)
            ours.append(try importWithUrna(urna, round: round))
            var cells = [
                "\(round)", String(format: "%.2f", peers.last!.seconds), String(format: "%.2f", ours.last!.seconds),
                String(format: "%.2fx", ours.last!.seconds / peers.last!.seconds),
                String(format: "%.1f", ours.last!.peakMB),
            ]
            if let baseline {
                baselines.append(try importWithUrna(baseline, round: round))
                cells += [
                    String(format: "%.2f", baselines.last!.seconds),
                    String(format: "%.2fx", baselines.last!.seconds / peers.last!.seconds),
                ]
            }
            print(BenchHarness.row(cells))
        }
        let importRatio = BenchHarness.median(ours.map(\.seconds)) / BenchHarness.median(peers.map(\.seconds))
        print(
            String(
                format: "ratio urna/psql \\copy (medians): %.2fx (target <= 1.5x: %@)", importRatio,
                importRatio <= 1.5 ? "met" : "NOT met"))
        if !baselines.isEmpty {
            let r = BenchHarness.median(baselines.map(\.seconds)) / BenchHarness.median(peers.map(\.seconds))
            print(
                String(
                    format: "baseline urna/psql \\copy (medians): %.2fx; this build / baseline (medians): %.2fx", r,
                    BenchHarness.median(ours.map(\.seconds)) / BenchHarness.median(baselines.map(\.seconds))))
        }
        if importOnly {
            try? FileManager.default.removeItem(at: dir)
            return
        }

        // Migration: people v0 with `rows` objects, made by psql; urna migrate against the same change by hand.
        var peerMigrations: [Measurement] = []
        var ourMigrations: [Measurement] = []
        print("\nmigration workload: \(rows) Person objects, people v0 -> v2")
        print(
            BenchHarness.row(["round", "hand-written SQL in psql (s)", "urna migrate --db postgresql:// (s)", "ratio"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        for round in 1...rounds {
            var urls: [String] = []
            for prefix in ["migpeer", "migurna"] {
                let url = try freshDatabase(prefix)
                _ = try BenchHarness.measure(
                    executable: urna, ["init", "--db", url, "--family", "people", "--version", "0"])
                _ = try cluster.psql(
                    "INSERT INTO \"Person\"(\"firstName\", \"lastName\", age) SELECT 'First' || i, 'Last' || i, i % 100 FROM generate_series(1, \(rows)) AS i",
                    url: url)
                _ = try cluster.psql("VACUUM ANALYZE \"Person\"", url: url)
                urls.append(url)
            }
            _ = try cluster.psql("CHECKPOINT", url: urls[0])
            let handWritten = """
                BEGIN;
                ALTER TABLE "Person" ADD COLUMN "fullName" text NOT NULL DEFAULT '';
                UPDATE "Person" SET "fullName" = "firstName" || ' ' || "lastName";
                ALTER TABLE "Person" DROP COLUMN "firstName", DROP COLUMN "lastName", ADD COLUMN "email" text NOT NULL DEFAULT '';
                UPDATE _urna_schema SET version = 2;
                COMMIT;
                """
            peerMigrations.append(
                try BenchHarness.measure(
                    executable: psql, [urls[0], "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", handWritten]))
            ourMigrations.append(try BenchHarness.measure(executable: urna, ["migrate", "--db", urls[1]]))
            let check = try cluster.psql(
                "SELECT count(*) FROM \"Person\" WHERE \"fullName\" = 'First' || _id || ' Last' || _id", url: urls[1])
            print(
                BenchHarness.row([
                    "\(round)", String(format: "%.2f", peerMigrations.last!.seconds),
                    String(format: "%.2f", ourMigrations.last!.seconds),
                    String(format: "%.2fx", ourMigrations.last!.seconds / peerMigrations.last!.seconds)
                        + (Int(check.trimmingCharacters(in: .whitespacesAndNewlines)) == rows
                            ? "" : " (CHECK FAILED: fullName)"),
                ]))
            for url in urls { try drop(url) }
        }
        let migrationRatio =
            BenchHarness.median(ourMigrations.map(\.seconds)) / BenchHarness.median(peerMigrations.map(\.seconds))
        print(
            String(
                format: "ratio urna/hand-written SQL (medians): %.2fx (target <= 2x: %@)", migrationRatio,
                migrationRatio <= 2 ? "met" : "NOT met"))
        try? FileManager.default.removeItem(at: dir)
    }
}
