import Foundation
import Testing

/// `urna download` against a local stand-in for TSE's server (127.0.0.1 only, started and stopped here),
/// then `urna import DIR` of what it wrote.
@Suite("urna download and import DIR", .serialized)
struct CLIDownloadTests {
    static let cand = "/odsele/consulta_cand/consulta_cand_2018.zip"
    static let bem = "/odsele/bem_candidato/bem_candidato_2018.zip"

    func download(_ args: [String]) throws -> CLIResult {
        try AnalysisFixtures.run(
            CLIRunner.binary, ["download"] + args, environment: AnalysisFixtures.loopbackEnvironment)
    }

    func counts(_ db: String) throws -> String {
        let r = try CLIRunner.run([
            "sql", "--db", db, "SELECT (SELECT count(*) FROM Candidate), (SELECT count(*) FROM Good)", "--csv",
        ])
        #expect(r.code == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test(
        "2018 --state MG fetches both zips, a second run fetches nothing, import DIR with a stray PDF loads 2388 + 8583"
    )
    func downloadCacheImport() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let first = try download(["2018", "--state", "MG", "--base-url", server.baseURL, "--dir", d.path])
        #expect(first.code == 0, "\(first.stderr)")
        #expect(first.stdout == "\(d.path)/consulta_cand_2018_MG.csv\n\(d.path)/bem_candidato_2018_MG.csv\n")
        #expect(first.stderr.contains("consulta_cand_2018.zip: downloaded"))
        #expect(first.stderr.contains("bem_candidato_2018.zip: downloaded"))
        let firstAnswers = try server.answers()
        #expect(firstAnswers.map(\.path) == [Self.cand, Self.bem])
        #expect(firstAnswers.map(\.status) == [200, 200])

        let second = try download(["2018", "--state", "MG", "--base-url", server.baseURL, "--dir", d.path])
        #expect(second.code == 0, "\(second.stderr)")
        #expect(second.stderr.contains("consulta_cand_2018.zip: unchanged since the last download (nothing fetched)"))
        let secondAnswers = Array(try server.answers().dropFirst(2))
        #expect(secondAnswers.map(\.status) == [304, 304])
        #expect(secondAnswers.map(\.bytes) == [0, 0])

