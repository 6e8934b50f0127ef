import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A FIFO planted at the default rejects name (`<db>.rejects.csv`, in a shared folder): the rejected rows,
/// original bytes and all, went to whoever reads it, while the summary said "see r.sqlite.rejects.csv", and a
/// reader that never drains it hung the import for good. Written through only when `--rejects` names it.
@Suite struct DefaultRejectsNameTests {
    @Test("A FIFO at <db>.rejects.csv gets no row: they go to <db>.rejects.1.csv, and the import ends (exit 0)")
    func plantedFIFOAtTheDefaultName() throws {
        let dir = try Hostile.folder()
        let goods = try Hostile.sample("bem_candidato_2018_MG.csv", into: dir, as: "bens.csv")
        let fifo = dir.appendingPathComponent("r.sqlite.rejects.csv").path
        #expect(mkfifo(fifo, 0o644) == 0)
        // Held open and never read: before, the import blocked once the pipe's 64 KiB were full (killed at 60 s).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let r = try Hostile.urna(["import", "--db", "r.sqlite", goods], in: dir, timeout: 60)
        #expect(r.code == 0, "\(r.stderr)")
        #expect(r.seconds < 50, "took \(r.seconds) s")
        #expect(r.stdout.contains("see r.sqlite.rejects.1.csv"), "\(r.stdout)")
        var byte: UInt8 = 0
        #expect(read(reader, &byte, 1) <= 0, "the planted FIFO received rows")
        #expect(Hostile.fileType(fifo) == S_IFIFO)
        let kept = Hostile.bytes(dir, "r.sqlite.rejects.1.csv") ?? Data()
        #expect(String(decoding: kept, as: UTF8.self).hasPrefix("file,line,column,reason,original\n"))
        #expect(Hostile.mode(dir, "r.sqlite.rejects.1.csv") == 0o600)
    }
}
