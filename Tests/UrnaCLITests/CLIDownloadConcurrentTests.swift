import Foundation
import Testing

/// Two `urna download` runs of one URL into one folder at once (a sixth attacker's trial): they shared the hidden
/// `.NAME.partial` file, so one emptied or replaced it under the other. Seen failing before the lock.
@Suite("urna download: two runs into one folder at once", .serialized)
struct CLIDownloadConcurrentTests {
    static let candZip = "odsele/consulta_cand/consulta_cand_2018.zip"

    @Test("The second run waits for the first; both exit 0 and the zip and its members are whole")
    func twoRunsShareNoPartialFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir, hostile: ["--slow", "\(Self.candZip)=2"])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let base = server.baseURL
        let box = Results()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            // The second starts while the first is filling the partial file.
            if i == 1 { Thread.sleep(forTimeInterval: 0.7) }
            let r = try? AnalysisFixtures.run(
                CLIRunner.binary,
                ["download", "2018", "--kinds", "cand", "--state", "MG", "--base-url", base, "--dir", d.path],
                environment: AnalysisFixtures.loopbackEnvironment, timeout: 60)
            if let r { box.append(r) }
        }
        let results = box.all
        #expect(results.count == 2)
        for r in results { #expect(r.code == 0, "\(r.stderr)") }
        #expect(
            results.contains { $0.stderr.contains("is running: waiting for it to finish") }, "\(results.map(\.stderr))")
        let served = try Data(contentsOf: server.root.appendingPathComponent(Self.candZip))
        let zips = d.appendingPathComponent(".urna-zips")
        #expect(try Data(contentsOf: zips.appendingPathComponent("consulta_cand_2018.zip")) == served)
        let member = try Data(contentsOf: d.appendingPathComponent("consulta_cand_2018_MG.csv"))
        let original = try Data(contentsOf: AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv"))
        #expect(member == original)
        let names =
            ((try? FileManager.default.contentsOfDirectory(atPath: d.path)) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: zips.path)) ?? [])
        let hidden = names.filter { $0.hasPrefix(".") && $0 != ".urna-zips" && !$0.hasSuffix(".zip.download") }
        #expect(hidden.isEmpty, "\(hidden)")
    }

    /// The two runs' results, filled from two threads.
    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [CLIResult] = []
        func append(_ r: CLIResult) {
            lock.lock()
            items.append(r)
            lock.unlock()
        }
        var all: [CLIResult] {
            lock.lock()
            defer { lock.unlock() }
            return items
        }
    }
}
