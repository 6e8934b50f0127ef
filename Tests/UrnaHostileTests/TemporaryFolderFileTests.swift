import Foundation
import Testing

/// TMPDIR naming a file (or a missing folder): a dry run printed Foundation's raw error,
/// `Error Domain=NSCocoaErrorDomain Code=512 "(null)"UserInfo={NSUnderlyingError=...}`, naming neither TMPDIR nor a fix.
@Suite struct TemporaryFolderFileTests {
    @Test("A dry run with TMPDIR at a file names the folder, the reason and TMPDIR, and changes nothing")
    func temporaryFolderIsAFile() throws {
        let dir = try Hostile.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let old = try Hostile.sample("elections-v1-seed.sqlite", into: dir, as: "old.sqlite")
        let file = dir.appendingPathComponent("notafolder").path
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let before = Hostile.bytes(dir, old)
        for args in [
            ["migrate", "--db", old, "--dry-run"],
            ["adopt", "--db", old, "--family", "people", "--version", "0", "--dry-run"],
        ] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Hostile.binary)
            p.arguments = args
            p.currentDirectoryURL = dir
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = file
            p.environment = environment
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            #expect(p.terminationStatus != 0, "\(args)")
            #expect(!stderr.contains("NSCocoaErrorDomain"), "\(args): \(stderr)")
            #expect(stderr.contains("the dry run cannot copy the file into \(file)"), "\(args): \(stderr)")
            #expect(stderr.contains("point TMPDIR at a folder"), "\(args): \(stderr)")
        }
        #expect(Hostile.bytes(dir, old) == before)
        #expect(Hostile.bytes(dir, "notafolder") == Data("x".utf8))
    }
}
