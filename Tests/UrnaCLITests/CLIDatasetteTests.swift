import Foundation
import Testing

/// `urna datasette-metadata` checked by a real Datasette (from PyPI, test environment only: `make test`
/// installs it into .build/test-venv) on 127.0.0.1, through its JSON API.
@Suite("urna datasette-metadata", .serialized)
struct CLIDatasetteTests {
    static var datasette: URL? {
        var candidates = [CLIRunner.packageRoot.appendingPathComponent(".build/test-venv/bin/datasette").path]
        if let env = ProcessInfo.processInfo.environment["URNA_DATASETTE"] { candidates.insert(env, at: 0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }

    @Test("The metadata hides Urna's tables and link tables, labels links and describes money in cents")
    func metadataJSON() throws {
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try CLIRunner.run(["datasette-metadata", "--db", db])
        #expect(r.code == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let databases = try #require(json["databases"] as? [String: Any])
        let tables = try #require((databases["urna"] as? [String: Any])?["tables"] as? [String: [String: Any]])
        for hidden in ["_urna_schema", "_urna_history", "Candidate_goods", "Coalition_parties"] {
            #expect(tables[hidden]?["hidden"] as? Bool == true, "\(hidden)")
        }
        #expect(tables["Party"]?["label_column"] as? String == "acronym")
        #expect(tables["Election"]?["label_column"] as? String == "electionDescription")
        let goodColumns = try #require(tables["Good"]?["columns"] as? [String: String])
        #expect(goodColumns["value"]?.contains("TSE VR_BEM_CANDIDATO; money in cents") == true)
        // The family's views, described from the descriptor, with units.
        let goodsView = try #require(tables["goods"]?["columns"] as? [String: String])
        #expect(goodsView["VR_BEM_CANDIDATO"] == "declared value (R$)")
        #expect(goodsView["VR_BEM_CANDIDATO_CENTAVOS"] == "declared value, exact (centavos)")
        #expect((tables["candidacies"]?["description"] as? String)?.hasPrefix("One row per candidacy") == true)
        #expect(tables["coalition_members"] != nil)
        // Written beside the file by import too.
        let i = try CLIRunner.run([
            "import", "--db", db, "--quiet", "--datasette-metadata",
            AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv").path,
        ])
        #expect(i.code == 0, "\(i.stderr)")
        let beside = try String(contentsOfFile: dir.appendingPathComponent("urna.metadata.json").path, encoding: .utf8)
        #expect(beside == r.stdout)
    }

    @Test("A real Datasette given the metadata hides the internal tables and shows parties by acronym")
    func realDatasette() throws {
        guard let datasette = Self.datasette else {
            try Test.cancel(
                Comment(rawValue: "skipped: Datasette is not installed (make test-deps puts it in .build/test-venv)"))
        }
        guard let python = AnalysisFixtures.python else {
            try Test.cancel(Comment(rawValue: "skipped: python3 is needed to pick a free port and read the API"))
        }
        let (dir, db) = try AnalysisFixtures.mgDatabase()
        defer { try? FileManager.default.removeItem(at: dir) }
        let metadata = dir.appendingPathComponent("urna.metadata.json").path
        let m = try CLIRunner.run(["datasette-metadata", "--db", db, "--out", metadata])
        #expect(m.code == 0, "\(m.stderr)")
        let portText = try CLIRunner.runProcess(
            python,
            [
                "-c",
                "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()",
            ])
        let port = try #require(Int(portText.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let server = Process()
        server.executableURL = datasette
        server.arguments = ["serve", db, "--metadata", metadata, "--host", "127.0.0.1", "--port", String(port)]
        let lifeline = Pipe()
        server.standardInput = lifeline
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            let deadline = Date().addingTimeInterval(5)
            while server.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
        }
        func get(_ path: String) throws -> Any? {
            let fetch = """
                import json, sys, time, urllib.request
                for attempt in range(200):
                    try:
                        print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()); sys.exit(0)
                    except OSError:
                        time.sleep(0.1)
                sys.exit(1)
                """
            let r = try AnalysisFixtures.run(
                python, ["-c", fetch, "http://127.0.0.1:\(port)\(path)"],
                environment: AnalysisFixtures.loopbackEnvironment)
            guard r.code == 0 else { return nil }
            return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        }
        let database = try #require(try get("/urna.json") as? [String: Any], "Datasette did not answer")
        let tables = try #require(database["tables"] as? [[String: Any]])
        let hidden = Dictionary(
            uniqueKeysWithValues: tables.map { ($0["name"] as? String ?? "", $0["hidden"] as? Bool ?? false) })
        for name in ["_urna_schema", "_urna_history", "Candidate_goods", "Coalition_parties"] {
            #expect(hidden[name] == true, "\(name) is not hidden")
        }
        for name in ["Candidate", "Party", "Election", "Good"] { #expect(hidden[name] == false, "\(name)") }
        let rows = try #require(
            try get("/urna/Candidate.json?sequence=130000600702&_labels=on&_shape=array")
                as? [[String: Any]])
        let zema = try #require(rows.first)
        #expect((zema["party"] as? [String: Any])?["label"] as? String == "NOVO")
        #expect((zema["election"] as? [String: Any])?["label"] as? String == "Eleições Gerais Estaduais 2018")
    }
}
