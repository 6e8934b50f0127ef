import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct FolderSpecialFilesTests {
    @Test("import DIR holding a FIFO or a symlink to /dev/zero skips them with a warning, never reads them")
    func fifoAndDeviceInAFolder() throws {
        let dir = try Hostile.folder()
        let d = dir.appendingPathComponent("D")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        try Hostile.sample("consulta_cand_2016_AC.txt", into: d)
        #expect(mkfifo(d.appendingPathComponent("fifo.csv").path, 0o644) == 0)
        symlink("/dev/zero", d.appendingPathComponent("zero.csv").path)
        // It waited forever on the FIFO (and would have read /dev/zero forever).
        let r = try Hostile.urna(["import", "--db", "d.sqlite", "--quiet", "D"], in: dir, signal: SIGKILL, after: 5)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.code != 137)
        #expect(r.stderr.contains("D/fifo.csv: a FIFO, not a file"), "\(r.stderr)")
        #expect(r.stderr.contains("D/zero.csv: a device, not a file"), "\(r.stderr)")
        #expect(Hostile.fileType(d.appendingPathComponent("fifo.csv").path) == S_IFIFO)
    }
}
