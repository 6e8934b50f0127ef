import Foundation
import Testing

/// What an attacker's trial (hostile files, careless paths) found losing data without a word, each now refused
/// or said: exports over databases, backups replaced, duplicate header columns, folder links, damaged files in a
/// folder, markup inside XML fields.
@Suite("urna command line: careless paths and hostile files")
struct CLIAttackFindingsTests {
    static let sample = CLIRunner.packageRoot.appendingPathComponent("SampleData")
    static var mgCandidates: String { sample.appendingPathComponent("consulta_cand_2018_MG.csv").path }
    static var mgAssets: String { sample.appendingPathComponent("bem_candidato_2018_MG.csv").path }

    func md5(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("export --out and datasette-metadata --out never replace an SQLite database or a write-protected file")
    func exportNeverReplacesADatabase() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("p.sqlite").path
        let other = dir.appendingPathComponent("other.sqlite").path
        #expect(try CLIRunner.run(["init", "--db", db, "--family", "people", "--version", "0"]).code == 0)
        #expect(try CLIRunner.run(["init", "--db", other, "--family", "people", "--version", "0"]).code == 0)
        let before = try md5(other)
        for args in [
            ["export", "--db", db, "--format", "json", "--type", "Person", "--out", other], ["datasette-metadata", "--db", db, "--out", other],
        ] {
            let r = try CLIRunner.run(args)
            #expect(r.code == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("is an SQLite database"), "\(r.stderr)")
            #expect(try md5(other) == before)
        }
        let locked = dir.appendingPathComponent("locked.json").path
        try Data("keep".utf8).write(to: URL(fileURLWithPath: locked))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: locked)
        let r = try CLIRunner.run(["export", "--db", db, "--format", "json", "--type", "Person", "--out", locked])
        #expect(r.code == 64 && r.stderr.contains("no write permission (mode 444)"), "\(r.stderr)")
        #expect(try String(contentsOfFile: locked, encoding: .utf8) == "keep")
        // An earlier export is replaced, as -o does.
        let earlier = dir.appendingPathComponent("earlier.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: earlier))
        #expect(try CLIRunner.run(["export", "--db", db, "--format", "json", "--type", "Person", "--out", earlier]).code == 0)
        #expect(try String(contentsOfFile: earlier, encoding: .utf8) != "old")
    }

