import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct InitThroughSymlinkTests {
    @Test("init --db naming a dangling symlink creates nothing where it points (import already refused it)")
    func initThroughDanglingSymlink() throws {
        let dir = try Hostile.folder()
        let target = dir.appendingPathComponent("planted-target").path
        symlink(target, dir.appendingPathComponent("people.sqlite").path)
        let r = try Hostile.urna(["init", "--db", "people.sqlite", "--family", "people", "--version", "0"], in: dir)
        // It used to exit 0 having created planted-target, a database, where the link pointed.
        #expect(r.code == 1, "\(r.stderr)")
        #expect(r.stderr.contains("symbolic link"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        #expect(Hostile.listing(dir) == ["people.sqlite"])
    }
}
