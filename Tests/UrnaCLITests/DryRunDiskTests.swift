import Foundation
import Testing

/// The dry run previews on a copy in TMPDIR, on another disk: it said "the upgrade would succeed" (exit 0) for a
/// file whose own disk could not hold the run, which the real run then refused (issue 14's sixth trial). It now
/// says the real run would be refused, with the same figures and exit code. Mounting needs root: without it the
/// test is cancelled with the reason.
@Suite("Dry run on a file whose disk cannot hold the real run", .serialized)
struct DryRunDiskTests {
    @Test("migrate --dry-run says the real run would be refused (exit 1), as the real run is")
    func dryRunSaysTheRealRunWouldBeRefused() throws {
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("people.sqlite").path
        try FaultFixtures.peopleV0(at: original, rows: 20_000)
        let fileSize = FullDiskFiguresTests.size(original)
        // Room for the file, not for its backup and the rewritten table.
        let fs = try SmallFileSystem.mountOrSkip(kilobytes: Int(fileSize / 1024) + 160, under: dir)
        defer { fs.unmount() }
        let db = fs.path("people.sqlite")
        try FileManager.default.copyItem(atPath: original, toPath: db)
        let before = try DatabaseSnapshot(db)
        let tmp = dir.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        let dry = try CLIMigrationKillTests.run(CLIRunner.binary, ["migrate", "--db", db, "--dry-run"], tmp: tmp.path)
        #expect(dry.code == 1, "\(dry.stdout) \(dry.stderr)")
        #expect(dry.stdout.contains("the real run would be refused before it starts"), "\(dry.stdout)")
        #expect(
            dry.stderr.hasPrefix("Error: the real run would be refused: the disk holding \(db) is full"),
            "\(dry.stderr)")
        #expect(dry.stderr.contains("are free"), "\(dry.stderr)")
        let real = try CLIRunner.run(["migrate", "--db", db])
        #expect(real.code == 1, "\(real.stderr)")
        #expect(try DatabaseSnapshot(db) == before)
        #expect(FaultFixtures.listing(fs.directory) == ["people.sqlite"], "\(FaultFixtures.listing(fs.directory))")
    }
}
