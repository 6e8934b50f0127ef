import Foundation
import Testing

@testable import UrnaDownload

#if canImport(Glibc)
    import Glibc
#endif

/// A zip fetched under a one-character name in the current folder (`x`): the download named its lock, cache record
/// and partial file through Foundation's `deletingLastPathComponent`, which traps on such a name on Linux, so
/// `Downloader.fetch(_:to: "x")` crashed with SIGILL before asking the server anything. (`urna download` itself
/// always fetches TSE's zip names into a folder, so it never passed such a name.)
@Suite struct DownloadOneCharacterNameTests {
    @Test("A fetch into the one-character name x downloads the zip, with its hidden sidecars named .x.*")
    func oneCharacterName() async throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let served = try Data(
            contentsOf: server.root.appendingPathComponent("odsele/consulta_cand/consulta_cand_2018.zip"))
        // In a child process: the fetch needs the current folder changed, and before the fix it crashed.
        let result = await #expect(
            processExitsWith: .success, observing: [\.standardOutputContent, \.standardErrorContent]
        ) { [folder = dir.path as String, url = server.baseURL + "/consulta_cand/consulta_cand_2018.zip" as String] in
            for (name, value) in AnalysisFixtures.loopbackEnvironment { setenv(name, value, 1) }
            guard chdir(folder) == 0 else { throw TestServerError("cannot enter \(folder)") }
            print("sidecar \(Downloader.sidecar(of: "x", suffix: "lock"))")
            print("folder \(PartialFile.folder(of: "x"))")
            print(try Downloader().fetch(url, to: "x"))
        }
        guard let result else { return }  // the exit test did not run: #expect has recorded why
        #expect(
            String(decoding: result.standardOutputContent, as: UTF8.self)
                == "sidecar .x.lock\nfolder .\nfetched(bytes: \(served.count))\n",
            "\(String(decoding: result.standardErrorContent, as: UTF8.self))")
        #expect(FileManager.default.contents(atPath: dir.appendingPathComponent("x").path) == served)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(".x.download").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent(".x.partial").path))
        #expect(try server.answers().map(\.status) == [200])
    }
}
