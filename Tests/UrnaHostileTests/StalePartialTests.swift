import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a run killed with SIGKILL leaves (`<out>.partial-<pid>`) is removed by the next run writing that output.
@Suite struct StalePartialTests {
    /// The id of a process that has ended (the kernel does not hand it out again at once).
    static func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    @Test("A killed export's partial file is removed by the next export; live runs' files and symlinks are kept")
    func killedExportLeftovers() throws {
        let dir = try Hostile.folder()
        let db = try Hostile.importedDatabase(in: dir)
        let dead = try Self.deadPID()
        let alive = getpid()  // this test process: its name must survive
        try "half an export".write(
            to: dir.appendingPathComponent("out.csv.partial-\(dead)"), atomically: false, encoding: .utf8)
        try "half an export".write(
            to: dir.appendingPathComponent("out.csv.partial-\(dead)-2"), atomically: false, encoding: .utf8)
        try "someone else's".write(
            to: dir.appendingPathComponent("out.csv.partial-\(alive)"), atomically: false, encoding: .utf8)
        try "not ours".write(
            to: dir.appendingPathComponent("out.csv.partial-\(dead)x"), atomically: false, encoding: .utf8)
        try "precious".write(to: dir.appendingPathComponent("victim.txt"), atomically: false, encoding: .utf8)
        symlink("victim.txt", dir.appendingPathComponent("out.csv.partial-\(dead)-3").path)
        // It used to leave every killed run's partial file (7 MB for a national XML export) there forever.
        let r = try Hostile.urna(
            ["export", "--db", db, "--format", "csv", "--type", "Coalition", "--out", "out.csv"], in: dir)
        #expect(r.code == 0, "\(r.stderr)")
        let left = Hostile.listing(dir).filter { $0.hasPrefix("out.csv.partial-") }
        #expect(
            left.sorted()
                == ["out.csv.partial-\(alive)", "out.csv.partial-\(dead)-3", "out.csv.partial-\(dead)x"].sorted(),
            "\(left)")
        #expect(String(decoding: Hostile.bytes(dir, "victim.txt") ?? Data(), as: UTF8.self) == "precious")
    }
}
