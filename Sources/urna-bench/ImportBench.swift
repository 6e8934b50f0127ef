import Foundation
import UrnaImport
import UrnaRecords

/// urna's typed, linked, upserted import against sqlite3's own `.import` of the same two files as raw text
/// tables, in the same run.
enum ImportBench {
    static func run(candidates: Int, assets: Int, urna: String, rounds: Int = 3) throws {
        let dir = try BenchHarness.temporaryDirectory()
        print(
            "\n## Import: \(candidates) candidacies + \(assets) assets (Latin-1, as TSE ships them), \(rounds) rounds")
        let candidateSource = try readZipMember("SampleData/consulta_cand_2018_BRASIL.zip")
        let assetSource = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "SampleData/bem_candidato_2018_MG.csv")))
        let files = try ImportWorkload.build(
            in: dir, candidates: candidates, assets: assets,
            candidateSource: candidateSource, assetSource: assetSource)
        let bytes = [files.candidates, files.assets].compactMap {
            try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int
        }.reduce(0, +)
        print(
            "workload: \(files.candidateRows) + \(files.assetRows) rows, \(String(format: "%.1f", Double(bytes) / 1_048_576)) MB, built from the real 2018 files"
        )
        let peerDB = dir.appendingPathComponent("sqlite3-import.db").path
        let urnaDB = dir.appendingPathComponent("urna-import.sqlite").path
        let rows = Double(files.candidateRows + files.assetRows)
        var peers: [Measurement] = []
        var ours: [Measurement] = []
        print(BenchHarness.row(["round", "sqlite3 .import (s)", "urna import (s)", "ratio", "urna peak memory (MB)"]))
        print(BenchHarness.row(["---", "---", "---", "---", "---"]))
        for round in 1...max(rounds, 1) {
            for path in [peerDB, urnaDB] {
                for suffix in ["", "-wal", "-shm", "-journal", ".rejects.csv"] {
                    try? FileManager.default.removeItem(atPath: path + suffix)
                }
            }
            // The peer gets the page size urna's importer creates its files with (it gains 2-3% from it).
            peers.append(
                try BenchHarness.measure(
                    executable: "sqlite3",
                    [
                        peerDB, "PRAGMA page_size = \(Importer.pageSize)", ".mode csv", ".separator ;",
                        ".import \(files.candidates) consulta_cand",
                        ".import \(files.assets) bem_candidato",
                    ]))
            ours.append(
                try BenchHarness.measure(
                    executable: urna, ["import", "--db", urnaDB, "--quiet", files.candidates, files.assets]))
            print(
                BenchHarness.row([
                    "\(round)", String(format: "%.2f", peers.last!.seconds), String(format: "%.2f", ours.last!.seconds),
                    String(format: "%.2fx", ours.last!.seconds / peers.last!.seconds),
                    String(format: "%.1f", ours.last!.peakMB),
                ]))
        }
        // The workload must load as the distinct candidacies and goods it was built as: a workload that
        // collapses into updates or conflicts would measure something else.
        // (The sample national file lacks some of MG's candidacies, so a few goods are rightly rejected.)
        let stored = try storedCounts(urnaDB)
        let rejectedGoods = try rejectedRows(urnaDB + ".rejects.csv", file: files.assets)
        let complete =
            stored.candidates == files.candidateRows && stored.goods + rejectedGoods == files.assetRows
        print(
            "stored: \(stored.candidates) candidacies, \(stored.goods) goods (+ \(rejectedGoods) rejected: no candidacy)"
                + (complete ? ", every workload row" : " -- WORKLOAD CHECK FAILED: the timing below does not count"))
        let peerSeconds = BenchHarness.median(peers.map(\.seconds))
        let ourSeconds = BenchHarness.median(ours.map(\.seconds))
        let peak = ours.map(\.peakMB).max() ?? 0
        print(BenchHarness.row(["medians", "time (s)", "rows/s", "peak memory (MB)"]))
        print(BenchHarness.row(["---", "---", "---", "---"]))
        print(
            BenchHarness.row([
                "sqlite3 .import, raw text tables (peer)", String(format: "%.2f", peerSeconds),
                String(format: "%.0f", rows / peerSeconds), String(format: "%.1f", peers.map(\.peakMB).max() ?? 0),
            ]))
        print(
            BenchHarness.row([
                "urna import: typed, linked, upserted", String(format: "%.2f", ourSeconds),
                String(format: "%.0f", rows / ourSeconds), String(format: "%.1f", peak),
            ]))
        let ratio = ourSeconds / peerSeconds
        print(
            String(
                format:
                    "ratio urna/sqlite3 (medians): %.2fx (target <= 1.0x: %@); peak memory %.1f MB (target < 200 MB: %@)",
                ratio, ratio <= 1.0 ? "met" : "NOT met", peak, peak < 200 ? "met" : "NOT met"))
    }

    /// Candidate and Good rows in an imported file, read by the sqlite3 shell.
    static func storedCounts(_ db: String) throws -> (candidates: Int, goods: Int) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [
            "sqlite3", "-readonly", db, "SELECT (SELECT count(*) FROM Candidate) || ' ' || (SELECT count(*) FROM Good)",
        ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let n = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap {
            Int($0)
        }
        guard p.terminationStatus == 0, n.count == 2 else { throw BenchError("could not count the rows of \(db)") }
        return (n[0], n[1])
    }

    /// Rows of `file` in a rejects file (each reject line starts with the input's file name).
    static func rejectedRows(_ rejects: String, file: String) throws -> Int {
        guard let data = FileManager.default.contents(atPath: rejects) else { return 0 }
        let prefix = Array(((file as NSString).lastPathComponent + ",").utf8)
        return data.split(separator: 10, omittingEmptySubsequences: true).count { $0.starts(with: prefix) }
    }

    /// Imports `files` into a fresh `db` and prints when each phase began and how long it lasted.
    static func phases(db: String, files: [String]) throws {
        for suffix in ["", "-wal", "-shm", "-journal", ".rejects.csv"] {
            try? FileManager.default.removeItem(atPath: db + suffix)
        }
        let recording = RecordingImportProgress()
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try Importer(options: ImportOptions(dbPath: db), progress: recording).run(files: files)
        let total = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var marks: [(phase: String, at: Double)] = []
        for s in recording.snapshots where marks.last?.phase != s.phase.rawValue {
            marks.append((s.phase.rawValue, s.elapsedSeconds))
        }
        for (i, m) in marks.enumerated() {
            let end = i + 1 < marks.count ? marks[i + 1].at : total
            print(String(format: "%-13@ from %6.2f s, %6.2f s", m.phase as NSString, m.at, end - m.at))
        }
        print(String(format: "total %.2f s", total))
    }

    /// The first data member of a zip, whole (the sample zip is about 19 MB unpacked).
    static func readZipMember(_ path: String) throws -> [UInt8] {
        let zip = try ZipArchive(path: path, name: (path as NSString).lastPathComponent)
        guard let entry = zip.entries.first(where: { $0.isDataFile }) else {
            throw BenchError("\(path) has no data member")
        }
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
