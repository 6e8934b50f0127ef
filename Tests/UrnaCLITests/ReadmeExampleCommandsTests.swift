import Foundation
import PostgresTestSupport
import Testing

/// Every example in README's "Command line" section runs against SampleData and exits 0.
@Suite("README command examples", .serialized)
struct ReadmeExampleCommandsTests {
    /// The lines of the first ```sh block after "## Command line" that start with `urna `.
    static func examples() throws -> [String] {
        let readme = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let section = readme.range(of: "## Command line") else { return [] }
        let rest = readme[section.upperBound...]
        guard let open = rest.range(of: "```sh\n"), let close = rest[open.upperBound...].range(of: "```") else {
            return []
        }
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("urna ") }
    }

    /// Examples allowed to find nothing in SampleData (none: each example must show something; SampleData's MG
    /// 2018 file predates the election, so a results example asks for AC).
    static let knownEmpty: [String] = []

    /// What an example must show besides exit 0: a query or SQL prints rows (a count, a number above 0), and a
    /// file an example writes (`--out`, `>`) is there and not empty.
    func checkOutput(of line: String, _ r: CLIResult, in dir: URL) throws {
        // Options and redirections after the last quoted argument (a `>` inside a predicate or SQL is none).
        let unquoted = line.split(separator: "\"", omittingEmptySubsequences: false).last.map(String.init) ?? line
        let words = unquoted.split(separator: " ").map(String.init)
        var written: [String] = []
        for (i, w) in words.enumerated() where (w == "--out" || w == ">") && i + 1 < words.count {
            written.append(words[i + 1])
        }
        for file in written {
            let size =
                (try? FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(file).path)[.size])
                as? NSNumber
            #expect((size?.intValue ?? 0) > 0, "\(line) did not write \(file)")
        }
        guard written.isEmpty, line.hasPrefix("urna query ") || line.hasPrefix("urna sql ") else { return }
        if Self.knownEmpty.contains(where: { line.contains($0) }) { return }
        if line.contains("--count") {
            #expect((Int(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(line)\n\(r.stdout)")
        } else {
            #expect(r.stdout.split(separator: "\n").count >= 2, "\(line) printed no rows:\n\(r.stdout)")
            #expect(!r.stderr.hasPrefix("0 "), "\(line): \(r.stderr)")
        }
    }

    /// A new folder holding a link to SampleData and urna.sqlite as `make run` makes it (the file README's and
    /// the help's examples start from).
    static func folderAsMakeRunLeavesIt() throws -> URL {
        let dir = try CLIRunner.tempDir()
        try FileManager.default.createSymbolicLink(
            at: dir.appendingPathComponent("SampleData"), withDestinationURL: AnalysisFixtures.sample)
        let setup = try CLIRunner.run(
            [
                "import", "--db", "urna.sqlite", "--quiet", "SampleData/consulta_cand_2016_AC.txt",
                "SampleData/consulta_legendas_2016_AC.txt", "SampleData/consulta_cand_2018_MG.csv",
                "SampleData/bem_candidato_2018_MG.csv",
            ], in: dir)
        #expect(setup.code == 0, "\(setup.stderr)")
        return dir
    }

    @Test("Each example exits 0, in order, in a folder prepared from SampleData, and prints or writes something")
    func examplesRun() throws {
        let examples = try Self.examples()
        #expect(examples.count >= 15, "README's command examples were not found")
        let dir = try Self.folderAsMakeRunLeavesIt()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The other files the examples start from: an old app's v1 file.
        try FileManager.default.copyItem(
            at: AnalysisFixtures.sample.appendingPathComponent("elections-v1-seed.sqlite"),
            to: dir.appendingPathComponent("old.sqlite"))
        // The plain SQLite file (no urna made it) that the adopt examples bring under people version 0.
        let legacy = try AnalysisFixtures.run(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                "legacy.sqlite",
                "CREATE TABLE Person (firstName TEXT, lastName TEXT, age INTEGER); INSERT INTO Person VALUES ('Ana', 'Souza', 30), ('José', 'Lima', 41);",
            ], environment: [:], in: dir)
        #expect(legacy.code == 0, "\(legacy.stderr)")
        let server = try TSETestServer(in: try CLIRunner.tempDir())
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: server.root.deletingLastPathComponent())
        }
        let binaryFolder = CLIRunner.binary.deletingLastPathComponent().path
        var environment = AnalysisFixtures.loopbackEnvironment
        environment["PATH"] = binaryFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        // The PostgreSQL examples run against a throwaway cluster (skipped, and said so, without a server).
        let exampleServer = "postgresql://urna@127.0.0.1:5432/tse"
        var postgresURL: String?
        if examples.contains(where: { $0.contains(exampleServer) }) {
            let (cluster, reason) = try PostgresTestCluster.sharedIfAvailable()
            if let cluster {
                postgresURL = try cluster.createDatabase(prefix: "readme")
            } else {
                print("README examples: the PostgreSQL ones are \(reason)")
            }
        }
        for example in examples {
            if example.contains(exampleServer), postgresURL == nil { continue }
            // The only changes: downloads go to the local test server instead of TSE's, and the PostgreSQL
            // examples to the test cluster.
            var line = example.hasPrefix("urna download ") ? example + " --base-url \(server.baseURL)" : example
            if let postgresURL { line = line.replacingOccurrences(of: exampleServer, with: postgresURL) }
            let r = try AnalysisFixtures.run(
                URL(fileURLWithPath: "/bin/bash"), ["-c", line], environment: environment, in: dir)
            #expect(r.code == 0, "\(line)\n\(r.stderr)")
            try checkOutput(of: line, r, in: dir)
            if line.hasPrefix("urna query --db legacy.sqlite") {
                #expect(r.stdout == "fullName\nAna Souza\nJosé Lima\n", "\(line)\n\(r.stdout)")
            }
            if postgresURL != nil, line.hasPrefix("urna query --db postgresql:"), line.contains("vice != nil") {
                #expect(r.stdout == "9\n", "\(line)\n\(r.stdout)")
            }
        }
    }
}