        try Data("%PDF-1.4\nnot data\n".utf8).write(to: d.appendingPathComponent("LEIAME.pdf"))
        let db = dir.appendingPathComponent("mg.sqlite").path
        let imported = try CLIRunner.run(["import", "--db", db, "--quiet", d.path])
        #expect(imported.code == 0, "\(imported.stderr)")
        #expect(imported.stderr == "warning: skipped \(d.path)/LEIAME.pdf: a PDF, not TSE data\n")
        #expect(try counts(db) == "2388,8583")
    }

    @Test("A connection dropped mid-file is resumed with a Range request; the zip is whole")
    func droppedConnectionResumes() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir, dropOnce: [String(Self.cand.dropFirst())])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("the connection dropped at"))
        #expect(r.stderr.contains("consulta_cand_2018.zip: resumed at"))
        let answers = try server.answers()
        #expect(answers.map(\.status) == [200, 206])
        let served = try Data(
            contentsOf: server.root.appendingPathComponent("odsele/consulta_cand/consulta_cand_2018.zip"))
        #expect(answers[0].bytes + answers[1].bytes == served.count)
        #expect(try Data(contentsOf: d.appendingPathComponent("consulta_cand_2018.zip")) == served)
        // The whole zip in DIR imports as it is; download's hidden cache records are not read.
        let db = dir.appendingPathComponent("x.sqlite").path
        let imported = try CLIRunner.run(["import", "--db", db, "--quiet", d.path])
        #expect(imported.code == 0, "\(imported.stderr)")
        #expect(imported.stderr.isEmpty, "\(imported.stderr)")
        #expect(try counts(db) == "2388,0")
    }

    @Test("A server sending an unquoted ETag (ETag: abc123) is resumed after a dropped connection; the zip is whole")
    func unquotedETagResumes() throws {
        // The unquoted ETag sent as If-Range was taken for a date and compared with the 206's Last-Modified: every
        // resume was refused as another version (200, 206, 200, 206, then an error, nothing downloaded).
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rel = String(Self.cand.dropFirst())
        let server = try TSETestServer(in: dir, dropOnce: [rel], hostile: ["--unquoted-etag", rel])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("consulta_cand_2018.zip: resumed at"), "\(r.stderr)")
        #expect(!r.stderr.contains("another version"), "\(r.stderr)")
        let answers = try server.answers()
        #expect(answers.map(\.status) == [200, 206])
        let served = try Data(
            contentsOf: server.root.appendingPathComponent("odsele/consulta_cand/consulta_cand_2018.zip"))
        #expect(try Data(contentsOf: d.appendingPathComponent("consulta_cand_2018.zip")) == served)
    }

    @Test("A download that does not open as a zip is deleted and fetched again")
    func corruptZipRefetched() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir, corruptOnce: [String(Self.bem.dropFirst())])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try download(["2018", "--kinds", "bem", "--base-url", server.baseURL, "--dir", d.path])
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.stderr.contains("bem_candidato_2018.zip arrived but does not open as a zip"))
        #expect(try server.answers().map(\.status) == [200, 200])
        let served = try Data(
            contentsOf: server.root.appendingPathComponent("odsele/bem_candidato/bem_candidato_2018.zip"))
        #expect(try Data(contentsOf: d.appendingPathComponent("bem_candidato_2018.zip")) == served)

        // A local file damaged later is noticed on the next run, deleted and fetched again (no conditional request).
        try Data("damaged".utf8).write(to: d.appendingPathComponent("bem_candidato_2018.zip"))
        let again = try download(["2018", "--kinds", "bem", "--base-url", server.baseURL, "--dir", d.path])
        #expect(again.code == 0, "\(again.stderr)")
        #expect(again.stderr.contains("does not open as a zip"))
        #expect(try server.answers().map(\.status) == [200, 200, 200])
    }

    @Test("A file the server does not have is a clear 404 (exit 66); the others still download")
    func notFound() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try download(["2018", "--kinds", "coligacao,cand", "--base-url", server.baseURL, "--dir", d.path])
        #expect(r.code == 66)
        #expect(
            r.stderr.contains(
                "Error: \(server.baseURL)/consulta_coligacao/consulta_coligacao_2018.zip does not exist on the server (HTTP 404)"
            ))
        #expect(FileManager.default.fileExists(atPath: d.appendingPathComponent("consulta_cand_2018.zip").path))
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("consulta_coligacao_2018.zip").path))
    }

    /// Replaces the server's 2018 consulta_cand zip with one a Python script writes (`sys.argv[1]` is its path;
    /// `sys` and `zipfile` are imported).
    static func replaceCandidateZip(of server: TSETestServer, _ script: String) throws {
        let python = try #require(AnalysisFixtures.python, "python3 builds the zip")
        let zip = server.root.appendingPathComponent("odsele/consulta_cand/consulta_cand_2018.zip").path
        let made = try CLIRunner.runProcess(python, ["-c", "import sys, zipfile\n" + script, zip])
        #expect(made.code == 0, "\(made.stderr)")
    }

    @Test("A member whose name holds a NUL never deletes another file: the bem file extracted before it is kept")
    func memberNameWithNUL() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        // The cand zip carries `bem_candidato_2018_MG.csv<NUL>XXXXXX_MG.csv` (and a `../` member, kept to its base name).
        try Self.replaceCandidateZip(
            of: server,
            """
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("bem_candidato_2018_MG.csvNULBYTE_MG.csv", b"evil")
                z.writestr("../../slip_MG.csv", b"slip")
            data = open(sys.argv[1], "rb").read().replace(b"NULBYTE", b"\\x00XXXXXX")
            open(sys.argv[1], "wb").write(data)
            """)
        let d = dir.appendingPathComponent("D")
        let r = try download([
            "2018", "--state", "MG", "--kinds", "bem,cand", "--base-url", server.baseURL, "--dir", d.path,
        ])
        // The bem member was extracted, then deleted by the NUL-named one (its name cut at the NUL), exit 0.
        #expect(r.code != 0, "\(r.stderr)")
        #expect(r.stderr.contains("cannot be a file name here"), "\(r.stderr)")
        let bem = try Data(contentsOf: d.appendingPathComponent("bem_candidato_2018_MG.csv"))
        #expect(
            bem == (try Data(contentsOf: AnalysisFixtures.sample.appendingPathComponent("bem_candidato_2018_MG.csv"))))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("slip_MG.csv").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path).allSatisfy { !$0.contains("XXXXXX") })
    }

    @Test("Two members of one base name in different folders of a zip are refused, never one over the other")
    func duplicateMemberNames() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        try Self.replaceCandidateZip(
            of: server,
            """
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("a/consulta_cand_2018_MG.csv", b"first")
                z.writestr("b/consulta_cand_2018_MG.csv", b"second")
            """)
        let d = dir.appendingPathComponent("D")
        let r = try download([
            "2018", "--state", "MG", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path,
        ])
        #expect(r.code != 0, "\(r.stderr)")
        #expect(r.stderr.contains("would both be written as consulta_cand_2018_MG.csv"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("consulta_cand_2018_MG.csv").path))
    }

    @Test("Members whose names differ only in case or accent encoding are refused, never one over the other")
    func caseAndNormalizationTwins() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        for (first, second) in [
            ("consulta_cand_2018_MG.csv", "CONSULTA_CAND_2018_MG.csv"),
            ("consulta_cand_2018_S\\u00c3O_MG.csv", "consulta_cand_2018_SA\\u0303O_MG.csv"),
        ] {
            // On a case-insensitive drive (macOS, FAT/exFAT) the second was written over the first, exit 0.
            try Self.replaceCandidateZip(
                of: server,
                """
                with zipfile.ZipFile(sys.argv[1], "w") as z:
                    z.writestr("\(first)", b"first")
                    z.writestr("\(second)", b"second")
                """)
            let d = dir.appendingPathComponent("D-\(UUID().uuidString)")
            let r = try download([
                "2018", "--state", "MG", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path,
            ])
            #expect(r.code != 0, "\(r.stderr)")
            #expect(r.stderr.contains("differ only in letter case or accents"), "\(r.stderr)")
            let written = (try? FileManager.default.contentsOfDirectory(atPath: d.path)) ?? []
            #expect(written.allSatisfy { $0.hasPrefix(".") }, "\(written)")
        }
    }

    @Test("A folder with the zip's or a member's name is never deleted: exit 1 naming it, its files kept")
    func folderAtTheNameKept() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        for name in ["consulta_cand_2018.zip", "consulta_cand_2018_MG.csv"] {
            try FileManager.default.createDirectory(
                at: d.appendingPathComponent(name), withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: d.appendingPathComponent(name).appendingPathComponent("mine.txt"))
        }
        // The zip's folder (and everything in it) used to be deleted as "does not open as a zip", exit 0.
        let whole = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path])
        #expect(whole.code == 1, "\(whole.stderr)")
        #expect(whole.stderr.contains("a folder has the name of the zip: urna never deletes it"), "\(whole.stderr)")
        // With --state the zip goes to D/.urna-zips; the member's folder was deleted the same way.
        let member = try download(
            ["2018", "--state", "MG", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path])
        #expect(member.code == 1, "\(member.stderr)")
        #expect(member.stderr.contains("a folder has the name of the member"), "\(member.stderr)")
        for name in ["consulta_cand_2018.zip", "consulta_cand_2018_MG.csv"] {
            let kept = try Data(contentsOf: d.appendingPathComponent(name).appendingPathComponent("mine.txt"))
            #expect(kept == Data("mine".utf8), "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: d.path).allSatisfy { !$0.contains("extracting") })
    }

    @Test("No server: a clear network error, exit 1, nothing written")
    func offline() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let r = try download(["2018", "--kinds", "cand", "--base-url", "http://127.0.0.1:1/odsele", "--dir", dir.path])
        #expect(r.code == 1)
        #expect(r.stderr.contains("cannot download http://127.0.0.1:1/odsele/consulta_cand/consulta_cand_2018.zip"))
        #expect(r.stderr.contains("are you online?"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test("Bad usage of download exits 64 with the fix")
    func badUsage() throws {
        let year = try CLIRunner.run(["download", "18"])
        #expect(year.code == 64)
        #expect(year.stderr.contains("YEAR is an election year like 2018, not '18'"))
        let kind = try CLIRunner.run(["download", "2018", "--kinds", "cands"])
        #expect(kind.code == 64)
        #expect(kind.stderr.contains("did you mean 'cand'?"))
        let state = try CLIRunner.run(["download", "2018", "--state", "XX"])
        #expect(state.code == 64)
        let url = try CLIRunner.run(["download", "2018", "--base-url", "file:///etc"])
        #expect(url.code == 64)
        #expect(url.stderr.contains("--base-url must start with http:// or https://"))
    }

    @Test(
        "import DIR reads subfolders in path order and skips foreign files; an explicit PDF warns, an unknown CSV still stops"
    )
    func importFolder() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let d = dir.appendingPathComponent("D")
        try FileManager.default.createDirectory(
            at: d.appendingPathComponent("b/assets"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv"),
            to: d.appendingPathComponent("a.csv"))
        try FileManager.default.copyItem(
            at: AnalysisFixtures.sample.appendingPathComponent("bem_candidato_2018_MG.csv"),
            to: d.appendingPathComponent("b/assets/bens.csv"))
        try FileManager.default.copyItem(
            at: AnalysisFixtures.sample.appendingPathComponent("elections-v1-seed.sqlite"),
            to: d.appendingPathComponent("b/old.sqlite"))
        try Data("%PDF-1.7".utf8).write(to: d.appendingPathComponent("b/manual.pdf"))
        try Data("a;b\n1;2\n".utf8).write(to: d.appendingPathComponent("b/notes.csv"))
        try Data("hidden".utf8).write(to: d.appendingPathComponent(".cache"))
        let db = dir.appendingPathComponent("x.sqlite").path
        let r = try CLIRunner.run(["import", "--db", db, "--quiet", d.path])
        #expect(r.code == 0, "\(r.stderr)")
        let warnings = r.stderr.split(separator: "\n").map(String.init)
        #expect(warnings.count == 3, "\(r.stderr)")
        #expect(warnings[0] == "warning: skipped \(d.path)/b/manual.pdf: a PDF, not TSE data")
        #expect(warnings[1].hasPrefix("warning: skipped \(d.path)/b/notes.csv: no TSE layout recognises it"))
        #expect(warnings[2] == "warning: skipped \(d.path)/b/old.sqlite: an SQLite database, not TSE data")
        #expect(try counts(db) == "2388,8583")

        let pdf = try CLIRunner.run([
            "import", "--db", dir.appendingPathComponent("y.sqlite").path, "--quiet",
            d.appendingPathComponent("a.csv").path,
            d.appendingPathComponent("b/manual.pdf").path,
        ])
        #expect(pdf.code == 0, "\(pdf.stderr)")
        #expect(pdf.stderr == "warning: skipped \(d.path)/b/manual.pdf: a PDF, not TSE data\n")
        let csv = try CLIRunner.run([
            "import", "--db", dir.appendingPathComponent("z.sqlite").path, d.appendingPathComponent("b/notes.csv").path,
        ])
        #expect(csv.code == 65)
        let empty = try CLIRunner.run([
            "import", "--db", dir.appendingPathComponent("w.sqlite").path,
            d.appendingPathComponent("b/manual.pdf").path,
        ])
        #expect(empty.code == 66)
        #expect(empty.stderr.contains("no TSE data to import"))
    }
}
