import Foundation
import Testing

/// `urna download` lists the files it wrote on standard output, one a line, for scripts to read: a `--dir`
/// holding a tab was listed escaped (`out\x09dir/consulta_cand_2018_MG.csv`, a path that does not exist).
@Suite("urna download lists raw paths", .serialized)
struct CLIDownloadPathListTests {
    func download(_ args: [String]) throws -> CLIResult {
        try AnalysisFixtures.run(
            CLIRunner.binary, ["download"] + args, environment: AnalysisFixtures.loopbackEnvironment)
    }

    @Test("A --dir holding a tab is listed as it is on standard output, and each listed path exists")
    func tabInDir() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("out\tdir").path
        let r = try download(["2018", "--state", "MG", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout == "\(d)/consulta_cand_2018_MG.csv\n", "\(r.stdout)")
        for line in r.stdout.split(separator: "\n") {
            #expect(FileManager.default.fileExists(atPath: String(line)), "\(line)")
        }
        let zip = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d])
        #expect(zip.code == 0, "\(zip.stderr)")
        #expect(zip.stdout == "\(d)/consulta_cand_2018.zip\n", "\(zip.stdout)")
    }

    @Test("A --dir holding a line feed or carriage return is refused up front (exit 64); nothing is made")
    func lineBreakInDir() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["out\ndir", "out\rdir"] {
            let d = dir.appendingPathComponent(name).path
            let r = try download(["2018", "--kinds", "cand", "--base-url", "http://127.0.0.1:9", "--dir", d])
            #expect(r.code == 64, "\(r.stderr)")
            #expect(r.stderr.contains("holds a line break"), "\(r.stderr)")
            #expect(r.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: d))
        }
    }
}
