import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An input folder nested thousands deep: read without resolving every level again, and what cannot be reached
/// (a path past PATH_MAX, a dangling link) is named in a warning, never left out without a word.
@Suite struct DeepFolderTests {
    /// Creates `depth` nested folders `x` under `root` (with openat, so past PATH_MAX too) and `name` at the bottom.
    static func nest(_ root: URL, depth: Int, name: String, contents: Data) {
        var fd = open(root.path, O_RDONLY | O_DIRECTORY)
        for _ in 0..<depth {
            mkdirat(fd, "x", 0o755)
            let next = openat(fd, "x", O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
        }
        let f = openat(fd, name, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = contents.withUnsafeBytes { write(f, $0.baseAddress, $0.count) }
        close(f)
        close(fd)
    }

    /// The first `lines` lines of a SampleData file.
    static func head(_ sample: String, lines: Int) throws -> Data {
        let all = try Data(contentsOf: Hostile.sampleData.appendingPathComponent(sample))
        var end = 0
        var seen = 0
        while end < all.count && seen < lines {
            if all[end] == 0x0A { seen += 1 }
            end += 1
        }
        return all.prefix(end)
    }

    @Test("A candidate file 2,000 folders deep is imported (it took minutes: realpath on every level)")
    func deepFileImported() throws {
        let dir = try Hostile.folder()
        try FileManager.default.createDirectory(
            at: dir.appendingPathComponent("in"), withIntermediateDirectories: false)
        Self.nest(
            dir.appendingPathComponent("in"), depth: 2000, name: "cand.csv",
            contents: try Self.head("consulta_cand_2018_MG.csv", lines: 50))
        let r = try Hostile.urna(["import", "--db", "deep.sqlite", "--quiet", "in"], in: dir, timeout: 60)
        #expect(r.code == 0, "\(r.stderr.suffix(300))")
        #expect(
            try Hostile.sql(dir.appendingPathComponent("deep.sqlite").path, "SELECT count(*) FROM Candidate") == ["49"])
    }

    @Test("A file past PATH_MAX and a dangling link in an input folder are named in warnings")
    func unreachableNamed() throws {
        let dir = try Hostile.folder()
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: false)
        try Self.head("consulta_cand_2018_MG.csv", lines: 50).write(to: input.appendingPathComponent("cand.csv"))
        Self.nest(input, depth: 2100, name: "bens.csv", contents: try Self.head("bem_candidato_2018_MG.csv", lines: 50))
        symlink("gone.csv", input.appendingPathComponent("dangling.csv").path)
        let r = try Hostile.urna(["import", "--db", "db.sqlite", "in"], in: dir, timeout: 60)
        // Both used to be left out without a word: "458 rows from 1 file", exit 0.
        #expect(r.code == 0, "\(r.stderr.suffix(300))")
        #expect(
            r.stderr.contains("warning: skipped in/dangling.csv: a link to gone.csv, which does not exist"),
            "\(r.stderr)")
        #expect(r.stderr.contains("File name too long"), "\(r.stderr.suffix(300))")
    }
}
