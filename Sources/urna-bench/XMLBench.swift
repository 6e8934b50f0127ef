import Foundation
import UrnaStore

/// XML out and in: the import workload (see `ImportWorkload`) loaded into a database, exported with
/// `urna export --format xml` (timed), and that XML imported into a fresh file (timed); libxml2's own
/// streaming reader (`xmllint --stream --noout`) on the same file is the peer for reading speed.
enum XMLBench {
    static func run(urna: String, candidates: Int, assets: Int, rounds: Int = 3) throws {
        let dir = try BenchHarness.temporaryDirectory().appendingPathComponent("xml", isDirectory: true)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        print(
            "\n## XML: export a database as XML, import the XML into a fresh file (\(candidates) candidacies + \(assets) assets)"
        )
        let candidateSource = try ImportBench.readZipMember("SampleData/consulta_cand_2018_BRASIL.zip")
        let assetSource = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "SampleData/bem_candidato_2018_MG.csv")))
        let files = try ImportWorkload.build(
            in: dir, candidates: candidates, assets: assets, candidateSource: candidateSource, assetSource: assetSource)
        let sourceDB = dir.appendingPathComponent("source.sqlite").path
        _ = try BenchHarness.measure(
            executable: urna, ["import", "--db", sourceDB, "--quiet", files.candidates, files.assets])
        let xml = dir.appendingPathComponent("candidatos.xml").path
        let export = try BenchHarness.measure(
            executable: urna, ["export", "--db", sourceDB, "--format", "xml", "--out", xml, "--quiet"])
        let freshDB = dir.appendingPathComponent("from-xml.sqlite").path
        let megabytes = Double(try fileSize(xml)) / 1_048_576
        let xmllint = executablePath("xmllint")
        var peers: [Measurement] = []
        var imports: [Measurement] = []
        print(BenchHarness.row(["round", "xmllint --stream (MB/s)", "urna import (MB/s)", "urna peak memory (MB)"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        for round in 1...max(rounds, 1) {
            for suffix in ["", "-wal", "-shm", "-journal", ".rejects.csv"] {
                try? FileManager.default.removeItem(atPath: freshDB + suffix)
            }
            if let xmllint {
                peers.append(try BenchHarness.measure(executable: xmllint, ["--stream", "--noout", xml]))
            }
            imports.append(try BenchHarness.measure(executable: urna, ["import", "--db", freshDB, "--quiet", xml]))
            print(
                BenchHarness.row([
                    "\(round)", peers.last.map { String(format: "%.0f", megabytes / $0.seconds) } ?? "-",
                    String(format: "%.0f", megabytes / imports.last!.seconds),
                    String(format: "%.1f", imports.last!.peakMB),
                ]))
        }
        let (sourceCounts, freshCounts) = (try counts(sourceDB), try counts(freshDB))
        print("file: \(String(format: "%.1f", megabytes)) MB of XML (Latin-1); \(sourceCounts)")
        print(BenchHarness.row(["what (median of \(imports.count) rounds)", "time (s)", "MB/s", "peak memory (MB)"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        if !peers.isEmpty {
            print(row("libxml2 xmllint --stream --noout, parse only (peer)", median(peers), megabytes))
        } else {
            print(
                BenchHarness.row([
                    "libxml2 xmllint (peer)", "-", "-", "not installed: add libxml2-utils to the bench deps",
                ]))
        }
        print(row("urna export --format xml (one run)", export, megabytes))
        let importXML = median(imports)
        print(row("urna import of the XML: parsed, mapped, typed, linked, upserted", importXML, megabytes))
        let speed = megabytes / importXML.seconds
        print(
            String(
                format:
                    "import %.0f MB/s, median (target >= 60: %@), peak memory %.1f MB (target < 200 MB: %@); export peak %.1f MB",
                speed, speed >= 60 ? "met" : "NOT met", importXML.peakMB, importXML.peakMB < 200 ? "met" : "NOT met",
                export.peakMB))
        print(
            "round trip: \(freshCounts == sourceCounts ? "same object counts" : "DIFFERENT object counts: \(freshCounts)")"
        )
    }

    /// The median time, with the highest peak memory of all the runs.
    private static func median(_ runs: [Measurement]) -> Measurement {
        Measurement(
            seconds: BenchHarness.median(runs.map(\.seconds)), peakMB: runs.map(\.peakMB).max() ?? 0, output: "")
    }

    private static func row(_ what: String, _ m: Measurement, _ megabytes: Double) -> String {
        BenchHarness.row([
            what, String(format: "%.2f", m.seconds), String(format: "%.0f", megabytes / m.seconds),
            String(format: "%.1f", m.peakMB),
        ])
    }

    private static func fileSize(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Objects per type, for a summary line and a sanity check of the round trip.
    private static func counts(_ db: String) throws -> String {
        let c = try Connection(path: db, readOnly: true, create: false)
        return try ["Candidate", "Good", "Party", "Coalition", "Election", "GoodType"].map {
            "\(try c.integer("SELECT count(*) FROM \"\($0)\"")) \($0)"
        }.joined(separator: ", ")
    }

    /// The program's path on PATH, if installed.
    private static func executablePath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
