import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT while `urna download --state` writes a member: the hidden half member (`.NAME.extracting`, hundreds
/// of MB with TSE's files) was left in the folder after "interrupted: nothing was changed".
@Suite("urna download interrupted", .serialized)
struct CLIDownloadSignalTests {
    @Test("SIGINT during a member's extraction: exit 130, no half member left, the member not published")
    func interruptedExtraction() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        // 64 MiB that does not compress (the zip-bomb checks refuse absurd ratios), so extracting takes a while.
        try CLIDownloadTests.replaceCandidateZip(
            of: server,
            """
            import os
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
                z.writestr("consulta_cand_2018_MG.csv", os.urandom(64 << 20))
            """)
        let d = dir.appendingPathComponent("D")
        let p = Process()
        p.executableURL = CLIRunner.binary
        p.arguments = [
            "download", "2018", "--state", "MG", "--kinds", "cand", "--base-url", server.baseURL, "--dir", d.path,
        ]
        p.environment = AnalysisFixtures.loopbackEnvironment
        p.standardOutput = FileHandle.nullDevice
        let errPath = dir.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errPath.path, contents: nil)
        let errFile = try FileHandle(forWritingTo: errPath)
        p.standardError = errFile
        try p.run()
        let half = d.appendingPathComponent(".consulta_cand_2018_MG.csv.extracting").path
        let start = Date()
        while p.isRunning, !FileManager.default.fileExists(atPath: half), Date().timeIntervalSince(start) < 60 {
            usleep(1000)
        }
        #expect(FileManager.default.fileExists(atPath: half), "the extraction was never seen running")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: d.path)
        #expect(!left.contains { $0.hasSuffix(".extracting") }, "\(left)")
        #expect(!left.contains("consulta_cand_2018_MG.csv"), "\(left)")
        // The zip fetched before the signal is kept (download is not one transaction): said, not "nothing was
        // changed".
        try errFile.close()
        let said = try String(contentsOf: errPath, encoding: .utf8)
        #expect(said.contains("interrupted: the 1 file put in place before the signal is kept, whole"), "\(said)")
        #expect(!said.contains("nothing was changed\n"), "\(said)")
    }

    @Test("SIGINT between two files: exit 130 naming the kept file, never exit 0 with a file not fetched")
    func interruptedBetweenFiles() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try TSETestServer(in: dir)
        defer { server.stop() }
        let d = dir.appendingPathComponent("D")
        // Standard error is a pipe filled to the brim beforehand: the run blocks in its first line ("...zip:
        // downloaded"), after the first zip is in place and before the loop asks for the next: the signal lands
        // there, every time.
        let pipe = Pipe()
        let fill = [UInt8](repeating: 0x2E, count: 4096)
        var filled = 0
        let flags = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_GETFL)
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFL, flags | O_NONBLOCK)
        while true {
            let n = fill.withUnsafeBytes { write(pipe.fileHandleForWriting.fileDescriptor, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            filled += n
        }
        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFL, flags)
        let p = Process()
        p.executableURL = CLIRunner.binary
        p.arguments = ["download", "2018", "--kinds", "cand,bem", "--base-url", server.baseURL, "--dir", d.path]
        p.environment = AnalysisFixtures.loopbackEnvironment
        p.standardOutput = FileHandle.nullDevice
        p.standardError = pipe.fileHandleForWriting
        try p.run()
        try pipe.fileHandleForWriting.close()
        let zip = d.appendingPathComponent("consulta_cand_2018.zip").path
        let start = Date()
        while p.isRunning, !FileManager.default.fileExists(atPath: zip), Date().timeIntervalSince(start) < 60 {
            usleep(1000)
        }
        #expect(FileManager.default.fileExists(atPath: zip), "the first zip was never put in place")
        usleep(200_000)  // it is now blocked writing its first line
        kill(p.processIdentifier, SIGINT)
        usleep(300_000)  // the signal is taken (by urna's watcher thread) before the blocked line is let through
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile().dropFirst(filled), as: UTF8.self)
        p.waitUntilExit()
        let fetched = FileManager.default.fileExists(atPath: d.appendingPathComponent("bem_candidato_2018.zip").path)
        #expect(!fetched, "the second zip was fetched after the signal")
        #expect(p.terminationStatus == 130, "\(said)")
        #expect(said.contains("interrupted: the 1 file put in place before the signal is kept, whole"), "\(said)")
    }
}
