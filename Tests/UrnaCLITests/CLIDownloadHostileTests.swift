import Foundation
import Testing

/// `urna download` against a hostile server or a folder someone else prepared (a fifth attacker's trial):
/// endless and lying answers, redirects to other schemes, and links planted at the partial file's name.
/// Each test was seen failing against the build before its fix.
@Suite("urna download: hostile servers and planted partial files", .serialized)
struct CLIDownloadHostileTests {
    static let candZip = "odsele/consulta_cand/consulta_cand_2018.zip"

    func download(_ args: [String], timeout: Double = 60) throws -> CLIResult {
        try AnalysisFixtures.run(
            CLIRunner.binary, ["download"] + args, environment: AnalysisFixtures.loopbackEnvironment,
            timeout: timeout)
    }

    static func listing(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    @Test("A symbolic link planted as the partial file is never written through; a folder there is never deleted")
    func plantedPartialFile() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let first = try download(["2018", "--base-url", server.baseURL, "--dir", d.path])
        #expect(first.code == 0, "\(first.stderr)")
        // What a resumable partial file looks like: the cache record of the whole file, under the partial's name.
        let record = try Data(contentsOf: d.appendingPathComponent(".consulta_cand_2018.zip.download"))
        try FileManager.default.removeItem(at: d.appendingPathComponent("consulta_cand_2018.zip"))
        try record.write(to: d.appendingPathComponent(".consulta_cand_2018.zip.partial.download"))
        let precious = dir.appendingPathComponent("precious.txt")
        let bytes = Data("someone's file, which must keep every byte\nline 2\nline 3\n".utf8)
        try bytes.write(to: precious)
        try FileManager.default.createSymbolicLink(
            atPath: d.appendingPathComponent(".consulta_cand_2018.zip.partial").path,
            withDestinationPath: precious.path)
        // A folder (with a file in it) at the other zip's partial name.
        try FileManager.default.removeItem(at: d.appendingPathComponent("bem_candidato_2018.zip"))
        let folder = d.appendingPathComponent(".bem_candidato_2018.zip.partial")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: folder.appendingPathComponent("notes.txt"))

