import Foundation
import UrnaImport
import UrnaRecords

/// urna's typed, linked, upserted import against sqlite3's own `.import` of the same two files as raw text
/// tables, in the same run.
enum ImportBench {
    static func run(candidates: Int, assets: Int, urna: String) throws {
        let dir = try BenchHarness.temporaryDirectory()
        print("\n## Import: \(candidates) candidacies + \(assets) assets (Latin-1, as TSE ships them)")
        let candidateSource = try readZipMember("SampleData/consulta_cand_2018_BRASIL.zip")
        let assetSource = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "SampleData/bem_candidato_2018_MG.csv")))
        let files = try ImportWorkload.build(in: dir, candidates: candidates, assets: assets,
                                             candidateSource: candidateSource, assetSource: assetSource)
        let bytes = [files.candidates, files.assets].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }.reduce(0, +)
        print("workload: \(files.candidateRows) + \(files.assetRows) rows, \(String(format: "%.1f", Double(bytes) / 1_048_576)) MB, built from the real 2018 files")
        let peerDB = dir.appendingPathComponent("sqlite3-import.db").path
        // The peer gets the page size urna's importer creates its files with (it gains 2-3% from it).
        let peer = try BenchHarness.measure(executable: "sqlite3", [peerDB, "PRAGMA page_size = \(Importer.pageSize)", ".mode csv", ".separator ;",
                                                                     ".import \(files.candidates) consulta_cand",
                                                                     ".import \(files.assets) bem_candidato"])
        let urnaDB = dir.appendingPathComponent("urna-import.sqlite").path
        let ours = try BenchHarness.measure(executable: urna, ["import", "--db", urnaDB, "--quiet", files.candidates, files.assets])
        let rows = Double(files.candidateRows + files.assetRows)
        print(BenchHarness.row(["what", "time (s)", "rows/s", "peak memory (MB)"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        print(BenchHarness.row(["sqlite3 .import, raw text tables (peer)", String(format: "%.2f", peer.seconds), String(format: "%.0f", rows / peer.seconds), String(format: "%.1f", peer.peakMB)]))
        print(BenchHarness.row(["urna import: typed, linked, upserted", String(format: "%.2f", ours.seconds), String(format: "%.0f", rows / ours.seconds), String(format: "%.1f", ours.peakMB)]))
        let ratio = ours.seconds / peer.seconds
        print(String(format: "ratio urna/sqlite3: %.2fx (target <= 1.0x: %@); peak memory %.1f MB (target < 200 MB: %@)",
                     ratio, ratio <= 1.0 ? "met" : "NOT met", ours.peakMB, ours.peakMB < 200 ? "met" : "NOT met"))
    }

    /// The first data member of a zip, whole (the sample zip is about 19 MB unpacked).
    static func readZipMember(_ path: String) throws -> [UInt8] {
        let zip = try ZipArchive(path: path, name: (path as NSString).lastPathComponent)
        guard let entry = zip.entries.first(where: { $0.isDataFile }) else { throw BenchError("\(path) has no data member") }
        let source = try zip.open(entry)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
            if n == 0 { break }
            out += buffer[0..<n]
        }
        return out
    }
}