    @Test("an earlier backup at the default name that holds other data is kept aside, never replaced; an equal one is reused")
    func migrateKeepsAnEarlierBackupOfOtherData() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("p.sqlite").path
        let unrelated = dir.appendingPathComponent("unrelated.sqlite").path
        #expect(try CLIRunner.run(["init", "--db", db, "--family", "people", "--version", "0"]).code == 0)
        #expect(try CLIRunner.run(["init", "--db", unrelated, "--family", "people", "--version", "0"]).code == 0)
        #expect(
            try CLIRunner.run([
                "sql", "--db", unrelated, "--write", "INSERT INTO Person (firstName, lastName, age) VALUES ('Only', 'Here', 1)",
            ]).code == 0)
        let backup = db + ".v0.bak"
        try FileManager.default.copyItem(atPath: unrelated, toPath: backup)
        let earlier = try md5(backup)
        let r = try CLIRunner.run(["migrate", "--db", db])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("kept as \(db).v0.1.bak, not replaced"), "\(r.stdout)")
        #expect(try md5(db + ".v0.1.bak") == earlier)
        #expect(FileManager.default.fileExists(atPath: backup))
        #expect(try md5(backup) != earlier)
    }

    @Test("a header naming one column twice is refused, naming both positions")
    func duplicateHeaderColumnIsRefused() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try String(contentsOfFile: Self.mgCandidates, encoding: .isoLatin1)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: "\"NM_URNA_CANDIDATO\"", with: "\"NM_CANDIDATO\"")
        let file = dir.appendingPathComponent("consulta_cand_dup.csv")
        try lines.joined(separator: "\n").data(using: .isoLatin1)!.write(to: file)
        let db = dir.appendingPathComponent("d.sqlite").path
        let r = try CLIRunner.run(["import", "--db", db, file.path])
        #expect(r.code == 65, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains("its header names column NM_CANDIDATO twice (columns"), "\(r.stderr)")
        // Inside a folder too: damaged TSE data stops the run rather than being skipped.
        let folder = dir.appendingPathComponent("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent("consulta_cand_dup.csv"))
        let inFolder = try CLIRunner.run(["import", "--db", db, folder.path])
        #expect(inFolder.code == 65, "\(inFolder.stdout) \(inFolder.stderr)")
    }

    @Test("a folder: a damaged asset file stops the run; links out of it or back into it are not followed, and said")
    func folderLinksAndDamagedFiles() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = dir.appendingPathComponent("in")
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.mgCandidates, toPath: folder.appendingPathComponent("c.csv").path)
        try FileManager.default.createSymbolicLink(atPath: sub.appendingPathComponent("loop").path, withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("outside").path, withDestinationPath: dir.path)
        let db = dir.appendingPathComponent("f.sqlite").path
        let r = try CLIRunner.run(["import", "--db", db, "--json", folder.path])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("(not followed)") && r.stderr.contains("not read twice"), "\(r.stderr)")
        let j = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect((j["inserted"] as? [String: Int])?["Candidate"] == 2388)
        #expect((j["warnings"] as? [String])?.filter { $0.hasPrefix("skipped ") }.count == 2, "\(j["warnings"] ?? "")")

        let assets = try String(contentsOfFile: Self.mgAssets, encoding: .isoLatin1)
        let damaged = assets.replacingOccurrences(of: "\"VR_BEM_CANDIDATO\"", with: "\"VR_BEM\"")
        try damaged.data(using: .isoLatin1)!.write(to: folder.appendingPathComponent("bem_candidato_x.csv"))
        let stopped = try CLIRunner.run(["import", "--db", dir.appendingPathComponent("g.sqlite").path, folder.path])
        #expect(stopped.code == 65, "\(stopped.stdout) \(stopped.stderr)")
        #expect(stopped.stderr.contains("An asset file needs"), "\(stopped.stderr)")
    }

    @Test("XML: markup inside a field rejects its record; elements no layout has are named in a warning")
    func xmlMarkupAndUnknownElements() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("x.sqlite").path
        let exported = dir.appendingPathComponent("mg.xml").path
        #expect(try CLIRunner.run(["import", "--db", db, Self.mgCandidates]).code == 0)
        let e = try CLIRunner.run(["export", "--db", db, "--format", "xml", "--encoding", "utf8", "--out", exported, "--quiet"])
        #expect(e.code == 0, "\(e.stderr)")
        var xml = try String(contentsOfFile: exported, encoding: .utf8)
        let name = try #require(xml.range(of: "<NM_CANDIDATO>"))
        xml.replaceSubrange(name, with: "<NM_CANDIDATO><b>X</b>")
        let first = try #require(xml.range(of: "<SG_UF>"))
        xml.replaceSubrange(first, with: "<outro>y</outro><SG_UF>")
        try Data(xml.utf8).write(to: URL(fileURLWithPath: exported))
        let r = try CLIRunner.run(["import", "--db", dir.appendingPathComponent("y.sqlite").path, exported])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 rejected"), "\(r.stdout)")
        #expect(r.stdout.contains("elements and attributes not stored:") && r.stdout.contains("outro (1)"), "\(r.stdout)")
        let rejects = try String(contentsOfFile: dir.appendingPathComponent("y.sqlite.rejects.csv").path, encoding: .utf8)
        #expect(rejects.contains("<NM_CANDIDATO> holds an element inside its value (markup)"), "\(rejects)")
    }

    @Test("three imports creating one new database at once: every one lands, none removes another's commit")
    func concurrentImportsIntoANewFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("new.sqlite").path
        let sources = ["consulta_cand_2018_MG.csv", "consulta_cand_2016_AC.txt"].map {
            Self.sample.appendingPathComponent($0).path
        }
        let processes = sources.map { file -> Process in
            let p = Process()
            p.executableURL = CLIRunner.binary
            p.arguments = ["import", "--db", db, "--quiet", file]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            return p
        }
        for p in processes { try p.run() }
        for p in processes { p.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 }, "\(processes.map(\.terminationStatus))")
        let count = try CLIRunner.run(["query", "--db", db, "Candidate", "--count"])
        #expect(count.stdout == "\(2388 + 2310)\n", "\(count.stdout) \(count.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".tmp-import-") }
        #expect(left.isEmpty, "\(left)")
    }
}