        let r = try download(["2018", "--base-url", server.baseURL, "--dir", d.path])
        // The resume wrote the server's bytes into precious.txt from the link's length on, and the folder was
        // deleted as a stale partial file.
        #expect(r.code == 1, "\(r.stderr)")
        #expect(try Data(contentsOf: precious) == bytes)
        #expect(r.stderr.contains("is a symbolic link (to \(precious.path))"), "\(r.stderr)")
        #expect(r.stderr.contains("never writes through a link; remove it and run again"), "\(r.stderr)")
        #expect(r.stderr.contains(".bem_candidato_2018.zip.partial: it is a folder"), "\(r.stderr)")
        #expect(try Data(contentsOf: folder.appendingPathComponent("notes.txt")) == Data("kept".utf8))
    }

    @Test("An endless answer onto a small disk stops when the disk fills, says so, and keeps nothing of it")
    func endlessAnswerFillsNoDisk() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 4096, under: dir)
        defer { fs.unmount() }
        let server = try TSETestServer(in: dir, hostile: ["--endless", Self.candZip])
        defer { server.stop() }
        let free = fs.freeBytes
        let r = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", fs.directory.path])
        // It filled the tmpfs and left it full with a hidden 4 MiB `.consulta_cand_2018.zip.partial`, saying
        // "cannot write ...partial: cannot write ...partial: ... There isn't enough space".
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.contains("the disk holding \(fs.directory.path) filled up after"), "\(r.stderr)")
        #expect(r.stderr.contains("nothing of it was kept"), "\(r.stderr)")
        #expect(Self.listing(fs.directory) == [])
        #expect(fs.freeBytes == free)
    }

    @Test("An answer announcing more than a zip urna can read (or than the disk holds) is refused before a byte")
    func announcedLengthRefused() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(
            in: dir, hostile: ["--announce", "\(Self.candZip)=\(5 << 30)"])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let start = Date()
        // The server announces 5 GiB and sends nothing: urna waited for it (a minute per try, six tries).
        let r = try download(
            ["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path], timeout: 20)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(Date().timeIntervalSince(start) < 15)
        #expect(
            r.stderr.contains("the server announced 5120.0 MiB (Content-Length 5368709120), more than 4096.0 MiB"),
            "\(r.stderr)")
        #expect(Self.listing(d) == [])
    }

    @Test("A length the disk cannot hold is refused before a byte is written")
    func announcedLengthOverFreeSpace() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 1024, under: dir)
        defer { fs.unmount() }
        let server = try TSETestServer(in: dir, hostile: ["--announce", "\(Self.candZip)=\(30 << 20)"])
        defer { server.stop() }
        let r = try download(
            ["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", fs.directory.path], timeout: 20)
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.contains("the server announced 30.0 MiB and the disk holding"), "\(r.stderr)")
        #expect(r.stderr.contains("free space there (or give --dir a folder on another disk)"), "\(r.stderr)")
        #expect(Self.listing(fs.directory) == [])
    }

    @Test("A redirect to file:// is refused as the server's doing, not blamed on the connection")
    func redirectToFileScheme() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir, hostile: ["--redirect", "\(Self.candZip)=file:///etc/passwd"])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path])
        // It said "Protocol "file" not supported ... Check the connection (are you online?) ... A partial file
        // is kept and resumed next time" (there was none).
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "the server redirected to file:///etc/passwd, which urna does not follow (only http and https)"),
            "\(r.stderr)")
        #expect(!r.stderr.contains("are you online"), "\(r.stderr)")
        #expect(Self.listing(d) == [])
    }

    @Test("A member the disk cannot hold is refused before it is inflated, naming it and the folder")
    func memberLargerThanTheDisk() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: 1024, under: dir)
        defer { fs.unmount() }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        // The 0.2 MiB zip fits; its 1.5 MiB MG member does not.
        let r = try download([
            "2018", "--kinds", "cand", "--state", "MG", "--base-url", server.baseURL, "--dir", fs.directory.path,
        ])
        // It filled the disk, then said "Error: Error Domain=NSCocoaErrorDomain Code=640 ..." naming nothing.
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "cannot write \(fs.directory.path)/consulta_cand_2018_MG.csv: the member is 1.5 MiB and the disk "
                    + "holding \(fs.directory.path) has"), "\(r.stderr)")
        #expect(r.stderr.contains("(nothing was extracted)"), "\(r.stderr)")
        #expect(!r.stderr.contains("NSCocoaErrorDomain"), "\(r.stderr)")
        #expect(Self.listing(fs.directory) == [".urna-zips"])
    }

    @Test("A member not named like the zip's own files never replaces the user's file of that name in --dir")
    func foreignMemberName() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        try CLIDownloadTests.replaceCandidateZip(
            of: server,
            """
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("consulta_cand_2018_MG.csv", b"a real member")
                z.writestr("dados/minha_analise_MG.csv", b"the server's bytes")
            """)
        let d = dir.appendingPathComponent("D")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        let mine = Data("my own work, kept beside the downloads\n".utf8)
        try mine.write(to: d.appendingPathComponent("minha_analise_MG.csv"))
        let r = try download([
            "2018", "--state", "MG", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path,
        ])
        // The user's minha_analise_MG.csv was replaced by the zip's member of that name, exit 0.
        #expect(r.code == 1, "\(r.stderr)")
        #expect(
            r.stderr.contains(
                "its member dados/minha_analise_MG.csv is not named like the zip's own files (consulta_cand_2018_<UF>.csv)"
            ),
            "\(r.stderr)")
        #expect(r.stderr.contains("nothing was extracted"), "\(r.stderr)")
        #expect(try Data(contentsOf: d.appendingPathComponent("minha_analise_MG.csv")) == mine)
        #expect(!FileManager.default.fileExists(atPath: d.appendingPathComponent("consulta_cand_2018_MG.csv").path))
    }

    @Test("An HTML page answered with 200 is named as such, not only as a zip without an end record")
    func htmlPageInsteadOfZip() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir, hostile: ["--html", "\(Self.candZip)="])
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        let r = try download(["2018", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path])
        // It said only "did not arrive as a zip that opens (...: no end-of-central-directory record)".
        #expect(r.code == 65, "\(r.stderr)")
        #expect(
            r.stderr.contains("did not arrive as a zip that opens (the server sent an HTML page, not a zip"),
            "\(r.stderr)")
        #expect(r.stderr.contains("check --base-url"), "\(r.stderr)")
        #expect(Self.listing(d) == [])
    }
}
