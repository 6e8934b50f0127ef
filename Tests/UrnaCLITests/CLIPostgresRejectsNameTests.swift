import Foundation
import PostgresTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `urna import --db postgresql://...` without `--rejects` puts rejected rows in `urna-postgres.rejects.csv` in the
/// current folder, a name the tool chose: a FIFO planted there was written through as if the user had named it
/// (a reader took the rejected rows; with no reader the import failed). Now it counts as a taken name, as
/// `<db>.rejects.csv` does for a file database.
@Suite("urna on PostgreSQL: the default rejects name is never written through", .serialized)
struct CLIPostgresRejectsNameTests {
    /// The first three candidacies of the MG 2018 sample and one row with two fields.
    static func oneBadRow(in dir: URL) throws -> String {
        let sample = try Data(contentsOf: AnalysisFixtures.sample.appendingPathComponent("consulta_cand_2018_MG.csv"))
        let lines = sample.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(4)
        var bytes = Data(lines.joined(separator: [0x0A]))
        bytes.append(contentsOf: Array("\n\"zzbadzz\";\"row\"\n".utf8))
        let path = dir.appendingPathComponent("consulta_cand_2018_MG.csv").path
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("A FIFO at ./urna-postgres.rejects.csv gets no row, read or not: they go to a numbered name")
    func plantedFIFOAtTheStagingDefault() throws {
        let pg = try postgresClusterOrSkip()
        let url = try pg.createDatabase(prefix: "rejects_fifo")
        let dir = try CLIRunner.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = try Self.oneBadRow(in: dir.appendingPathComponent("in", isDirectory: true).creatingFolder())
        let fifo = dir.appendingPathComponent("urna-postgres.rejects.csv").path
        #expect(mkfifo(fifo, 0o644) == 0)
        // No reader: the import used to fail opening the FIFO.
        let alone = try CLIRunner.run(["import", "--db", url, input], in: dir)
        #expect(alone.code == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("urna-postgres.rejects.1.csv"), "\(alone.stdout)")
        // A reader waiting on it: it used to receive the rejected row, original bytes and all.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let read = try CLIRunner.run(["import", "--db", url, input], in: dir)
        #expect(read.code == 0, "\(read.stderr)")
        #expect(read.stdout.contains("urna-postgres.rejects.2.csv"), "\(read.stdout)")
        var byte: UInt8 = 0
        #expect(Glibc.read(reader, &byte, 1) <= 0, "the planted FIFO received rows")
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && st.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        for n in [1, 2] {
            let kept = try String(
                contentsOfFile: dir.appendingPathComponent("urna-postgres.rejects.\(n).csv").path, encoding: .utf8)
            #expect(kept.hasPrefix("file,line,column,reason,original\n"), "\(kept)")
            #expect(kept.contains("zzbadzz"), "\(kept)")
        }
        #expect(try pg.psql("SELECT count(*) FROM \"Candidate\"", url: url) == "3\n")
    }
}

extension URL {
    /// This folder, created (with its parents) when missing.
    fileprivate func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
