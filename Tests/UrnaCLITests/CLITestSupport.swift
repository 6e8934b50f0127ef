import Foundation
import Testing

/// Helpers for the data-analysis commands' tests: a file made from SampleData, processes with their own
/// environment, and local servers that tests start and stop themselves.
enum AnalysisFixtures {
    static let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData")

    /// A temporary folder holding `urna.sqlite` imported from the 2018 MG candidate and asset files.
    static func mgDatabase() throws -> (dir: URL, db: String) {
        let dir = try CLIRunner.tempDir()
        let db = dir.appendingPathComponent("urna.sqlite").path
        let r = try CLIRunner.run([
            "import", "--db", db, "--quiet", sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
            sample.appendingPathComponent("bem_candidato_2018_MG.csv").path,
        ])
        #expect(r.code == 0, "\(r.stderr)")
        return (dir, db)
    }

    /// Runs a program with extra environment variables (proxies off for loopback, TERM, ...).
    /// `timeout`: a run still going after that many seconds is killed (SIGKILL), so a hang fails instead of waiting.
    static func run(
        _ executable: URL, _ args: [String], environment extra: [String: String], in dir: URL? = nil,
        timeout: Double? = nil
    ) throws -> CLIResult {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        if let dir { p.currentDirectoryURL = dir }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in extra { env[k] = v }
        p.environment = env
        let tmp = FileManager.default.temporaryDirectory
        let outURL = tmp.appendingPathComponent("urna-cli-out-\(UUID().uuidString)")
        let errURL = tmp.appendingPathComponent("urna-cli-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        if let timeout {
            let deadline = Date().addingTimeInterval(timeout)
            while p.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        }
        p.waitUntilExit()
        try out.close()
        try err.close()
        return CLIResult(
            code: p.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// Environment for talking to servers on 127.0.0.1: no proxy may take the request elsewhere.
    static let loopbackEnvironment = [
        "no_proxy": "127.0.0.1,localhost", "NO_PROXY": "127.0.0.1,localhost", "http_proxy": "", "https_proxy": "",
        "HTTP_PROXY": "", "HTTPS_PROXY": "", "ALL_PROXY": "", "all_proxy": "",
    ]

    /// The first python3 on the usual paths, or nil.
    static var python: URL? {
        for p in ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
        where FileManager.default.isExecutableFile(atPath: p) {
            return URL(fileURLWithPath: p)
        }
        return nil
    }

    /// Waits (up to `seconds`) for a file to appear and returns its text.
    static func waitForFile(_ path: String, seconds: Double = 20) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: path, encoding: .utf8), !text.isEmpty { return text }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}

/// The test HTTP server (Tests/UrnaCLITests/tse_http_server.py) serving fixture zips on 127.0.0.1.
final class TSETestServer {
    static let script = CLIRunner.packageRoot.appendingPathComponent("Tests/UrnaCLITests/tse_http_server.py")
    let root: URL
    let log: URL
    let port: Int
    private let process: Process
    /// The server's standard input: closing it stops the server even when signals cannot reach it.
    private let lifeline = Pipe()

    /// Makes `odsele/consulta_cand/consulta_cand_2018.zip` and `odsele/bem_candidato/bem_candidato_2018.zip`
    /// from SampleData's MG files and starts serving them.
    /// `hostile`: more arguments for the server (`--endless REL`, `--announce REL=BYTES`, `--redirect REL=URL`).
    init(in dir: URL, dropOnce: [String] = [], corruptOnce: [String] = [], hostile: [String] = []) throws {
        guard let python = AnalysisFixtures.python else {
            try Test.cancel(Comment(rawValue: "skipped: python3 is not installed, so the test HTTP server cannot run"))
        }
        root = dir.appendingPathComponent("server")
        for (folder, source) in [
            ("consulta_cand", "consulta_cand_2018_MG.csv"), ("bem_candidato", "bem_candidato_2018_MG.csv"),
        ] {
            let d = root.appendingPathComponent("odsele/\(folder)")
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            let zip = try CLIRunner.runProcess(
                python,
                [
                    Self.script.path, "zip", d.appendingPathComponent("\(folder)_2018.zip").path,
                    AnalysisFixtures.sample.appendingPathComponent(source).path,
                ])
            #expect(zip.code == 0, "\(zip.stderr)")
        }
        log = dir.appendingPathComponent("server.log")
        let portFile = dir.appendingPathComponent("server.port")
        process = Process()
        process.executableURL = python
        process.arguments =
            [Self.script.path, "serve", root.path, portFile.path, log.path]
            + dropOnce.flatMap { ["--drop-once", $0] } + corruptOnce.flatMap { ["--corrupt-once", $0] } + hostile
        process.standardInput = lifeline
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard let text = AnalysisFixtures.waitForFile(portFile.path), let port = Int(text) else {
            process.terminate()
            throw TestServerError("the test HTTP server did not start")
        }
        self.port = port
    }

    var baseURL: String { "http://127.0.0.1:\(port)/odsele" }

    /// Every answer so far: (path, status, bytes of body).
    func answers() throws -> [(path: String, status: Int, bytes: Int)] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return (o["path"] as? String ?? "", o["status"] as? Int ?? 0, o["bytes"] as? Int ?? 0)
        }
    }

    func stop() {
        guard process.isRunning else { return }
        try? lifeline.fileHandleForWriting.close()
        process.terminate()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
